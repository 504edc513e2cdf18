/* Data symbols of an ELF file (an interpreter's globals), which the
 * function tables of elf_symtab.h leave out. */
#ifndef FLAMEBPF_ELF_OBJECT_H
#define FLAMEBPF_ELF_OBJECT_H

#include <stddef.h>
#include <stdint.h>

/* The link-time addresses of the n symbols named names (of any type, from
 * .symtab or .dynsym) in the ELF file open on fd, into vaddrs (0: not
 * found). Returns 0, -ENOEXEC when fd is not ELF, -ENOENT when none was
 * found, or -ELIBBAD when libelf cannot start. */
int elf_object__find(int fd, const char *const *names, size_t n, uint64_t *vaddrs);

/* The link-time address of file offset off, from the PT_LOAD segment that
 * holds it. Returns 0, -ENOEXEC, -ENOENT, or -ELIBBAD. */
int elf_object__vaddr(int fd, uint64_t off, uint64_t *vaddr);

/* The file offset of link-time address vaddr, when the file holds its
 * bytes (not in a .bss). Returns 0, -ENOEXEC, or -ENOENT. */
int elf_object__offset(int fd, uint64_t vaddr, uint64_t *off);

#endif
