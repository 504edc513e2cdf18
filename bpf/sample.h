/* SPDX-License-Identifier: GPL-2.0 */
/* ABI shared by bpf/sample.bpf.c and the user-space sampler. */
#ifndef FLAMEBPF_SAMPLE_H
#define FLAMEBPF_SAMPLE_H

#include "probe_arg.h"
#include "python.h"
#include "unwind.h"

#define SAMPLE_MAX_DEPTH 127 /* perf's default kernel.perf_event_max_stack */
#define SAMPLE_COMM_LEN	 16

/* Reserved stack ids: real ids are content hashes >= STACK_ID_FIRST. */
#define STACK_ID_NONE  0 /* no stack taken (or an empty one) */
#define STACK_ID_LOST  1 /* taken, but it could not be handed to user space */
#define STACK_ID_FIRST 2

/* Values in the pid filter (map pids), a mask. A child gets its parent's,
 * PID_EXEC_ONCE excepted. */
#define PID_TRACED    1
#define PID_PLAIN     2 /* its program was judged plain: see src/capture/stack_walkers.h */
#define PID_EXEC_ONCE 4 /* ... but it has yet to exec it: keep PID_PLAIN then */
/* The command, forked but waiting to exec it: until then it runs
 * flamebpf's own program (spawner_ino), whose work is not the command's */
#define PID_BEFORE_EXEC 8

enum sample_counter {
	CNT_SAMPLES,	     /* samples counted (map or ring buffer) */
	CNT_FILTERED,	     /* samples of processes outside the pid filter */
	CNT_USTACK_ERR,	     /* bpf_get_stack() failed for the user stack */
	CNT_KSTACK_ERR,	     /* bpf_get_stack() failed for the kernel stack */
	CNT_STACKS_DROPPED,  /* a new stack found the ring buffer full */
	CNT_SAMPLES_SPILLED, /* counts map full: the sample went through the ring buffer */
	CNT_SAMPLES_DROPPED, /* counts map and ring buffer full: sample lost */
	CNT_EVENTS_LOST,     /* ring buffer full: a process event was lost */
	CNT_SEEN_FULL,	     /* the seen-processes map was full */
	CNT_PIDS_FULL,	     /* a child of a traced process did not fit in the pid filter */
	CNT_TICKS_DROPPED,   /* timeline: a sample's time record found the ring buffer full */
	CNT_OFF_BLOCKS,	     /* --off-cpu: blocks of time off the CPU counted */
	CNT_OFF_SHORT,	     /* blocks shorter than --min-block */
	CNT_OFF_SHORT_NS,    /* ... their time */
	CNT_OFF_LONG,	     /* blocks longer than --max-block */
	CNT_OFF_LONG_NS,     /* ... their time */
	CNT_OFF_DROPPED,     /* blocks lost: the counts map was full */
	CNT_OFF_NO_STORAGE,  /* blocks lost: no task storage for their start */
	CNT_OFF_NO_START,    /* blocks lost: their thread's switch away was not traced */
	CNT_OFF_UNTRACED,    /* blocks whose end was not traced: ended by the CPU time since */
	CNT_OFF_KTHREAD,     /* blocks of kernel threads, left out (--kernel-threads keeps them) */
	CNT_OFF_KTHREAD_NS,  /* ... their time */
	CNT_ALLOCS,	     /* --alloc: allocations made */
	CNT_ALLOC_BYTES,     /* ... their bytes */
	CNT_ALLOC_SAMPLED,   /* ... recorded (all but with --alloc-sample) */
	CNT_ALLOC_FAILED,    /* ... calls that returned no memory */
	CNT_FREES,	     /* frees (and deletes, reallocs' old pointers) of non-NULL pointers */
	CNT_FREE_UNKNOWN,    /* ... of addresses not allocated in the capture: ignored */
	CNT_ALLOC_LIVE_FULL, /* the live map was full: an allocation not kept as live */
	CNT_ALLOC_DROPPED,   /* the counts map was full: an allocation lost */
	CNT_ALLOC_NO_CALL,   /* no task storage for a call: its allocation lost */
	CNT_SPANS,	     /* --span: spans begun */
	CNT_SPAN_DEEP,	     /* ... beyond SPAN_MAX_DEPTH open at once: not kept */
	CNT_SPAN_UNMATCHED,  /* ... ends of no open span */
	CNT_SPAN_UNCLOSED,   /* ... open when their thread exited: closed then */
	CNT_SPAN_LOST,	     /* ... whose text found the ring buffer full */
	CNT_PY_SAMPLES,	     /* samples of Python processes whose layout is known */
	CNT_PY_STACKS,	     /* ... that carry Python frames */
	CNT_PY_WALK_NS,	     /* ... the walks' time, with FLAMEBPF_PY_TIME=1 */
	CNT_USTACK,	     /* how user stacks were taken: enum ustack_counter from here */
	CNT_NR = CNT_USTACK + USTACK_NR,
};

struct sample_key {
	__u32 pid; /* tgid */
	__u32 tid;
	__u64 ustack;
	__u64 kstack;
	char comm[SAMPLE_COMM_LEN];  /* the process (thread-group leader) name */
	char tcomm[SAMPLE_COMM_LEN]; /* the thread name */
	__u32 state;		     /* --off-cpu: enum offcpu_state; else 0 */
	__u32 wtid;		     /* --wakers: the thread that woke it (wcomm "": none seen) */
	__u32 wpid;
	__u32 probe;		     /* -f usdt:...: which probe was hit, from 1; several
				      * -e: which event sampled, from 1; else 0 */
	__u64 wustack, wkstack;	     /* ... its stacks when it did */
	char wcomm[SAMPLE_COMM_LEN]; /* ... its name */
	__u64 span;		     /* --span: the innermost open span's id (span.h); 0: none */
	__u64 pystack;		     /* its Python frames (EV_PYSTACK); 0: none */
	__u32 pyinstr;		     /* ... the innermost one's instruction, which the
				      * record leaves 0 (python.h) */
	__u32 pad;
};

/* --off-cpu: why a thread was off the CPU, from how it left it. */
enum offcpu_state {
	OFFCPU_NONE,	  /* on-CPU samples */
	OFFCPU_SLEEPING,  /* interruptible: futex, poll, nanosleep, sockets */
	OFFCPU_DISK,	  /* uninterruptible: I/O, mostly */
	OFFCPU_PREEMPTED, /* still runnable: waiting in the run queue */
	OFFCPU_OTHER,	  /* stopped, traced, ... */
	OFFCPU_NR,
};

/* struct offcpu_start's flags. */
#define OFFCPU_F_KTHREAD  1 /* a kernel thread's, counted apart (CNT_OFF_KTHREAD) */
#define OFFCPU_F_AT_START 2 /* off the CPU already when the capture started */

/* --off-cpu: a thread off the CPU since ts (CLOCK_MONOTONIC ns; 0: on
 * it), left as key says, woken by whom key says (--wakers). */
struct offcpu_start {
	__u64 ts;
	__u64 flags; /* OFFCPU_F_* */
	/* the start iterator is taking its stacks (a field of its own: a
	 * switch on another CPU writes flags meanwhile); woke: when it ran
	 * again while walked */
	__u32 walking;
	__u32 pad;
	__u64 woke;
	__u64 run_ns; /* its CPU time at ts (offcpu_untraced_end()) */
	struct sample_key key;
};

/* Ring buffer records; each starts with its type. */
enum sample_event_type {
	EV_PROC = 1, /* struct sample_proc_event */
	EV_STACK,    /* struct sample_stack_event */
	EV_SAMPLE,   /* struct sample_count_event */
	EV_TICK,     /* struct sample_tick_event */
	EV_MAPS,     /* struct sample_proc_event: its mappings changed since */
	EV_SPAN,     /* struct sample_span_event (span.h) */
	EV_HIT,	     /* struct sample_hit_event */
	EV_PYSTACK,  /* struct sample_stack_event of Python frames (python.h) */
	EV_LOOK,     /* struct sample_proc_event: it exec'd, no sample yet */
	EV_SAMPLED,  /* struct sample_proc_event: its first sample, after an EV_LOOK */
	EV_PYSTACKS, /* struct py_batch_event: EV_PYSTACK records sent together */
	EV_HELD,     /* struct sample_proc_event: the command, stopped at its exec */
};

/* The first sample of a process (again after it execs): user space
 * snapshots its mappings while it is alive. */
struct sample_proc_event {
	__u32 type;
	__u32 pid;
};

/* A stack the kernel had not sent yet (or not recently): stacks live in user
 * space, the kernel only remembers which ids it sent. Variable size: the
 * record ends after ip[nr - 1]. */
struct sample_stack_event {
	__u32 type;
	__u32 nr;
	__u64 id;
	__u64 ip[SAMPLE_MAX_DEPTH]; /* leaf first */
};

/* One sample that did not fit in the counts map. */
struct sample_count_event {
	__u32 type;
	__u32 pad;
	struct sample_key key;
	__u64 weight; /* what it counts for: 1, or a tracepoint's --weight */
};

/* Timeline outputs: when and where each sample was taken, or each block
 * off the CPU began and how long it lasted. Its stacks went ahead of it
 * through the same ring buffer. */
struct sample_tick_event {
	__u32 type;
	__u32 cpu;
	__u64 ts;     /* CLOCK_MONOTONIC ns */
	__u64 dur;    /* --off-cpu: a block, from ts; 0 for a sample (its period) */
	__u64 weight; /* what it counted for: the allocation's bytes (--alloc), a
		       * tracepoint's value (--weight), its period; 1 a sample */
	struct sample_key key;
};

/* Timeline outputs of -f usdt:...: a probe's hit, when and where, with
 * its first arguments. Its stacks went ahead of it. */
struct sample_hit_event {
	__u32 type;
	__u32 cpu;
	__u64 ts;
	__u64 args[3]; /* PROBE_HIT_NARGS */
	__u32 nargs;
	__u8 is_signed; /* bit i: argument i is signed */
	__u8 is_str;	/* bit i: str[i] holds what argument i points to */
	__u16 pad;
	struct sample_key key;
	char str[3][PROBE_STR_LEN]; /* NUL-terminated where is_str says */
};

#endif
