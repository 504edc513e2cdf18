/* What flamebpf tells the user on stderr: errors, progress, the summary. */
#ifndef FLAMEBPF_REPORT_H
#define FLAMEBPF_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "funcs.h"
#include "hashmap.h"
#include "profile.h"
#include "sampler.h"
#include "strbuf.h"
#include "tracer.h"

/* The one-line status ("\r..."), only when stderr is a terminal. */
void report__progress(double elapsed, uint64_t n, const char *what);
void report__progress_clear(void);

/* The end-of-run summary: what was captured and every loss. */
void report__summary(const struct profile *p, const struct sampler_stats *st, double secs,
		     unsigned int freq, bool verbose);

/* What a capture lost, in words ("" for nothing), appended to b. */
void report__losses(const struct sampler_stats *st, struct strbuf *b);
void report__trace_losses(const struct tracer_stats *st, struct strbuf *b);

/* The same for function tracing: calls, functions, how returns are caught,
 * what was left out and why, every loss. */
void report__trace_summary(const struct profile *p, const struct tracer_stats *st,
			   const struct trace_attach_stats *at, double secs, bool verbose);

/* What -f does with the IFUNCs it selected (funcs.h): where each is
 * traced, and which other IFUNCs run the same code; one line each, or a
 * summary of many unless verbose. */
void report__ifuncs(const struct funcs *list, bool verbose);

/* Names traced once, under another's name, since they run the same code:
 * a callback for funcs__merge_code (arg: a struct report_merges), then one
 * line. */
struct report_merges {
	struct strbuf b;     /* the first few, in words */
	struct hashmap seen; /* the pairs noted, by hash */
	size_t n;
};
void report__merged(void *arg, const struct func *kept, const struct func *dropped);
void report__merges(struct report_merges *m);

/* The command's wait status, in words. */
void report__command_status(int status, bool stopped_by_us);

#endif
