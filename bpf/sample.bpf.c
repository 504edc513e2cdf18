// SPDX-License-Identifier: GPL-2.0
/* CPU sampler: runs on every cpu-clock tick, counts (process, thread, user
 * stack, kernel stack) in the kernel. Stacks are de-duplicated by content
 * hash rather than bpf_get_stackid(), whose bucket collisions drop stacks. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "sample.h"

#define NR_COUNTERS CNT_NR
#include "common.bpf.h"
#include "unwind.bpf.h"

const volatile bool filter_pids = false;
const volatile bool want_user = true;
const volatile bool want_kernel = true;
const volatile bool timeline = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct sample_key);
	__type(value, __u64);
	__uint(max_entries, 1);
} counts SEC(".maps");

/* The counts map is full: hand the sample to user space instead. */
static __always_inline int spill_sample(const struct sample_key *key)
{
	struct sample_count_event ev = { .type = EV_SAMPLE, .key = *key };

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_NO_WAKEUP)) {
		count(CNT_SAMPLES_DROPPED);
		return 0;
	}
	count(CNT_SAMPLES_SPILLED);
	count(CNT_SAMPLES);
	return 0;
}

static __always_inline void send_tick(const struct sample_key *key)
{
	struct sample_tick_event ev = {
		.type = EV_TICK,
		.cpu = bpf_get_smp_processor_id(),
		.ts = bpf_ktime_get_ns(),
		.key = *key,
	};

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_NO_WAKEUP))
		count(CNT_TICKS_DROPPED);
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task = bpf_get_current_task_btf();
	struct sample_key key = { .pid = id >> 32, .tid = (__u32)id };
	__u64 one = 1, *val;
	long err;

	if (filter_pids && !bpf_map_lookup_elem(&pids, &key.pid)) {
		count(CNT_FILTERED);
		return 0;
	}
	if (want_user && key.pid)
		key.ustack = user_stack(ctx, key.pid, task, EV_STACK, CNT_USTACK, CNT_USTACK_ERR,
					CNT_STACKS_DROPPED, CNT_EVENTS_LOST);
	if (want_kernel)
		key.kstack = take_stack(ctx, 0, EV_STACK, CNT_KSTACK_ERR, CNT_STACKS_DROPPED);
	BPF_CORE_READ_STR_INTO(&key.comm, task, group_leader, comm);
	bpf_get_current_comm(&key.tcomm, sizeof(key.tcomm));
	if (key.pid)
		note_process(key.pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);

	if (timeline)
		send_tick(&key);
	val = bpf_map_lookup_elem(&counts, &key);
	if (val) {
		__sync_fetch_and_add(val, 1);
	} else {
		err = bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST);
		/* another CPU inserted the same key first */
		if (err == -EEXIST && (val = bpf_map_lookup_elem(&counts, &key)))
			__sync_fetch_and_add(val, 1);
		else if (err)
			return spill_sample(&key);
	}
	count(CNT_SAMPLES);
	return 0;
}

/* Children of a traced process are traced too (COMMAND mode). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	if (!follow_fork(parent, child))
		count(CNT_PIDS_FULL);
	return 0;
}

/* A new image needs a new snapshot of its mappings and new tables. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 pid = BPF_CORE_READ(p, tgid);

	forget_process(pid);
	/* a look at its maps now, while it runs ld.so: a process that lives a
	 * few milliseconds is gone before its first sample would be read */
	if (want_user && (!filter_pids || bpf_map_lookup_elem(&pids, &pid)))
		note_process(pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);
	return 0;
}

/* Keeps the seen map small in a storm of short-lived processes, and makes a
 * reused pid look new. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 pid = BPF_CORE_READ(p, tgid);

	if (BPF_CORE_READ(p, pid) == pid)
		forget_process(pid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
