/* The language runtimes of a capture (symbols/runtime.h): per runtime,
 * how many processes, how their JIT frames were named and what share of
 * their samples got names. */
#ifndef FLAMEBPF_RUNTIMES_H
#define FLAMEBPF_RUNTIMES_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"
#include "symbols/procs.h"
#include "symbols/runtime.h"

/* Processes named in the summary's advice, per runtime. */
#define RUNTIMES_MAX_NOTED 4

struct runtime_count {
	size_t procs, with_map;		    /* in the profile; of them, with a perf map */
	uint64_t weight, named;		    /* their samples; of them, without unnamed JIT frames */
	pid_t unmapped[RUNTIMES_MAX_NOTED]; /* the first few without a perf map */
	size_t nunmapped;
};

struct runtimes {
	struct runtime_count r[RUNTIME_NR];
};

/* Counts the profile's processes by runtime, and their samples: named
 * when none of their user frames is JIT code without a name. */
void runtimes__count(struct runtimes *rt, const struct profile *p, struct procs *ps);

#endif
