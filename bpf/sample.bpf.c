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
#include "offcpu.bpf.h"

const volatile bool filter_pids = false;
const volatile bool want_user = true;
const volatile bool want_kernel = true;
const volatile bool timeline = false;
const volatile bool offcpu = false;
const volatile bool want_wakers = false;
const volatile bool want_kthreads = false;
const volatile __u64 min_block_ns = 0; /* 0: no bound */
const volatile __u64 max_block_ns = 0;

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

static __always_inline void send_tick(const struct sample_key *key, __u64 ts, __u64 dur)
{
	struct sample_tick_event ev = {
		.type = EV_TICK,
		.cpu = bpf_get_smp_processor_id(),
		.ts = ts,
		.dur = dur,
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
		send_tick(&key, bpf_ktime_get_ns(), 0);
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

/* PF_KTHREAD (include/linux/sched.h): a kernel thread. A user thread that
 * exits has no mm either, and is not one. */
#define PF_KTHREAD_FLAG 0x00200000

/* The kernel stack at the switch starts with this program and the
 * tracepoint's caller (bpf_trace_run4): the thread's own starts at
 * __schedule. */
#define OFFCPU_SKIP_FRAMES 2

/* --off-cpu: where and how each thread left the CPU, until it is back. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* tid */
	__type(value, struct offcpu_start);
	__uint(max_entries, 1);
} offcpu_starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* the tid woken */
	__type(value, struct offcpu_waker);
	__uint(max_entries, 1);
} wakers SEC(".maps");

/* Adds ns to the key's blocked time; a full map loses it, counted. */
static __always_inline void add_blocked(const struct sample_key *key, __u64 ns)
{
	__u64 *val = bpf_map_lookup_elem(&counts, key);
	long err;

	if (val) {
		__sync_fetch_and_add(val, ns);
	} else {
		err = bpf_map_update_elem(&counts, key, &ns, BPF_NOEXIST);
		if (err == -EEXIST && (val = bpf_map_lookup_elem(&counts, key)))
			__sync_fetch_and_add(val, ns);
		else if (err) {
			count(CNT_OFF_DROPPED);
			return;
		}
	}
	count(CNT_OFF_BLOCKS);
}

/* The waker of tid, if one was seen since it left the CPU, into key. */
static __always_inline void take_waker(struct sample_key *key, __u32 tid)
{
	struct offcpu_waker *w = bpf_map_lookup_elem(&wakers, &tid);

	if (!w)
		return;
	key->wpid = w->pid;
	key->wtid = w->tid;
	key->wustack = w->ustack;
	key->wkstack = w->kstack;
	__builtin_memcpy(key->wcomm, w->comm, sizeof(key->wcomm));
	bpf_map_delete_elem(&wakers, &tid);
}

static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	__u32 tid = next->pid;
	struct offcpu_start *s = bpf_map_lookup_elem(&offcpu_starts, &tid);
	struct sample_key key;
	__u64 ts, kthread;

	if (!s)
		return;
	key = s->key;
	ts = s->ts;
	kthread = s->kthread;
	bpf_map_delete_elem(&offcpu_starts, &tid);
	if (kthread) {
		count(CNT_OFF_KTHREAD);
		count_by(CNT_OFF_KTHREAD_NS, now > ts ? now - ts : 0);
		return;
	}
	if (want_wakers)
		take_waker(&key, tid);
	if (now <= ts)
		return;
	if (now - ts < min_block_ns) {
		count(CNT_OFF_SHORT);
		count_by(CNT_OFF_SHORT_NS, now - ts);
	} else if (max_block_ns && now - ts > max_block_ns) {
		count(CNT_OFF_LONG);
		count_by(CNT_OFF_LONG_NS, now - ts);
	} else {
		add_blocked(&key, now - ts);
		if (timeline)
			send_tick(&key, ts, now - ts);
	}
}

/* The stacks are taken here, where the thread leaving is still current. */
static __always_inline void switch_out(void *ctx, bool preempt, struct task_struct *prev,
				       unsigned int prev_state, __u64 now)
{
	struct offcpu_start s = { .ts = now };
	__u32 tid = prev->pid;

	s.key.pid = prev->tgid;
	s.key.tid = tid;
	if (!s.key.pid || (prev_state & OFFCPU_TASK_DEAD))
		return; /* the idle task, or a thread's last switch (TASK_DEAD) */
	if (filter_pids && !bpf_map_lookup_elem(&pids, &s.key.pid)) {
		count(CNT_FILTERED);
		return;
	}
	s.key.state = offcpu_state(preempt, prev_state);
	/* kernel threads wait for work most of the time: apart, unless asked */
	if ((prev->flags & PF_KTHREAD_FLAG) && !want_kthreads) {
		s.kthread = 1;
		if (bpf_map_update_elem(&offcpu_starts, &tid, &s, BPF_ANY))
			count(CNT_OFF_DROPPED);
		return;
	}
	if (want_user)
		s.key.ustack = user_stack(ctx, s.key.pid, prev, EV_STACK, CNT_USTACK,
					  CNT_USTACK_ERR, CNT_STACKS_DROPPED, CNT_EVENTS_LOST);
	if (want_kernel)
		s.key.kstack = take_stack(ctx, OFFCPU_SKIP_FRAMES, EV_STACK, CNT_KSTACK_ERR,
					  CNT_STACKS_DROPPED);
	BPF_CORE_READ_STR_INTO(&s.key.comm, prev, group_leader, comm);
	bpf_probe_read_kernel_str(&s.key.tcomm, sizeof(s.key.tcomm), prev->comm);
	note_process(s.key.pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);
	if (bpf_map_update_elem(&offcpu_starts, &tid, &s, BPF_ANY))
		count(CNT_OFF_DROPPED);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();

	switch_in(next, now);
	switch_out(ctx, preempt, prev, prev_state, now);
	return 0;
}

/* --wakers: a thread of the targets, off the CPU, is woken; the current
 * task woke it (or an interrupt did, in whatever task it came). Its stacks,
 * taken here, are kept until the woken thread runs. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid();
	struct offcpu_waker w = { .pid = id >> 32, .tid = (__u32)id };
	__u32 tid = p->pid;

	if (!bpf_map_lookup_elem(&offcpu_starts, &tid))
		return 0;
	if (want_user && w.pid)
		w.ustack = user_stack(ctx, w.pid, task, EV_STACK, CNT_USTACK, CNT_USTACK_ERR,
				      CNT_STACKS_DROPPED, CNT_EVENTS_LOST);
	if (want_kernel)
		w.kstack = take_stack(ctx, OFFCPU_SKIP_FRAMES, EV_STACK, CNT_KSTACK_ERR,
				      CNT_STACKS_DROPPED);
	bpf_get_current_comm(&w.comm, sizeof(w.comm));
	if (w.pid)
		note_process(w.pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);
	if (bpf_map_update_elem(&wakers, &tid, &w, BPF_ANY))
		count(CNT_OFF_DROPPED);
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
