/* SPDX-License-Identifier: GPL-2.0 */
/* How a thread left the CPU, as both sched_switch programs tell it: the
 * sampler's --off-cpu and the tracer's --cpu-split. */
#ifndef FLAMEBPF_OFFCPU_BPF_H
#define FLAMEBPF_OFFCPU_BPF_H

#include "sample.h"

/* TASK_DEAD (include/linux/sched.h): a thread's last switch, as it exits. */
#define OFFCPU_TASK_DEAD 0x80

/* The state the thread left in: preempted, or why it stopped running. */
static __always_inline __u32 offcpu_state(bool preempt, unsigned int prev_state)
{
	if (preempt || !(prev_state & 0xff))
		return OFFCPU_PREEMPTED;
	if (prev_state & 1) /* TASK_INTERRUPTIBLE */
		return OFFCPU_SLEEPING;
	if (prev_state & 2) /* TASK_UNINTERRUPTIBLE */
		return OFFCPU_DISK;
	return OFFCPU_OTHER;
}

/* A thread off the CPU since ts, when its CPU time was run_ns, leaves it
 * again now: it came back through a switch that sched_switch never saw
 * (seen: the kernel does not trace switches away from some threads, so
 * the one that follows goes untraced). Its switches away are traced, so it
 * has run without a break since it came back, for the CPU time it gained:
 * its block ended that long before now. */
static __always_inline __u64 offcpu_untraced_end(__u64 ts, __u64 run_ns, struct task_struct *task,
						 __u64 now)
{
	__u64 ran = task->se.sum_exec_runtime - run_ns;

	return now > ts && ran < now - ts ? now - ran : ts;
}

#endif
