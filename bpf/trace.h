/* SPDX-License-Identifier: GPL-2.0 */
/* ABI shared by bpf/trace.bpf.c and the user-space tracer. */
#ifndef FLAMEBPF_TRACE_H
#define FLAMEBPF_TRACE_H

#include "sample.h"

#define TRACE_MAX_DEPTH 127 /* a call path fits a struct sample_stack_event */

enum trace_counter {
	TCNT_CALLS,	      /* calls completed and accounted */
	TCNT_FILTERED,	      /* calls of processes outside the pid filter */
	TCNT_UNFINISHED,      /* calls whose return never came (longjmp, exception, ...) */
	TCNT_UNMATCHED,	      /* returns without a matching entry */
	TCNT_TOO_DEEP,	      /* calls deeper than TRACE_MAX_DEPTH, not traced */
	TCNT_NO_STORAGE,      /* no per-thread shadow stack could be allocated */
	TCNT_PATHS_DROPPED,   /* a new call path found the ring buffer full */
	TCNT_SPILLED,	      /* counts map full: the call went through the ring buffer */
	TCNT_DROPPED,	      /* counts map and ring buffer full: call lost */
	TCNT_PIDS_FULL,	      /* a child of a traced process did not fit in the pid filter */
	TCNT_SEEN_FULL,	      /* the seen-processes map was full (named on demand) */
	TCNT_USTACK_ERR,      /* the user stack under a call could not be read */
	TCNT_RECORDS_DROPPED, /* ring buffer full: a timeline record of a call lost */
	TCNT_FORKS_LOST,      /* ring buffer full: a child not traced in libraries */
	TCNT_NOT_PLAIN,	      /* calls not traced: uretprobe-only, in a process not plain */
	TCNT_EXECS_LOST,      /* ring buffer full: an exec not told to user space */
	TCNT_SPLIT_LOST,      /* --cpu-split: calls whose split storage could not be made */
	TCNT_SPLIT_NO_OUT,    /* ... blocks lost: their thread's switch away was not traced */
	TCNT_SPLIT_UNTRACED,  /* ... blocks ended by an untraced switch: by the CPU time since */
	TCNT_THROWN,	      /* exceptions thrown or rethrown (libstdc++'s probes) */
	TCNT_CAUGHT,	      /* exceptions caught (libstdc++'s catch probe) */
	TCNT_CATCH_UNWOUND,   /* calls an exception left, ended at its catch */
	TCNT_PY_CODES,	      /* -f py: code objects whose name was matched */
	TCNT_PY_MATCHED,      /* ... that matched */
	TCNT_PY_UNREAD,	      /* ... whose name could not be read (not ASCII, too long) */
	TCNT_PY_NAMES_LOST,   /* ring buffer full: a matching code object left unnamed */
	TCNT_PY_UNWOUND,      /* Python calls an exception left, ended at the next event */
	TCNT_USTACK,	      /* --full-stack: enum ustack_counter from here */
	TCNT_NR = TCNT_USTACK + USTACK_NR,
};

/* In a probe's cookie, with the function id: its return is caught by a
 * uretprobe only because the process was judged plain (PID_PLAIN). */
#define TRACE_PLAIN_ONLY (1U << 31)
/* Of an entry or a return site: a Go function that has its goroutine in
 * r14 there. Its frame is placed by its distance from the top of the
 * goroutine's stack, which stays when the runtime copies the stack. */
#define TRACE_GO_G	(1U << 30)
#define TRACE_FUNC_MASK (TRACE_GO_G - 1)
/* In a return site's cookie, above the function id: how it returns (enum
 * site_kind of src/capture/ret_sites.h: 0 ret, 1 jmp, 2 + cc a jcc, 18 + reg a jmp
 * to a register) and, for the last, the function's size. */
#define TRACE_SITE_KIND_SHIFT 32
#define TRACE_SITE_SIZE_SHIFT 40
#define TRACE_SITE_SIZE_MAX   (1U << 24)
#define TRACE_SITE_JMP	      1
#define TRACE_SITE_JCC	      2
#define TRACE_SITE_JMP_REG    18

/* libstdc++'s exception probes (libstdcxx:throw, rethrow, catch) run
 * on_exception with this cookie: what the probe is and, for a catch, where
 * the stack pointer of the function that called the probe's function (its
 * CFA) is: the register (rsp, or rbp with TRACE_EXC_RBP) plus the signed
 * offset in the low 32 bits; and how many bytes into its function the probe
 * is (TRACE_EXC_INTO_NONE: not known). */
#define TRACE_EXC_KIND_SHIFT 48
#define TRACE_EXC_THROW	     1
#define TRACE_EXC_CATCH	     2
#define TRACE_EXC_RBP	     (1ULL << 56)
#define TRACE_EXC_INTO_SHIFT 32
#define TRACE_EXC_INTO_NONE  0xffffU

/* A call path is sent like a sampled stack (struct sample_stack_event, type
 * EV_STACK) with function ids in ip[], leaf first. Counts are keyed by
 * struct trace_key, small because it is hashed on every return; the names
 * of the thread go in the value when the entry is made. Calls that do not
 * fit in the map are sent as EV_CALL, with a struct sample_key (ustack =
 * the path id). */
struct trace_key {
	__u32 pid, tid;
	__u64 path;
};

/* --cpu-split: time off the CPU by the state the thread left in, in
 * off_ns[state - OFFCPU_SLEEPING] (enum offcpu_state of sample.h). */
#define TRACE_NSTATES (OFFCPU_NR - OFFCPU_SLEEPING)

struct trace_value {
	__u64 self_ns;
	__u64 calls;
	__u64 off_ns[TRACE_NSTATES]; /* --cpu-split: of self_ns, off the CPU */
	char comm[SAMPLE_COMM_LEN];
	char tcomm[SAMPLE_COMM_LEN];
};

#define EV_CALL 16

struct trace_call_event {
	__u32 type;
	__u32 pad;
	struct sample_key key;
	struct trace_value val;
};

/* --full-stack: the user stack under an outermost traced call (struct
 * sample_stack_event with this type), and which stack a call path grows
 * from (sent with the path). */
#define EV_USTACK    18
#define EV_PATH_ROOT 19

/* A traced process forked (COMMAND mode, when probes in shared libraries
 * are limited to single processes): user space attaches them for the child
 * too. Or it exec'd a program other than the one judged plain (PID_PLAIN):
 * user space judges the new one. Sent with a wakeup, so that the process
 * is traced soon. */
#define EV_FORK 20
#define EV_EXEC 21

struct trace_proc_event {
	__u32 type;
	__u32 pid;
	__u64 ts; /* CLOCK_MONOTONIC ns */
};

struct trace_path_root {
	__u32 type;
	__u32 pad;
	__u64 path;
	__u64 ustack; /* STACK_ID_NONE / STACK_ID_LOST or the stack's id */
};

/* One call, for timelines (sent only when user space asks: want_calls). */
#define EV_CALL_RECORD	17
#define CALL_UNFINISHED 1 /* no return was seen: dur ends where it was noticed */
#define TRACE_NARGS	3

struct trace_call_record {
	__u32 type;
	__u32 depth; /* 0 for an outermost traced call */
	__u32 pid, tid;
	__u64 start; /* CLOCK_MONOTONIC ns */
	__u64 dur;
	__u64 path;
	__u64 args[TRACE_NARGS]; /* the first integer arguments */
	__u64 ret;		 /* the return value */
	__u32 flags;
	__u32 cpu; /* where the call returned */
	/* --cpu-split only (the record ends before it otherwise): of dur,
	 * off the CPU, the calls it made included */
	__u64 off_ns[TRACE_NSTATES];
};

#endif
