/* The names `-l` prints and `-f` matches, for the functions of one ELF file.
 * Each names one function of the file: the symbol, demangled (C++, Rust),
 * with "@VERSION" for a non-default symbol version (memcpy@GLIBC_2.2.5, see
 * elf_symtab.h); a name that several functions would share (static
 * functions named alike in two source files, the variants of a C++
 * constructor or destructor, Rust's legacy names without their hash) ends
 * in the function's link-time address: "helper@0x1139". */
#ifndef FLAMEBPF_FUNC_NAMES_H
#define FLAMEBPF_FUNC_NAMES_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "symbols/elf_symtab.h"

struct func_names;

/* One name of one function. */
struct func_name {
	char *print; /* as -l prints it: demangled, "@0xADDR" when shared */
	char *sym;   /* the symbol (mangled), with the same "@0xADDR" */
	char *bare;  /* print without its "@0xADDR"; NULL when it has none */
	char *brief; /* C++: without parameter lists or address; else NULL */
};

/* Finds the names functions of t share. Returns 0 or -ENOMEM. */
int func_names__new(const struct elf_symtab *t, struct func_names **out);

/* The k-th name of function i of t (0: its best name, k: its alias k - 1)
 * into *out (free with func_name__free). Returns 0, -ENOENT past its last
 * name, or -ENOMEM. */
int func_names__get(const struct func_names *n, const struct elf_symtab *t, size_t i, size_t k,
		    struct func_name *out);

void func_names__free(struct func_names *n);

/* Whether re (REG_NOSUB) matches the name as printed, or the name without
 * its "@0xADDR", or a C++ name without its parameter lists ("ns::f"; a
 * clone keeps its suffix: "ns::f [clone .cold]"). */
bool func_name__matches(const struct func_name *fn, const regex_t *re);

/* Whether text is one of those forms of the name, exactly. */
bool func_name__is(const struct func_name *fn, const char *text);

void func_name__free(struct func_name *fn);

#endif
