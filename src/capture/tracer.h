/* The BPF function-tracing source: uprobe_multi links on the entries and
 * returns of the traced functions run bpf/trace.bpf.c, which sums self time
 * per (thread, call path) in the kernel; after the capture the map is read
 * once into a profile whose weights are nanoseconds. */
#ifndef FLAMEBPF_TRACER_H
#define FLAMEBPF_TRACER_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/profile.h"
#include "py_trace.h"
#include "trace.h"
#include "unwinder.h"

/* A traced function; its index in the tracer's table is its id. */
struct trace_func {
	const char *name;   /* demangled when mangled */
	const char *module; /* basename of the binary */
	const char *path;   /* the binary */
	uint64_t vaddr;	    /* link-time address */
};

/* The functions to probe in one binary. A function's return is caught by a
 * uretprobe, or by probes on its return sites when something may unwind
 * through it (a uretprobe replaces the return address on the stack). */
struct trace_target {
	const char *path;
	size_t n;
	const uint64_t *offsets; /* file offsets of the entries */
	const uint64_t *ids;	 /* function ids, indexes of the trace_func table */
	const bool *uret;	 /* per function: return caught by a uretprobe */
	const bool *plain_only;	 /* ... only in processes marked PID_PLAIN (sessions) */
	const bool *go_g;	 /* ... Go, its goroutine in r14 (TRACE_GO_G) */
	size_t nsites;
	const uint64_t *site_offsets; /* return sites of the other functions */
	const uint64_t *site_ids;     /* and whose they are, with their condition */
};

struct tracer_opts {
	bool filter_pids;
	bool follow_children;	 /* add the children of filtered processes (COMMAND) */
	bool want_calls;	 /* keep each call for timelines (profile events) */
	bool want_args;		 /* ... with its arguments and return value */
	bool want_stacks;	 /* --full-stack: calls under their real user stack */
	enum unwind_mode unwind; /* how those stacks are taken */
	bool notify_forks;	 /* collect the children of traced processes (proc events) */
	bool notify_execs;	 /* collect the execs that lost PID_PLAIN (proc events) */
	bool cpu_split;		 /* --cpu-split: calls' time on and off the CPU */
	bool state_root;	 /* ... with the state frame under the root */
	size_t max_calls;	 /* at most this many (0: a default) */
	/* -f py: Python calls, read where this says (NULL: none) */
	const struct py_trace_layout *python;
	bool python_eval_calls; /* ... each a call of the evaluation function (3.10) */
	double duration;	/* expected seconds (0: unknown), for sizing maps */
};

struct tracer_stats {
	uint64_t counter[TCNT_NR];
	uint64_t paths;	     /* unique call paths received */
	uint64_t calls_over; /* timeline records beyond max_calls, not kept */
	bool classic;	     /* classic uprobes: the kernel has no uprobe_multi */
	bool sessions;	     /* uprobe sessions for the functions caught like uretprobes */
	bool cpu_split;	     /* --cpu-split: the profile has state frames */
	uint64_t collisions; /* path ids that hashed alike */
	uint64_t map_bytes;
	enum unwind_mode unwind;      /* --full-stack */
	struct unwinder_stats tables; /* when unwinding by tables */
};

/* What attaching did, for the summary. */
/* Children of a COMMAND get links of their own in its libraries, up to this
 * many: each costs an attach (tens of ms for all of libc). */
#define TRACE_MAX_CHILDREN 64

struct trace_attach_stats {
	size_t binaries;
	size_t attached;	/* functions traced */
	size_t by_uret_leaf;	/* ... whose return is caught by a uretprobe: leaves */
	size_t by_uret_plain;	/* ... no leaves, in processes judged plain */
	size_t by_ret_sites;	/* ... by probes on their ret instructions */
	size_t fragments;	/* gcc's .cold parts matched, not functions */
	size_t entries_stepped; /* ... whose entry probe is single-stepped (slow) */
	size_t go_funcs;	/* ... in Go binaries */
	size_t go_past_check;	/* ... whose entry probe is past Go's stack check */
	size_t go_g;		/* ... whose frames stay matched when the stack is copied */
	size_t ifuncs;		/* IFUNCs left out: their implementation was not found */
	size_t no_ret_sites;	/* left out: something may unwind through them and
				 * their return sites could not be found */
	size_t refused;		/* left out: the kernel cannot probe them */
	const char *refused_names[5];
	size_t bad_sites;	   /* return sites the kernel refused */
	size_t exception_binaries; /* with libstdc++'s exception probes attached */
	/* COMMAND mode: children of the command, traced in its libraries by
	 * links of their own attached when they fork */
	size_t children;	   /* so traced */
	size_t children_over;	   /* not: over the limit of children so traced */
	int children_err;	   /* the first error attaching for one, or 0 */
	double children_attach_ms; /* the longest from fork event to probes live */
	/* Processes that exec'd a program not judged plain yet: */
	size_t execs_plain;	/* judged plain then */
	size_t execs_replanned; /* not: given the safe plans */
	int execs_err;		/* the first error attaching those, or 0 */
	double execs_attach_ms; /* the longest from exec to safe probes live */
};

struct tracer;

/* Loads the BPF programs (not attached). Returns 0, -EOPNOTSUPP when the
 * kernel has no uprobe_multi, or -errno. */
int tracer__open(struct tracer **out, const struct tracer_opts *o);

/* Adds pid to the filter, with flags (PID_PLAIN, PID_EXEC_ONCE);
 * before_exec: a command whose maps are read once it execs. */
int tracer__add_pid(struct tracer *t, pid_t pid, unsigned int flags, bool before_exec);

/* Attaches entry and return probes for the target's functions; pid > 0
 * limits them to that process. Functions whose entry the kernel refuses are
 * skipped and flagged in bad[] (tg->n entries); return sites it refuses are
 * counted in *bad_sites. Returns 0 or -errno. */
int tracer__attach(struct tracer *t, const struct trace_target *tg, pid_t pid, bool *bad,
		   size_t *bad_sites);

/* Attaches bpf on_exception at libstdc++'s exception probes in the binary
 * at path (catch_sites.h): n file offsets, their semaphores' (0: none) and
 * cookies (TRACE_EXC_*); pid > 0 limits them to that process. Returns 0 or
 * -errno. */
int tracer__attach_exceptions(struct tracer *t, const char *path, const uint64_t *offsets,
			      const uint64_t *ref_ctrs, const uint64_t *cookies, size_t n,
			      pid_t pid);

struct py_sites;

/* -f py: the name matcher (a struct py_dfa) and the probes in the
 * evaluation loop of the CPython binary at path (py_sites.h): entries where
 * a frame starts or resumes, exits where it returns or suspends (3.10: the
 * evaluation function's entry and return, python_eval_calls). Exits go in
 * first. pid > 0 limits them to that process. Returns 0 or -errno. */
int tracer__attach_python(struct tracer *t, const struct py_dfa *dfa, const char *path,
			  const struct py_sites *ps, pid_t pid);

/* The code objects that matched since the last call (EV_PY_CODE), in *ev
 * (owned by the tracer, valid until the next poll); returns how many. */
size_t tracer__py_codes(struct tracer *t, const struct py_code_event **ev);

/* The processes forked by traced ones (notify_forks, EV_FORK) and those
 * that exec'd a program not judged plain (notify_execs, EV_EXEC) since the
 * last call, in *ev (owned by the tracer, valid until the next poll);
 * returns how many. */
size_t tracer__proc_events(struct tracer *t, const struct trace_proc_event **ev);

/* The flags pid has in the filter (PID_*), 0 when it has none. */
unsigned int tracer__pid_flags(struct tracer *t, pid_t pid);

/* Drains the ring buffer for up to timeout_ms. Returns 0 or -errno. */
int tracer__poll(struct tracer *t, int timeout_ms);

/* Calls completed so far. */
uint64_t tracer__calls(struct tracer *t);

/* Detaches every probe and drains what is queued. */
void tracer__stop(struct tracer *t);

/* Reads the kernel's sums into p, naming frames from funcs (nfuncs ids).
 * Returns 0 or -errno. */
int tracer__collect(struct tracer *t, const struct trace_func *funcs, size_t nfuncs,
		    struct profile *p);

void tracer__stats(struct tracer *t, struct tracer_stats *st);

void tracer__free(struct tracer *t);

#endif
