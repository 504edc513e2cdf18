/* What the calls of an IFUNC symbol run. Its symbol is a resolver (libc's
 * memcpy, strlen, memchr, ...; gcc's target_clones) that the dynamic linker
 * runs once, at load, to pick an implementation by the CPU's features; the
 * program's calls go there. The pick is known when flamebpf has loaded the
 * very same file itself (ifunc_self.h); otherwise the implementations a
 * resolver can pick are the code addresses it loads (a lea from %rip, or an
 * immediate in a fixed-address program) where a function starts. Nothing
 * of the file is ever run for this. */
#ifndef FLAMEBPF_IFUNC_H
#define FLAMEBPF_IFUNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/elf_symtab.h"

enum ifunc_how {
	IFUNC_NOT_FOUND,  /* no implementation found */
	IFUNC_CHOSEN,	  /* the one this CPU runs, as our own copy of the file chose it */
	IFUNC_CANDIDATES, /* every one the resolver can pick: which one runs is not known */
	IFUNC_ELSEWHERE,  /* this CPU runs code of another file (libc's time: the vDSO) */
};

struct ifunc_impl {
	uint64_t vaddr;	  /* link-time address */
	uint64_t offset;  /* file offset */
	uint64_t size;	  /* its symbol's, or its call-frame information's */
	bool sized;	  /* so stated (else up to the next symbol) */
	const char *name; /* its symbol (lives as long as the ifuncs), or NULL */
};

struct ifuncs;

/* For the ELF file open on fd (path names it, for its debug file) whose
 * symbols are t; fd and t must outlive the result. Returns 0 or -ENOMEM. */
int ifuncs__new(int fd, const char *path, const struct elf_symtab *t, struct ifuncs **out);

/* What the calls of an IFUNC run. */
struct ifunc_resolution {
	enum ifunc_how how;
	const struct ifunc_impl *v; /* n implementations (none but for CHOSEN
				     * and CANDIDATES), valid as long as the ifuncs */
	size_t n;
	const char *elsewhere; /* ELSEWHERE: that file, as our dynamic linker names it */
};

/* What the calls of function i of t (an IFUNC) run, into *out. Returns 0
 * or -ENOMEM. */
int ifuncs__resolve(struct ifuncs *r, size_t i, struct ifunc_resolution *out);

/* The other IFUNC symbols of the file whose calls run the implementation
 * this CPU runs for function i too (glibc's memmove runs memcpy's), as
 * "memmove, ..." in *names (malloc'd), or NULL when none does or the
 * choice is not known. Returns 0 or -ENOMEM. */
int ifuncs__sharers(struct ifuncs *r, size_t i, char **names);

void ifuncs__free(struct ifuncs *r);

#endif
