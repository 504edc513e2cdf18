// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_file.h"

int elf_file__open(int fd, Elf **out)
{
	Elf *elf;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -ENOEXEC;
	}
	*out = elf;
	return 0;
}

int elf_file__each_phdr(Elf *elf, elf_phdr_fn fn, void *arg)
{
	size_t n;
	GElf_Phdr ph;
	int ret;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		ret = fn(arg, elf, &ph);
		if (ret)
			return ret;
	}
	return 0;
}

int elf_file__each_sym(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, elf_sym_fn fn, void *arg)
{
	size_t n, entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Data *d = elf_getdata(scn, NULL);
	const char *name;
	GElf_Sym s;
	int ret;

	if (!d || !entsize)
		return -ENOEXEC;
	n = d->d_size / entsize;
	if (n > INT32_MAX)
		return -EFBIG;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getsym(d, (int)i, &s))
			return -ENOEXEC;
		if (s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		/* elf_strptr checks the string ends inside the table. */
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		ret = fn(arg, i, &s, name);
		if (ret)
			return ret;
	}
	return 0;
}

void elf_file__release(Elf *elf, Elf_Scn *scn)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end;
	const char *file = elf_getident(elf, NULL);
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Shdr sh;

	/* In libelf's map, read-only (ELF_C_READ_MMAP): the data is where the
	 * file holds it from the ELF header, which libelf reads there too */
	if (!file || !d || !d->d_buf || !gelf_getshdr(scn, &sh) ||
	    (const char *)d->d_buf != file + sh.sh_offset)
		return;
	start = ((uintptr_t)d->d_buf + page - 1) & ~(page - 1);
	end = ((uintptr_t)d->d_buf + d->d_size) & ~(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
}
