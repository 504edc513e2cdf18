/* The functions uprobe mode traces: `-f/-l [BINARY:]REGEX` to (binary, file
 * offset) pairs. */
#ifndef FLAMEBPF_FUNCS_H
#define FLAMEBPF_FUNCS_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "symbols/binaries.h"
#include "ifunc.h"

struct func {
	size_t bin;	    /* its binary: funcs.bins.v[bin] */
	char *name;	    /* the name that matched, as -l prints it (func_names.h) */
	char *sym;	    /* the symbol of that name (mangled), for --no-demangle */
	uint64_t vaddr;	    /* link-time address of the code traced */
	uint64_t size;	    /* bytes: its size, else up to the next function */
	uint64_t offset;    /* file offset of vaddr, where a uprobe attaches */
	uint64_t sym_vaddr; /* the symbol's address: vaddr, or an IFUNC's resolver */
	uint32_t rank;	    /* which of the names at sym_vaddr (0: the best) */
	bool sized;	    /* the ELF states its size (else size is a guess) */
	bool ifunc;	    /* an IFUNC that is not traced: its implementation was not
			     * found (how IFUNC_NOT_FOUND) or is not in the file
			     * (IFUNC_ELSEWHERE: impl names the file) */
	enum ifunc_how how; /* how an IFUNC's implementation was found (ifunc.h),
			     * else IFUNC_NOT_FOUND */
	char *impl;	    /* that implementation's symbol, NULL when it has none */
	char *shared;	    /* other IFUNCs whose calls run it too ("memmove"), or NULL */
};

/* Sorted by binary (in the order they were first matched), then address;
 * one entry per function even when several names or several -f match it
 * (under the best name that matched); an IFUNC gets one per implementation
 * traced. */
struct funcs {
	struct func *v;
	size_t n;
	struct binaries bins; /* the files that have matches, distinct */
};

/* One -f/-l REGEX to match. */
struct funcs_query {
	const regex_t *re; /* REG_EXTENDED | REG_NOSUB */
	const char *text;  /* REGEX as written: see funcs__match; NULL: none */
	size_t matched;	   /* out: the functions it selected */
	size_t failed;	   /* out: see funcs__match */
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

/* Adds the functions of bins that q selects: those whose name, in one of
 * the forms func_name__matches() takes (as -l prints it, or without an
 * "@0xADDR", or a C++ name without parameter lists), re matches, and those
 * that have q->text as exactly such a form, so that a line of -l selects
 * its function even where it is no regex of itself ("operator new(unsigned
 * long)"). Several names at one address (aliases) select the function
 * once, under the best of those that matched. Each file is read once, even
 * under several paths; functions without a file offset (outside the
 * executable segments) are left out. An IFUNC is traced at the
 * implementation its resolver picks (ifunc.h), under its own name. Call it
 * once per -f to accumulate. Returns 0, or -errno when a binary cannot be
 * read (-ENOEXEC: not ELF), with q->failed set to its index in bins, or to
 * bins->n for another error (-ENOMEM); list then keeps what was added
 * before (funcs__free it either way). */
int funcs__match(struct funcs *list, const struct binaries *bins, struct funcs_query *q);

/* How many functions list holds: an IFUNC's implementations are one. */
size_t funcs__count(const struct funcs *list);

/* Writes "BINARY:NAME" lines (BINARY the path, NAME as matched; control
 * bytes become '?'), one per name: the implementations of an IFUNC are one
 * line. Returns 0 or -errno of the failed write. */
int funcs__print(const struct funcs *list, FILE *f);

/* Keeps one entry per code address (binary, file offset), where one probe
 * goes: two IFUNCs may run one implementation (glibc's memcpy and memmove
 * do), or an IFUNC the function another name selected. The first in list
 * order stays, under its name; note(arg, kept, dropped) is told of each
 * other one before it is freed. */
void funcs__merge_code(struct funcs *list,
		       void (*note)(void *arg, const struct func *kept, const struct func *dropped),
		       void *arg);

/* Drops the functions whose keep[i] is false, keeping the order. */
void funcs__keep(struct funcs *list, const bool *keep);

void funcs__free(struct funcs *list);

#endif
