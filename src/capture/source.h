/* A capture source behind one interface, so that the command line drives
 * sampling and tracing alike: open, filter, start, poll, stop, collect. */
#ifndef FLAMEBPF_SOURCE_H
#define FLAMEBPF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h> /* unwind.h's */
#include <sys/types.h>

#include "profile/profile.h"
#include "util/strbuf.h"
#include "perf_events.h"
#include "tracepoint_spec.h"
#include "unwind.h"

/* --span NAME=BEGIN,END: BEGIN and END are "usdt:BINARY:PROVIDER:NAME";
 * BEGIN's argument label_arg (from 0; -1: none) labels each span, as a
 * string (the program passes a char *) or a number. */
#define SOURCE_MAX_SPANS 8

struct span_spec {
	char *name, *begin, *end; /* malloc'd */
	int label_arg;
	bool label_number;
};

/* What the sources take from the command line (cli/options.c fills it);
 * the pointers stay the caller's and must outlive the source. */
struct source_opts {
	unsigned int freq;		     /* sampling frequency in Hz; 0 when not sampling */
	const struct perf_event_desc *event; /* -e: what samples are taken on; NULL: cpu-clock */
	/* every -e event, event the first: several are counted side by side,
	 * each a type of the profile (profile_meta.types) */
	const struct perf_event_desc *events[PROFILE_MAX_TYPES];
	size_t nevents;
	uint64_t period; /* -c: a counted event's events a sample; 0: 1 */
	bool tracepoint; /* -e tracepoint:...: stacks counted at tp */
	struct tracepoint_spec tp;
	int weight;			     /* --weight: enum tp_weight, or an argument's index */
	const char *weight_name;	     /* ... as given: "count", "arg2", "ret" */
	bool offcpu;			     /* --off-cpu: time off the CPU instead of samples */
	uint64_t min_block_ns, max_block_ns; /* --min-block, --max-block (0: none) */
	bool state_root;		     /* --state-root: the state frame under the root */
	bool wakers;			     /* --wakers: the waker's stack after a "--" frame */
	bool kthreads;			     /* --kernel-threads: their time off the CPU too */
	bool idle_threads;	  /* --idle-threads: threads off the CPU the whole capture too */
	bool cpu_split;		  /* --cpu-split: traced calls' time on and off the CPU */
	enum profile_alloc alloc; /* --alloc[=live]: memory, the view asked for */
	uint64_t alloc_sample;	  /* --alloc-sample: one in every N bytes recorded; 0: all */
	const char **funcs;	  /* -f arguments (uprobe mode) */
	size_t nfuncs;
	const char **usdt_specs; /* -f usdt:... arguments: probe hits counted */
	size_t nusdt;
	struct span_spec spans[SOURCE_MAX_SPANS]; /* --span */
	size_t nspans;
	const char *list; /* -l argument */
	double duration;  /* seconds; 0 = until signal or targets exit */
	pid_t *pids;
	size_t npids;
	char **command; /* NULL-terminated argv of COMMAND, or NULL */
	bool all;	/* -a: every process; a COMMAND only bounds the capture */
	bool user_only, kernel_only;
	bool timeline;	/* the output needs each sample's or call's time */
	bool want_args; /* an output shows each call's arguments (chrome JSON) */
	bool full_stack;
	size_t max_calls;	 /* calls kept for a timeline (0: default) */
	enum unwind_mode unwind; /* how user stacks are taken */
	/* the symbolizer's: names left mangled, inlined functions as frames,
	 * FILE:LINE after names */
	bool no_demangle, inline_frames, file_line;
};

struct source_ops {
	const char *what; /* what progress counts: "samples", "calls" */
	/* before_exec: the command, forked and not yet its program (its
	 * mappings, flamebpf's own, are not worth reading) */
	int (*add_pid)(void *impl, pid_t pid, bool before_exec);
	int (*start)(void *impl);
	int (*poll)(void *impl, int timeout_ms);
	uint64_t (*progress)(void *impl);
	void (*stop)(void *impl);
	int (*collect)(void *impl, struct profile *p);
	/* --continuous (NULL where unsupported): what was counted since the
	 * last drain into p, the capture going on; in note, what it let go of
	 * what it kept, in words ("" for nothing) */
	int (*drain)(void *impl, struct profile *p, struct strbuf *note);
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

/* Each opens its source for o (the command, if any, is spawned but not
 * started: cmd_pid > 0). They report their own errors, in words, and
 * return 0 or -errno. */
int source_sample__open(struct source *src, const struct source_opts *o, int verbosity);
int source_trace__open(struct source *src, const struct source_opts *o, pid_t cmd_pid,
		       int verbosity);

/* -f 'py:REGEX' (source_trace__open hands them over): Python calls. */
bool source_pytrace__wanted(const struct source_opts *o);
int source_pytrace__open(struct source *src, const struct source_opts *o, pid_t cmd_pid,
			 int verbosity);

int source_alloc__open(struct source *src, const struct source_opts *o, pid_t cmd_pid,
		       int verbosity);

/* -l: prints the functions the -l argument names, for the target. */
int source_trace__list(const struct source_opts *o);

/* The symbolizer options of o, for every later symbolizer. */
void source__set_symbolizer(const struct source_opts *o);

/* The ops of a source whose impl begins with its struct sampler * (sample's
 * and alloc's): they pass the call on; add_pid says its error. */
int source_sampler__add_pid(void *impl, pid_t pid, bool before_exec);
int source_sampler__poll(void *impl, int timeout_ms);
uint64_t source_sampler__progress(void *impl);
int source_sampler__collect(void *impl, struct profile *p);

/* The ops of a source whose impl begins with its struct tracer * (trace's
 * and py's). */
int source_tracer__start(void *impl);
uint64_t source_tracer__progress(void *impl);
void source_tracer__describe(void *impl, struct profile_meta *m, struct strbuf *b);

/* The targets of o (-p, and the COMMAND cmd_pid if not 0) put in the BPF
 * filter by add, the source's add_pid, before any probe goes in: a call
 * made once its probe is live is one of theirs, counted. Put there after
 * the probes, a program that called at once lost its first calls (28 of
 * 400,000 in one run of 50); the add_pid calls that follow find them in. */
int source_tracer__add_targets(void *impl, const struct source_opts *o, pid_t cmd_pid,
			       int (*add)(void *impl, pid_t pid, bool before_exec));

/* The hint for a failed BPF load or attach. */
const char *source__bpf_hint(int err, int verbosity);

#endif
