/* The functions uprobe mode traces: `-f/-l [BINARY:]REGEX` to (binary, file
 * offset) pairs. */
#ifndef FLAMEBPF_FUNCS_H
#define FLAMEBPF_FUNCS_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "binaries.h"

struct func {
	size_t bin;	 /* its binary: funcs.bins.v[bin] */
	char *name;	 /* the demangled name, or sym when it is not mangled */
	char *sym;	 /* the symbol, the best of the names at its address */
	uint64_t vaddr;	 /* link-time address */
	uint64_t size;	 /* bytes: its size, else up to the next function */
	uint64_t offset; /* file offset of vaddr, where a uprobe attaches */
	bool sized;	 /* the ELF states its size (else size is a guess) */
	bool ifunc;	 /* an STT_GNU_IFUNC resolver: it runs once, not per call */
};

/* Sorted by binary (in the order they were first matched), then address;
 * one entry per function even when several names or several -f match it. */
struct funcs {
	struct func *v;
	size_t n;
	struct binaries bins; /* the files that have matches, distinct */
};

/* Splits a -f/-l argument "[BINARY:]REGEX". The part before the first ':'
 * is BINARY when that ':' is not half of a C++ "::" and the part looks like a
 * binary: it has a '/' or ".so", starts with "lib", or names an existing
 * file. Otherwise the whole argument is REGEX ("ns::f", "a:b"). So
 * "libc:^mem", "/usr/bin/python3.11:^_Py", "./prog:main", "libfoo.so:ns::f"
 * name a binary; to name an executable in the current directory by a bare
 * name, write "./prog:". REGEX may be empty ("libc:": every function).
 * Sets *binary (NULL when there is none) and *regex, both malloc'd.
 * Returns 0, -EINVAL for an empty argument, or -ENOMEM. */
int funcs__parse_spec(const char *arg, char **binary, char **regex);

/* Adds the functions of bins whose name matches re (compiled with
 * REG_EXTENDED | REG_NOSUB): the demangled name of a C++ or Rust symbol,
 * with or without its parameter list ("ns::f(int)", "ns::f"), or the symbol
 * itself when it is not mangled; any of the names at one address (aliases)
 * selects the function once, under its best name. Each file is read once,
 * even under several paths; functions without a file offset (outside the
 * executable segments) are left out. Call it once per -f to accumulate;
 * list->n tells whether anything matched. Returns 0, or -errno when a
 * binary cannot be read (-ENOEXEC: not ELF), with *failed (if not NULL) set
 * to its index in bins, or to bins->n for another error (-ENOMEM); list then
 * keeps what was added before (funcs__free it either way). */
int funcs__match(struct funcs *list, const struct binaries *bins, const regex_t *re,
		 size_t *failed);

/* Writes "BINARY:NAME" lines (BINARY the path, NAME the demangled name;
 * control bytes become '?'). Returns 0 or -errno of the failed write. */
int funcs__print(const struct funcs *list, FILE *f);

/* Drops the functions whose keep[i] is false, keeping the order. */
void funcs__keep(struct funcs *list, const bool *keep);

void funcs__free(struct funcs *list);

#endif
