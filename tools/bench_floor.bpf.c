// SPDX-License-Identifier: GPL-2.0
/* The floor of a traced call for tools/bench_trace.sh: programs that do
 * nothing, attached by tools/bench_floor.c the ways flamebpf attaches its
 * own (a classic uprobe and uretprobe pair, a uprobe_multi pair, a uprobe
 * session). What a call costs under them is what no tool can go below.
 * The others add, one at a time, what any tool that times calls per thread
 * needs (a read of the clock, the thread's own storage), so that the run
 * time of flamebpf's program can be read against them. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct thread_time {
	__u64 ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_time);
} thread_times SEC(".maps");

__u64 last_ns; /* written, so that the clock read is not left out */

SEC("kprobe")
int empty(struct pt_regs *ctx)
{
	return 0;
}

SEC("kprobe")
int clock(struct pt_regs *ctx)
{
	last_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("kprobe")
int clock_storage(struct pt_regs *ctx)
{
	struct thread_time *t = bpf_task_storage_get(&thread_times, bpf_get_current_task_btf(),
						     NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (t)
		t->ns = bpf_ktime_get_ns();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
