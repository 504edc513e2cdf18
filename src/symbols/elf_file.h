/* An ELF file read with libelf, as the function tables (elf_symtab.h) and
 * the data symbols (elf_object.h) read theirs: opened from a descriptor,
 * its program headers and its symbols walked through libelf's
 * bounds-checked accessors. */
#ifndef FLAMEBPF_ELF_FILE_H
#define FLAMEBPF_ELF_FILE_H

#include <gelf.h>
#include <stddef.h>

/* libelf's handle on the ELF file open on fd (mapped, read-only; fd stays
 * the caller's) into *out, for elf_end(). Returns 0, -ENOEXEC when fd is
 * not an ELF file, or -ELIBBAD when libelf cannot start. */
int elf_file__open(int fd, Elf **out);

typedef int (*elf_phdr_fn)(void *arg, Elf *elf, const GElf_Phdr *ph);

/* Calls fn on each program header in order until it returns nonzero.
 * Returns that value, 0 after the last, or -ENOEXEC for a bad table. */
int elf_file__each_phdr(Elf *elf, elf_phdr_fn fn, void *arg);

typedef int (*elf_sym_fn)(void *arg, size_t i, const GElf_Sym *s, const char *name);

/* Calls fn on each defined symbol (in a section, at a nonzero value, with a
 * name) of the symbol section scn, whose header is sh, with its index in
 * the section, until fn returns nonzero. Returns that value, 0 after the
 * last, -ENOEXEC for a bad table, or -EFBIG. */
int elf_file__each_sym(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, elf_sym_fn fn, void *arg);

/* Gives back the pages of the data of section scn (elf_getdata's) of a
 * file that elf_file__open opened: the kernel counts the pages of the
 * file read through libelf's map in our RSS until then, and reads them
 * again from its page cache when touched again. Nothing where libelf
 * copied the section or read the file rather than mapping it (dropping
 * the pages of a copy would zero them). */
void elf_file__release(Elf *elf, Elf_Scn *scn);

#endif
