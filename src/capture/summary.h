/* What the capture sources tell the user on stderr: what -f selected, and
 * at the end of a capture what it caught and every loss. */
#ifndef FLAMEBPF_SUMMARY_H
#define FLAMEBPF_SUMMARY_H

#include <stdbool.h>

#include "profile/profile.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "funcs.h"
#include "runtimes.h"
#include "sampler.h"
#include "tracer.h"

/* The end-of-run summary of sampling: what was captured and every loss. */
void summary__sample(const struct profile *p, const struct sampler_stats *st, double secs,
		     unsigned int freq, bool verbose);

/* The same for --off-cpu: the time off the CPU (the profile's weight, ns),
 * in how many blocks; with --wall (freq), beside the samples' time. */
void summary__offcpu(const struct profile *p, const struct sampler_stats *st, double secs,
		     unsigned int freq, bool verbose);

/* The same for --alloc: bytes and allocations, frees (of addresses
 * allocated before the capture too), what was live at the end; attached:
 * -p (only what was allocated in the capture counts); sample: the
 * --alloc-sample period (0: none). */
void summary__alloc(const struct profile *p, const struct sampler_stats *st, double secs,
		    bool attached, uint64_t sample, bool verbose);

/* Per language runtime sampled (runtimes.h): one line of how its frames
 * were named and what share of its weight (what: "samples", "time",
 * "bytes") got names, then for the processes left without a perf map, why
 * and what flag names them. */
void summary__runtimes(const struct runtimes *rt, const char *what);

/* What a capture lost, in words ("" for nothing), appended to b. */
void summary__sample_losses(const struct sampler_stats *st, struct strbuf *b);
void summary__trace_losses(const struct tracer_stats *st, struct strbuf *b);

/* The same for function tracing: calls, functions, how returns are caught,
 * what was left out and why, every loss. */
void summary__trace(const struct profile *p, const struct tracer_stats *st,
		    const struct trace_attach_stats *at, double secs, bool verbose);

/* What -f does with the IFUNCs it selected (funcs.h): where each is
 * traced, and which other IFUNCs run the same code; one line each, or a
 * summary of many unless verbose. */
void summary__ifuncs(const struct funcs *list, bool verbose);

/* Names traced once, under another's name, since they run the same code:
 * a callback for funcs__merge_code (arg: a struct summary_merges), then one
 * line. */
struct summary_merges {
	struct strbuf b;     /* the first few, in words */
	struct hashmap seen; /* the pairs noted, by hash */
	size_t n;
};
void summary__merged(void *arg, const struct func *kept, const struct func *dropped);
void summary__merges(struct summary_merges *m);

#endif
