// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "stack_walkers.h"

static bool has_section(Elf *elf, const char *const *names)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (size_t i = 0; names[i]; i++)
			if (!strcmp(name, names[i]))
				return true;
	}
	return false;
}

/* The unwinder itself, defined (libgcc_s, a static binary) or imported
 * (code that raises an exception); calls that force an unwind (glibc loads
 * the unwinder for them) or switch stacks. libc defines these for everyone:
 * only a file that calls them counts. */
static bool is_walker_symbol(const char *name, const GElf_Sym *sym)
{
	static const char *const calls[] = { "pthread_exit", "pthread_cancel", "swapcontext",
					     "setcontext", NULL };

	if (!strncmp(name, "_Unwind_", 8) || strstr(name, "jump_fcontext") ||
	    strstr(name, "ontop_fcontext"))
		return true;
	for (size_t i = 0; calls[i] && sym->st_shndx == SHN_UNDEF; i++)
		if (!strcmp(name, calls[i]))
			return true;
	return false;
}

static bool has_walker_symbol(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Sym sym;

	if (!data || !sh->sh_entsize)
		return false;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && is_walker_symbol(name, &sym))
			return true;
	}
	return false;
}

static bool has_walker_symbols(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		if (has_walker_symbol(elf, scn, &sh))
			return true;
	}
	return false;
}

unsigned int stack_walkers__of_file(int fd)
{
	static const char *const go[] = { ".gopclntab", ".go.buildinfo", ".note.go.buildid", NULL };
	static const char *const eh[] = { ".gcc_except_table", NULL };
	static const char *const dynamic[] = { ".dynamic", NULL };
	unsigned int w = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	if (elf_kind(elf) == ELF_K_ELF) {
		if (has_section(elf, go))
			w |= WALKER_GO;
		/* Exception tables only say what to run when an unwinder
		 * passes; a static binary has its unwinder inside, maybe
		 * without a symbol left to name it. */
		if (has_walker_symbols(elf) || (has_section(elf, eh) && !has_section(elf, dynamic)))
			w |= WALKER_UNWINDER;
	}
	elf_end(elf);
	return w;
}

unsigned int stack_walkers__of_binaries(const struct binaries *b)
{
	unsigned int w = 0;

	for (size_t i = 0; i < b->n; i++) {
		int fd = open(b->v[i].open_path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return WALKER_UNWINDER; /* unknown: assume the worst */
		w |= stack_walkers__of_file(fd);
		close(fd);
	}
	return w;
}
