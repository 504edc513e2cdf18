/* Function symbols of one ELF file (.symtab and .dynsym), for address lookup. */
#ifndef FLAMEBPF_ELF_SYMTAB_H
#define FLAMEBPF_ELF_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct elf_symtab;

/* Reads the symbols, the PT_LOAD segments and the build-id of the ELF file open
 * on fd (fd stays open and owned by the caller). Returns 0, -ENOEXEC when fd
 * is not an ELF file, or -errno. A file without symbols loads fine (empty). */
int elf_symtab__load(int fd, struct elf_symtab **out);

/* Translates a file offset inside an executable PT_LOAD segment to the
 * link-time virtual address that symbols use. Returns 0 or -ENOENT. */
int elf_symtab__vaddr(const struct elf_symtab *t, uint64_t file_off, uint64_t *vaddr);

/* The function containing vaddr: its name, and vaddr's offset from its start.
 * Returns NULL when no function covers vaddr. The name lives as long as t. */
const char *elf_symtab__lookup(const struct elf_symtab *t, uint64_t vaddr, uint64_t *off);

/* The GNU build-id (NULL, *len = 0 when there is none). */
const uint8_t *elf_symtab__build_id(const struct elf_symtab *t, size_t *len);

size_t elf_symtab__count(const struct elf_symtab *t);

void elf_symtab__free(struct elf_symtab *t);

#endif
