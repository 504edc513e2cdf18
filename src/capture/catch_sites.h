/* libstdc++'s exception probes (libstdcxx:throw, rethrow, catch) in the
 * binaries a -f capture targets: libstdc++ itself, or a program that links
 * it statically. A catch probe lets the tracer end the calls an exception
 * left at the moment it is caught (bpf/trace.bpf.c, on_exception), where
 * otherwise their end is inferred from the stack pointer at the thread's
 * next traced event. Each site's cookie (TRACE_EXC_* of bpf/trace.h) says
 * what it is and, for a catch, where its caller's stack pointer is. */
#ifndef FLAMEBPF_CATCH_SITES_H
#define FLAMEBPF_CATCH_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/binary_list.h"

struct catch_site_set {
	char *path; /* where to attach: the binary's open path */
	size_t n;
	uint64_t *offsets;  /* in the file */
	uint64_t *ref_ctrs; /* the semaphores' offsets in the file; 0: none */
	uint64_t *cookies;
};

struct catch_sites {
	struct catch_site_set *v;
	size_t n, cap;
};

/* The exception probes of the binaries in target (those mapped at start:
 * a library loaded later by dlopen is not looked at). A binary is taken
 * only when the call-frame information at one of its catch probes gives
 * its caller's stack pointer; one without is left to the stack-pointer
 * inference, as are runtimes without such probes. Returns 0 (none found
 * is no error) or -ENOMEM. */
int catch_sites__find(const struct binaries *target, struct catch_sites *out);

void catch_sites__free(struct catch_sites *s);

#endif
