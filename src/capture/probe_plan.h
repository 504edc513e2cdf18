/* Where the probes of one binary's traced functions go: each function's
 * entry, and how its returns are caught. A uretprobe (the kernel emulates
 * it: fast) replaces the return address on the stack with its trampoline,
 * which breaks whatever reads that address; probes on the function's
 * return sites (ret is single-stepped: ~10x slower) leave the stack alone.
 * The plan takes the fast way only where the code shows nothing can see. */
#ifndef FLAMEBPF_PROBE_PLAN_H
#define FLAMEBPF_PROBE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "funcs.h"
#include "tracer.h"

struct disasm;

struct probe_plan {
	size_t n;
	uint64_t *offsets; /* file offsets of the entry probes */
	uint64_t *ids;	   /* their functions' ids (indexes in the funcs) */
	bool *uret;	   /* per function: its returns caught by a uretprobe */
	bool *plain_only;  /* ... because no process that runs it walks stacks */
	bool *go_g;	   /* ... Go, with its goroutine in r14 (TRACE_GO_G) */
	bool *bad;	   /* per function: the kernel refused its entry (attach) */
	size_t nsites, sites_cap;
	uint64_t *site_offsets; /* return sites of the other functions */
	uint64_t *site_cookies; /* their function ids and kinds (bpf/trace.h) */
};

/* Plans the functions [first, last) of funcs, all in the binary open on
 * fd, into *pl. plain: no process that will run the binary walks stacks
 * (stack_walkers.h), so the fast way is open to more functions; those are
 * then also planned the safe way into *safe (when not NULL), for the
 * processes found later not to be plain. Counts what it left out and how
 * returns are caught in *at. Returns 0 or -ENOMEM. */
int probe_plan__binary(const struct funcs *funcs, size_t first, size_t last, int fd, bool plain,
		       struct disasm *d, struct probe_plan *pl, struct probe_plan *safe,
		       struct trace_attach_stats *at);

/* Counts a function left out because the kernel cannot probe it. */
void probe_plan__note_refused(struct trace_attach_stats *at, const char *name);

void probe_plan__free(struct probe_plan *pl);

#endif
