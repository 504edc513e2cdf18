/* The BPF sampling source: a cpu-clock perf event on every CPU runs
 * bpf/sample.bpf.c, which counts stacks in kernel maps; after the capture the
 * maps are read once and symbolized into a profile. */
#ifndef FLAMEBPF_SAMPLER_H
#define FLAMEBPF_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include <sys/types.h>

#include "profile/profile.h"
#include "mmap_events.h"
#include "perf_events.h"
#include "runtimes.h"
#include "tracepoint_spec.h"
#include "span_plan.h"
#include "usdt_plan.h"
#include "sample.h"
#include "unwind.h"
#include "unwinder.h"

struct sampler_opts {
	unsigned int freq;		     /* clocks: samples a second */
	const struct perf_event_desc *event; /* NULL: cpu-clock */
	/* several counted events side by side (each sample's type is its
	 * index); event is the first; nevents 0 or 1: event alone */
	const struct perf_event_desc *const *events;
	size_t nevents;
	uint64_t period;	      /* counted events: events a sample (clocks: 0) */
	const struct usdt_plan *usdt; /* -f usdt:...: probes counted; or NULL */
	/* --span: the probes that open and close spans; or NULL. With freq,
	 * samples carry their spans; without, the spans' time is counted */
	const struct span_plan *spans;
	const struct tracepoint_spec *tp; /* -e tracepoint:...: hits counted; or NULL */
	int weight;			  /* ... weighed so (enum tp_weight) */
	const char *weight_name;	  /* ... as the command line said it */
	double duration;		  /* expected seconds (0: unknown), for sizing maps */
	bool filter_pids;
	bool follow_children;
	bool user, kernel;
	bool timeline; /* keep each sample's time and CPU (profile events) */
	bool offcpu;   /* time off the CPU (ns, by stack and state), not samples */
	uint64_t min_block_ns, max_block_ns; /* --off-cpu: blocks kept (0: no bound) */
	bool wall;	 /* with freq and offcpu: samples weigh their period in ns */
	bool state_root; /* the state frame under the root, not at the leaf */
	bool wakers;	 /* --wakers: who woke each thread, after a "--" frame */
	bool kthreads;	 /* --kernel-threads: their time off the CPU too */
	bool idle;	 /* --idle-threads: threads off the CPU the whole capture too */
	enum unwind_mode unwind;
	bool verbose;
	/* --alloc: allocations by user stack, from the uprobes the caller
	 * attaches (sampler__alloc_progs); the profile in bytes, the view
	 * PROFILE_ALLOC_TOTAL or PROFILE_ALLOC_LIVE */
	enum profile_alloc alloc;
	uint32_t alloc_live_max; /* live allocations kept at most */
	uint64_t alloc_sample;	 /* --alloc-sample: one in every N bytes recorded; 0: all */
};

struct sampler_stats {
	uint64_t counter[CNT_NR];
	unsigned int ncpus;  /* CPUs with a perf event */
	const char *event;   /* "cpu-clock" or "cycles" */
	bool tracepoint;     /* counts are a tracepoint's hits (or values: event says which) */
	size_t usdt_probes;  /* -f usdt:...: the probes whose hits are counted */
	size_t spans;	     /* --span: the spans' names */
	bool classic;	     /* USDT, span or allocator probes as classic uprobes */
	uint64_t ticks;	     /* timeline: samples whose time was kept */
	uint64_t map_bytes;  /* memory of the BPF maps (keys and values) */
	uint64_t stacks;     /* unique raw stacks received */
	uint64_t collisions; /* stack ids that hashed alike (the later stack is misnamed) */
	enum unwind_mode unwind;
	struct unwinder_stats tables;	 /* when unwinding by tables */
	struct mmap_events_stats mmaps;	 /* the mappings recorded as they were made */
	const struct hashmap *thread_ns; /* --wall: tid -> its time on and off the CPU */
	uint64_t idle_threads, idle_ns;	 /* --off-cpu: off the CPU the whole capture, left out */
	bool blocked_at_start_unseen;	 /* ... and those blocked at the start: not seen */
	bool still_unread;		 /* ... the blocks open at the stop could not be read */
	uint64_t live, live_bytes;	 /* --alloc: allocations live at the stop, their bytes */
	uint64_t live_unnamed;		 /* ... of stacks whose counts were lost: left out */
	const struct runtimes *runtimes; /* the language runtimes sampled, after collecting */
	size_t python_procs;		 /* Python processes of a known layout found */
	bool python_off;		 /* ... their frames not walked (FLAMEBPF_NO_PYTHON=1) */
	bool python_timed;		 /* ... the walk timed (FLAMEBPF_PY_TIME=1) */
	char python_name[32];		 /* ... the first one's version: "python3.11" */
	const char *python_unknown;	 /* a Python version whose layout is unknown, or NULL */
};

struct sampler;
struct bpf_program;

/* Loads the BPF programs (not attached yet). Returns 0 or -errno. */
int sampler__open(struct sampler **out, const struct sampler_opts *o);

/* Restricts sampling to pid (all its threads); its maps are read now
 * unless it is a command not exec'd yet. Returns 0 or -errno. */
int sampler__add_pid(struct sampler *s, pid_t pid, bool before_exec);

/* Opens the perf events and attaches. Returns 0 or -errno. */
int sampler__start(struct sampler *s);

/* Handles pending process events for up to timeout_ms. Returns 0 or -errno
 * (-EINTR when a signal arrived). */
int sampler__poll(struct sampler *s, int timeout_ms);

/* Samples counted so far. */
uint64_t sampler__samples(struct sampler *s);

/* Detaches and handles the events still queued. */
void sampler__stop(struct sampler *s);

/* Reads the kernel maps into p. Returns 0 or -errno. */
int sampler__collect(struct sampler *s, struct profile *p);

/* What a drain let go: processes gone, binaries not run for a while. */
struct sampler_evicted {
	size_t procs, snapshots, binaries, stacks;
};

/* --continuous: reads into p what was counted since the last drain (or the
 * start) and starts counting anew, the capture running on; nothing lost or
 * counted twice across the boundary. Then forgets what later intervals
 * will not need (*ev). Returns 0 or -errno. */
int sampler__drain(struct sampler *s, struct profile *p, struct sampler_evicted *ev);

void sampler__stats(struct sampler *s, struct sampler_stats *st);

/* --alloc: the programs for the allocators' entries (cookie: enum
 * alloc_kind) and returns, loaded for uprobe_multi links (multi) or
 * classic uprobes. */
void sampler__alloc_progs(struct sampler *s, struct bpf_program **entries,
			  struct bpf_program **returns, bool *multi);

/* After a failed sampler__start: the USDT or span site that could not be
 * attached, in words ("work:tick at 0x1139 in '/bin/w'", or "in '/bin/w'"
 * when the binary's link as a whole was refused), or "". */
void sampler__failed_site(struct sampler *s, char *buf, size_t len);

void sampler__free(struct sampler *s);

#endif
