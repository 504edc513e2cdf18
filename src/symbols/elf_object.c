// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "elf_file.h"
#include "elf_object.h"

struct wanted {
	const char *const *names;
	size_t n, found;
	uint64_t *vaddrs;
};

static int match_sym(void *arg, size_t i, const GElf_Sym *s, const char *name)
{
	struct wanted *w = arg;

	(void)i;
	for (size_t k = 0; k < w->n; k++) {
		if (!w->vaddrs[k] && !strcmp(name, w->names[k])) {
			w->vaddrs[k] = s->st_value;
			w->found++;
		}
	}
	return w->found == w->n;
}

int elf_object__find(int fd, const char *const *names, size_t n, uint64_t *vaddrs)
{
	struct wanted w = { .names = names, .n = n, .vaddrs = vaddrs };
	Elf *elf;
	GElf_Shdr sh;
	int err = elf_file__open(fd, &elf);

	if (err)
		return err;
	memset(vaddrs, 0, n * sizeof(*vaddrs));
	/* a bad symbol section ends the search, keeping what it found */
	for (Elf_Scn *scn = NULL; w.found < n && (scn = elf_nextscn(elf, scn));)
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    elf_file__each_sym(elf, scn, &sh, match_sym, &w) < 0)
			break;
	elf_end(elf);
	return w.found ? 0 : -ENOENT;
}

/* A conversion between a file offset and a link-time address (to_offset:
 * from the address) through the PT_LOAD segment that holds the bytes. */
struct load_conv {
	uint64_t from, to;
	bool to_offset;
};

static int segment_of(void *arg, Elf *elf, const GElf_Phdr *ph)
{
	struct load_conv *c = arg;
	uint64_t a = c->to_offset ? ph->p_vaddr : ph->p_offset;

	(void)elf;
	if (ph->p_type != PT_LOAD || c->from < a || c->from - a >= ph->p_filesz)
		return 0;
	c->to = (c->to_offset ? ph->p_offset : ph->p_vaddr) + (c->from - a);
	return 1;
}

static int convert(int fd, uint64_t from, uint64_t *to, bool to_offset)
{
	struct load_conv c = { .from = from, .to_offset = to_offset };
	Elf *elf;
	int err = elf_file__open(fd, &elf);

	if (err)
		return err;
	err = elf_file__each_phdr(elf, segment_of, &c) == 1 ? 0 : -ENOENT;
	elf_end(elf);
	if (!err)
		*to = c.to;
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
