/* SPDX-License-Identifier: GPL-2.0 */
/* ABI shared by bpf/sample.bpf.c and the user-space sampler. */
#ifndef FLAMEBPF_SAMPLE_H
#define FLAMEBPF_SAMPLE_H

#define SAMPLE_MAX_DEPTH 127 /* perf's default kernel.perf_event_max_stack */
#define SAMPLE_COMM_LEN	 16

/* Reserved stack ids: real ids are content hashes >= STACK_ID_FIRST. */
#define STACK_ID_NONE  0 /* no stack taken (or an empty one) */
#define STACK_ID_LOST  1 /* taken, but the stack map was full or the hash collided */
#define STACK_ID_FIRST 2

enum sample_counter {
	CNT_SAMPLES,	   /* samples counted in the counts map */
	CNT_FILTERED,	   /* samples of processes outside the pid filter */
	CNT_USTACK_ERR,	   /* bpf_get_stack() failed for the user stack */
	CNT_KSTACK_ERR,	   /* bpf_get_stack() failed for the kernel stack */
	CNT_STACKS_FULL,   /* a new stack did not fit in the stacks map */
	CNT_STACK_COLLIDE, /* two different stacks hashed alike (the newer is lost) */
	CNT_COUNTS_FULL,   /* a sample did not fit in the counts map: lost */
	CNT_EVENTS_LOST,   /* ring buffer full: a process event was lost */
	CNT_SEEN_FULL,	   /* the seen-processes map was full */
	CNT_PIDS_FULL,	   /* a child of a traced process did not fit in the pid filter */
	CNT_NR,
};

struct sample_key {
	__u32 pid; /* tgid */
	__u32 tid;
	__u64 ustack;
	__u64 kstack;
	char comm[SAMPLE_COMM_LEN];  /* the process (thread-group leader) name */
	char tcomm[SAMPLE_COMM_LEN]; /* the thread name */
};

struct sample_stack {
	__u32 nr;
	__u32 pad;
	__u64 ip[SAMPLE_MAX_DEPTH];
};

/* Sent on the first sample of a process (again after it execs): user space
 * snapshots its mappings while it is alive. */
struct sample_proc_event {
	__u32 pid;
};

#endif
