// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <gelf.h>
#include <string.h>

#include "elf_object.h"

static Elf *open_elf(int fd)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return NULL;
	}
	return elf;
}

/* Looks the names up in one symbol section; returns how many it found. */
static size_t scan_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *const *names,
			   size_t n, uint64_t *vaddrs)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t found = 0;
	GElf_Sym s;

	for (size_t i = 0; d && sh->sh_entsize && i < sh->sh_size / sh->sh_entsize; i++) {
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || !s.st_value || s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		for (size_t k = 0; name && k < n; k++) {
			if (!vaddrs[k] && !strcmp(name, names[k])) {
				vaddrs[k] = s.st_value;
				found++;
			}
		}
	}
	return found;
}

int elf_object__find(int fd, const char *const *names, size_t n, uint64_t *vaddrs)
{
	Elf *elf = open_elf(fd);
	size_t found = 0;
	GElf_Shdr sh;

	if (!elf)
		return -ENOEXEC;
	memset(vaddrs, 0, n * sizeof(*vaddrs));
	for (Elf_Scn *scn = NULL; found < n && (scn = elf_nextscn(elf, scn));)
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			found += scan_symbols(elf, scn, &sh, names, n, vaddrs);
	elf_end(elf);
	return found ? 0 : -ENOENT;
}

/* Converts between a file offset and a link-time address (to_offset: the
 * other way) through the PT_LOAD segment that holds the bytes. */
static int convert(int fd, uint64_t from, uint64_t *to, bool to_offset)
{
	Elf *elf = open_elf(fd);
	size_t n = 0;
	GElf_Phdr ph;
	int err = -ENOENT;

	if (!elf)
		return -ENOEXEC;
	if (!elf_getphdrnum(elf, &n))
		for (size_t i = 0; i < n && err; i++) {
			uint64_t a;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			a = to_offset ? ph.p_vaddr : ph.p_offset;
			if (from >= a && from - a < ph.p_filesz) {
				*to = (to_offset ? ph.p_offset : ph.p_vaddr) + (from - a);
				err = 0;
			}
		}
	elf_end(elf);
	return err;
}

int elf_object__vaddr(int fd, uint64_t off, uint64_t *vaddr)
{
	return convert(fd, off, vaddr, false);
}

int elf_object__offset(int fd, uint64_t vaddr, uint64_t *off)
{
	return convert(fd, vaddr, off, true);
}
