/* The profile: the one model between every source (BPF sampler, uprobes,
 * files) and every sink (folded, chrome, perf, svg, pprof). Frames and
 * strings are interned; stacks are root-first frame-id sequences with a
 * weight, owned by a thread. */
#ifndef FLAMEBPF_PROFILE_H
#define FLAMEBPF_PROFILE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

enum frame_kind {
	FRAME_USER,
	FRAME_KERNEL,
};

struct frame {
	const char *name;   /* symbol, or "MODULE+0xOFF" when there is none */
	const char *module; /* basename of the binary, "[kernel]", or "" */
	enum frame_kind kind;
	/* Where the frame was seen, for the outputs that show addresses (perf,
	 * pprof); zero and "" when the source did not say (folded input). */
	uint64_t addr;	      /* as the process saw it; callers: the return address */
	uint64_t sym_off;     /* addr - the start of symbol name; 0 for made-up names */
	const char *dso;      /* the binary's path, "[kernel.kallsyms]", or "" */
	const char *build_id; /* the binary's GNU build-id in hex, or "" */
};

/* The module of the frames --span puts under the root, "[NAME LABEL]". */
#define PROFILE_SPAN_MODULE "[span]"

/* A pid the input did not give (perf script's default fields): roots read
 * "COMM-?", as stackcollapse-perf.pl writes them. */
#define PROFILE_PID_UNKNOWN UINT32_MAX

/* The frames that say why a thread was off the CPU (--off-cpu, --wall),
 * at the leaf or under the root; samples are "[running]" beside them. */
#define PROFILE_STATE_SLEEPING	"[sleeping]"
#define PROFILE_STATE_DISK	"[disk]"
#define PROFILE_STATE_PREEMPTED "[preempted]"
#define PROFILE_STATE_STOPPED	"[stopped]"
#define PROFILE_STATE_OFF	"[off-cpu]"
#define PROFILE_STATE_RUNNING	"[running]"

/* Whether name is one of the off-CPU states above ([running] is not). */
bool profile__is_offcpu_state(const char *name);

/* A traced call's time off the CPU (--cpu-split), by the state the thread
 * left in, in the order of the names above. */
enum profile_off_state {
	PROFILE_OFF_SLEEPING,
	PROFILE_OFF_DISK,
	PROFILE_OFF_PREEMPTED,
	PROFILE_OFF_STOPPED,
	PROFILE_OFF_NR,
};

struct profile_split {
	uint64_t off_ns[PROFILE_OFF_NR];
};

/* PROFILE_STATE_SLEEPING ... for a state, PROFILE_STATE_OFF beyond them. */
const char *profile__off_state_name(unsigned int state);

/* The event of a profile of time off the CPU (--off-cpu) and of wall time
 * (--wall: samples weighing their period in ns beside it). Readers that
 * recognise such an input (in_folded.c, in_perf.c, in_chrome.c) name it so
 * too, so that every writer and diff treat it alike. */
#define PROFILE_EVENT_OFFCPU "sched_switch"
#define PROFILE_EVENT_WALL   "cpu-clock and sched_switch"

struct stack_owner {
	uint32_t pid, tid;
	const char *comm;  /* process name */
	const char *tcomm; /* thread name */
};

#define PROFILE_MAX_TYPES 8

struct profile_stack {
	struct stack_owner who; /* strings interned in the profile */
	uint32_t type;		/* the event it counts: an index of profile_meta.types */
	uint32_t nframes;
	const uint32_t *frames; /* root-first frame ids */
	uint64_t weight;
	uint64_t count; /* the samples or calls weight sums; 0 when not known */
	/* --alloc: the other view of the same memory (profile_meta.alloc says
	 * which view weight and count are): bytes and allocations still live
	 * at the end under PROFILE_ALLOC_TOTAL, allocated over the run under
	 * PROFILE_ALLOC_LIVE; 0 in other profiles */
	uint64_t other, other_count;
};

#define PROFILE_NARGS		 3
#define PROFILE_EVENT_UNFINISHED 1 /* no end was seen: dur ends where that was noticed */
#define PROFILE_EVENT_INSTANT	 2 /* a probe's hit: a moment, with its arguments */
/* a hit's argument i is signed (args[i] holds its 64-bit two's complement),
 * or a string the program passed (profile__event_str) */
#define PROFILE_EVENT_ARG_SIGNED(i) (4u << (i))
#define PROFILE_EVENT_ARG_STR(i)    (32u << (i))
_Static_assert(PROFILE_EVENT_ARG_STR(PROFILE_NARGS - 1) < 256,
	       "a hit's argument flags fit the 8-bit masks readers keep them in");
#define PROFILE_HIT_DUR_NS 1000 /* a hit is a moment: a microsecond on a timeline */

/* A timed event on a thread's timeline (a traced call), kept only when a
 * timeline output asks for it. */
struct profile_event {
	uint32_t stack; /* index of its stack: owner and path */
	uint32_t flags;
	uint32_t cpu;
	uint32_t split; /* 1 + the index of its split (profile__event_split); 0: none */
	uint64_t ts,
		dur; /* ns: CLOCK_MONOTONIC, like perf's timestamps; a sample lasts its period */
	uint64_t args[PROFILE_NARGS];
	uint64_t ret;
	/* what it weighs when not what its stack's samples weigh on average:
	 * an allocation's bytes (--alloc); 0: that mean */
	uint64_t weight;
};

enum profile_unit {
	UNIT_SAMPLES,
	UNIT_NANOSECONDS,
};

/* Memory profiles (--alloc): UNIT_SAMPLES weighed in bytes (a counted
 * event of period 1), counts are allocations, and each stack also carries
 * the other view (profile_stack.other). */
enum profile_alloc {
	PROFILE_ALLOC_NONE,
	PROFILE_ALLOC_TOTAL, /* weight: bytes allocated over the run */
	PROFILE_ALLOC_LIVE,  /* weight: bytes still live at the end */
};

/* What a writer may say about how the profile was made (titles, chrome's
 * otherData). Strings are "" when unknown, numbers 0. */
struct profile_meta {
	const char *cmdline; /* the flamebpf command line */
	const char *event;   /* sampling: the perf event ("cpu-clock") */
	const char *kernel;  /* release of the kernel profiled */
	const char *host;    /* the name of the machine profiled */
	const char *losses;  /* what the capture lost, in words; "" for nothing */
	unsigned int freq;   /* sampling frequency, Hz */
	unsigned int ncpus;
	double secs; /* length of the capture */
	/* a counted event's (-e page-faults) events a sample; 0: samples are time */
	uint64_t period;
	uint64_t start_ns;	  /* CLOCK_MONOTONIC at its start, as event times; 0: unknown */
	enum profile_alloc alloc; /* a memory profile's view; PROFILE_ALLOC_NONE for others */
	/* several counted events at once (-e page-faults -e context-switches):
	 * their names, each stack counting one (profile_stack.type), each
	 * sample standing for period of them; 0 types in a profile of one
	 * event (named by event) */
	unsigned int ntypes;
	const char *types[PROFILE_MAX_TYPES];
};

struct profile;

/* Returns NULL and sets errno on failure. */
struct profile *profile__new(enum profile_unit unit);
void profile__free(struct profile *p);

/* Find-or-create: a stable string copy owned by the profile, or NULL. */
const char *profile__intern(struct profile *p, const char *s);

/* Find-or-create the frame (strings are interned, NULL reads as ""); frames
 * differ by any field. Returns 0 and its id, or -ENOMEM. */
int profile__findnew_frame_at(struct profile *p, const struct frame *f, uint32_t *id);

/* The same for a frame with no address. */
int profile__findnew_frame(struct profile *p, const char *name, const char *module,
			   enum frame_kind kind, uint32_t *id);

/* Adds weight to the stack (merged with an identical one), and count to the
 * samples or calls it is made of. 0 or -ENOMEM. */
int profile__add_stack_count(struct profile *p, const struct stack_owner *who,
			     const uint32_t *frames, uint32_t nframes, uint64_t weight,
			     uint64_t count);

/* The type (profile_meta.types) of the stacks added from now on; stacks
 * of two types never merge. 0 at first. */
void profile__set_type(struct profile *p, uint32_t type);

/* The total weight and count of the stacks of a type. */
void profile__type_totals(const struct profile *p, uint32_t type, uint64_t *weight,
			  uint64_t *count);

/* A profile of one event: the stacks of src of that type (as type 0) and
 * their events, its metadata src's with event named so. NULL and errno
 * on failure. */
struct profile *profile__of_type(const struct profile *src, uint32_t type);

/* profile__add_stack_count(), and other and other_count to the stack's
 * other view (--alloc: see struct profile_stack). */
int profile__add_stack_alloc(struct profile *p, const struct stack_owner *who,
			     const uint32_t *frames, uint32_t nframes, uint64_t weight,
			     uint64_t count, uint64_t other, uint64_t other_count);

/* The same where each sample weighs 1 (UNIT_SAMPLES: count = weight) or
 * the count is not known (UNIT_NANOSECONDS: count 0). */
int profile__add_stack(struct profile *p, const struct stack_owner *who, const uint32_t *frames,
		       uint32_t nframes, uint64_t weight);

/* Adds every stack of src (weights and counts) to dst, as if dst had read
 * src's input after its own; events are not carried. 0 or -ENOMEM. */
int profile__merge(struct profile *dst, const struct profile *src);

/* The same for the stacks keep() keeps (all when keep is NULL); if
 * stack_map is not NULL (one slot per stack of src), it gets each stack's
 * index in dst, UINT32_MAX for those left out. */
int profile__merge_if(struct profile *dst, const struct profile *src,
		      bool (*keep)(const struct profile_stack *, void *), void *arg,
		      uint32_t *stack_map);

/* A new profile with the stacks keep() keeps, their events and src's
 * metadata. NULL and errno on failure. */
struct profile *profile__select(const struct profile *src,
				bool (*keep)(const struct profile_stack *, void *), void *arg);

/* Adds an event on the stack (created with weight 0 if new); ev->stack is
 * set from it. Returns 0 or -ENOMEM. */
int profile__add_event(struct profile *p, const struct stack_owner *who, const uint32_t *frames,
		       uint32_t nframes, const struct profile_event *ev);

/* The same for a traced call whose time on and off the CPU is known
 * (split is copied; events without one cost nothing for it). */
int profile__add_split_event(struct profile *p, const struct stack_owner *who,
			     const uint32_t *frames, uint32_t nframes,
			     const struct profile_event *ev, const struct profile_split *split);

/* A hit's argument i as a string: interned in p, kept in e by its index
 * (PROFILE_EVENT_ARG_STR(i)). Returns 0 or -ENOMEM. */
int profile__set_event_str(struct profile *p, struct profile_event *e, int i, const char *s);

/* A hit's argument i: the string str where there is one, else v, signed
 * or not. Returns 0 or -ENOMEM. */
int profile__set_hit_arg(struct profile *p, struct profile_event *e, int i, uint64_t v,
			 bool is_signed, const char *str);

/* Argument i of e as a string, NULL when it is a number. */
const char *profile__event_str(const struct profile *p, const struct profile_event *e, int i);

/* The event's time off the CPU, or NULL when it has none. */
const struct profile_split *profile__event_split(const struct profile *p,
						 const struct profile_event *ev);

/* Adds an event on an existing stack (by index). Returns 0 or -ENOMEM. */
int profile__add_stack_event(struct profile *p, const struct profile_event *ev);

/* Returns 0, or -ENOMEM; strings are copied. */
int profile__set_meta(struct profile *p, const struct profile_meta *m);
const struct profile_meta *profile__meta(const struct profile *p);

/* The index of the stack last added or found by profile__add_stack(). */
uint32_t profile__last_stack(const struct profile *p);

/* The indexes of the events in timeline order: by process, thread and
 * start; of two that start together the parent (longer, else shallower)
 * first; then as they were added. *order is malloc'd (n >= 1 entries).
 * Returns 0 or -ENOMEM. */
int profile__events_in_order(const struct profile *p, size_t **order);

size_t profile__nr_events(const struct profile *p);
const struct profile_event *profile__event(const struct profile *p, size_t i);

enum profile_unit profile__unit(const struct profile *p);

/* Whether the profile is time off the CPU, alone or with samples beside
 * it (--wall): its event names sched_switch. */
bool profile__is_offcpu(const struct profile *p);
/* Whether it is wall time: samples and time off the CPU, in ns. */
bool profile__is_wall(const struct profile *p);

/* For a reader that learns the unit at the end (a folded file whose
 * stacks hold states is time, not samples): the unit, then each stack's
 * weight and count anew (the totals follow). */
void profile__set_unit(struct profile *p, enum profile_unit unit);
void profile__set_weight(struct profile *p, size_t stack, uint64_t weight, uint64_t count);
size_t profile__nr_stacks(const struct profile *p);
const struct profile_stack *profile__stack(const struct profile *p, size_t i);

/* Whether the stack is time off the CPU: its state (below) is not
 * [running]. */
bool profile__stack_is_offcpu(const struct profile *p, const struct profile_stack *s);

/* When the time event e weighs began: a block off the CPU, a traced
 * call, a sample at its timestamp, but a sample of --wall the period
 * before it was taken, which it stands for (dur). */
uint64_t profile__event_from(const struct profile *p, const struct profile_event *e);

/* The frame of a stack that says its state: an off-CPU state or
 * [running], at the leaf, first under the root (--state-root) or just
 * before a "--" frame (--wakers); NULL when none. Elsewhere a frame named
 * so is taken for another tool's function. */
const char *profile__stack_state(const struct profile *p, const struct profile_stack *s);
/* The innermost of the span frames a stack begins with, or NULL. */
const struct frame *profile__stack_span(const struct profile *p, const struct profile_stack *s);
size_t profile__nr_frames(const struct profile *p);
const struct frame *profile__frame(const struct profile *p, uint32_t id);
uint64_t profile__total_weight(const struct profile *p);
uint64_t profile__total_count(const struct profile *p);
size_t profile__nr_processes(const struct profile *p);

#endif
