/* The language runtimes of a capture (symbols/runtime.h): before its
 * stacks are named, a JVM without a perf map is asked for one
 * (jvm_perfmap.h); after, per runtime, how many processes, how their JIT
 * frames were named, what share of their samples got names, ran unnamed
 * in an interpreter, or lost their callers (runtime_stacks.h). */
#ifndef FLAMEBPF_RUNTIMES_H
#define FLAMEBPF_RUNTIMES_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"
#include "symbols/procs.h"
#include "symbols/runtime.h"
#include "jvm_perfmap.h"

/* Processes named in the summary's advice, per runtime. */
#define RUNTIMES_MAX_NOTED 4

struct runtime_count {
	size_t procs, with_map;		    /* in the profile; of them, with a perf map */
	size_t with_jit;		    /* ... without, named from their JIT's memory */
	size_t with_methods;		    /* JVMs whose interpreted methods were named */
	uint64_t weight, named;		    /* their samples; of them, without unnamed JIT frames */
	uint64_t interpreted;		    /* of them, running unnamed in the interpreter */
	uint64_t cut_at_jit;		    /* of them, whose walk stopped in JIT code */
	pid_t unmapped[RUNTIMES_MAX_NOTED]; /* the first few without a perf map */
	size_t nunmapped;
};

struct runtimes {
	struct runtime_count r[RUNTIME_NR];
	size_t jvm_asked, jvm_made; /* JVMs asked for a perf map; those that wrote one */
	size_t jvm_unasked;	    /* JVMs not asked: the time for asking was spent */
	double jvm_secs;	    /* the time jcmd took, all asks together */
	int jvm_err;		    /* why the first ask that failed did */
	pid_t jvm_failed;	    /* ... its JVM */
	struct jvm_ask jvm_fail;    /* ... what jcmd did */
};

/* Asks each live JVM ps holds that has no perf map for one, and has ps
 * read it again; all in JVM_PERFMAP_TIMEOUT_MS. */
void runtimes__ask_jvms(struct runtimes *rt, struct procs *ps);

/* Counts the profile's processes by runtime, and their samples: named
 * when none of their user frames is JIT code without a name and the
 * function they ran is not left to the interpreter's name. */
void runtimes__count(struct runtimes *rt, const struct profile *p, struct procs *ps);

#endif
