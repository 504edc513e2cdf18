/* Symbol versions of a .dynsym (.gnu.version and .gnu.version_d): which
 * symbols are a non-default version of their name. A shared library may
 * define one name several times, each at its own address: glibc's memcpy is
 * memcpy@@GLIBC_2.14 (the default, what new programs link to) and
 * memcpy@GLIBC_2.2.5 (kept for programs linked before). */
#ifndef FLAMEBPF_ELF_VERSIONS_H
#define FLAMEBPF_ELF_VERSIONS_H

#include <gelf.h>
#include <stddef.h>

struct elf_versions;

/* Reads the versions of the symbols of section dynsym (its index) of elf.
 * Sets *out to NULL when it has none. Returns 0 or -ENOMEM; malformed
 * version sections count as none. */
int elf_versions__load(Elf *elf, size_t dynsym, struct elf_versions **out);

/* The version of symbol i when it is a non-default one ("GLIBC_2.2.5" for
 * memcpy@GLIBC_2.2.5), else NULL. The string lives as long as elf. */
const char *elf_versions__hidden(const struct elf_versions *v, size_t i);

void elf_versions__free(struct elf_versions *v);

#endif
