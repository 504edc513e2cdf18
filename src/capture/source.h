/* A capture source behind one interface, so that the command line drives
 * sampling and tracing alike: open, filter, start, poll, stop, collect. */
#ifndef FLAMEBPF_SOURCE_H
#define FLAMEBPF_SOURCE_H

#include <stdint.h>
#include <sys/types.h>

#include "options.h"
#include "profile.h"
#include "strbuf.h"

struct source_ops {
	const char *what; /* what progress counts: "samples", "calls" */
	int (*add_pid)(void *impl, pid_t pid);
	int (*start)(void *impl);
	int (*poll)(void *impl, int timeout_ms);
	uint64_t (*progress)(void *impl);
	void (*stop)(void *impl);
	int (*collect)(void *impl, struct profile *p);
	void (*summary)(void *impl, const struct profile *p, double secs);
	/* Fills m->event and m->losses (text kept in b) after stop. */
	void (*describe)(void *impl, struct profile_meta *m, struct strbuf *b);
	void (*free)(void *impl);
};

struct source {
	const struct source_ops *ops;
	void *impl;
	enum profile_unit unit;
};

/* Each opens its source for the options (the command, if any, is spawned
 * but not started: cmd_pid > 0). They report their own errors, in words,
 * and return 0 or -errno. */
int source_sample__open(struct source *src, const struct options *o, int verbosity);
int source_trace__open(struct source *src, const struct options *o, pid_t cmd_pid, int verbosity);

/* -l: prints the functions the -l argument names, for the target. */
int source_trace__list(const struct options *o);

/* The symbolizer options of the command line, for every later symbolizer. */
void source__set_symbolizer(const struct options *o);

/* The hint for a failed BPF load or attach. */
const char *source__bpf_hint(int err, int verbosity);

#endif
