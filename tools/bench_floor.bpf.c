// SPDX-License-Identifier: GPL-2.0
/* The floor of a traced call for tools/bench_trace.sh: programs that do
 * nothing, attached by tools/bench_floor.c the ways flamebpf attaches its
 * own (a classic uprobe and uretprobe pair, a uprobe_multi pair, a uprobe
 * session). What a call costs under them is what no tool can go below.
 * The others add, one at a time, what any tool that times calls per thread
 * needs (a read of the clock, the thread's own storage), so that the run
 * time of flamebpf's program can be read against them.
 *
 * The sample_* programs are the same for a sample (tools/bench_python.sh):
 * what the least walk of a sampled thread's frames must do, one piece at a
 * time, so that the cost of flamebpf's walk at a rate can be read against
 * what that rate leaves cold. */
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

/* What a sample of a known process finds of it: user space puts the
 * command's pid in, as flamebpf puts a Python process's layout. */
struct proc_info {
	__u64 words[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct proc_info);
	__uint(max_entries, 4096);
} procs SEC(".maps");

/* Where user memory is read to, per CPU, as a thread state or frames are. */
struct window {
	__u8 b[256];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct window);
	__uint(max_entries, 1);
} windows SEC(".maps");

__u64 last_word;

SEC("perf_event")
int sample_empty(struct bpf_perf_event_data *ctx)
{
	return 0;
}

/* One lookup of the process's entry, one word of it read. */
SEC("perf_event")
int sample_lookup(struct bpf_perf_event_data *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct proc_info *p = bpf_map_lookup_elem(&procs, &pid);

	if (p)
		last_word = p->words[0];
	return 0;
}

/* The first 256 bytes of the user stack read into this CPU's window, as a
 * thread state is read. */
SEC("perf_event")
int sample_read(struct bpf_perf_event_data *ctx)
{
	__u32 zero = 0;
	struct window *w = bpf_map_lookup_elem(&windows, &zero);

	if (w && !bpf_probe_read_user(w->b, sizeof(w->b), (void *)ctx->regs.sp))
		last_word = w->b[0];
	return 0;
}

/* Both. */
SEC("perf_event")
int sample_lookup_read(struct bpf_perf_event_data *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32, zero = 0;
	struct proc_info *p = bpf_map_lookup_elem(&procs, &pid);
	struct window *w = bpf_map_lookup_elem(&windows, &zero);

	if (p && w && !bpf_probe_read_user(w->b, sizeof(w->b), (void *)ctx->regs.sp))
		last_word = w->b[0] + p->words[0];
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
