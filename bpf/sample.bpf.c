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
#include "python.bpf.h"
#include "offcpu.bpf.h"

const volatile bool filter_pids = false;
const volatile bool want_user = true;
const volatile bool want_kernel = true;
const volatile bool timeline = false;
const volatile bool offcpu = false;
const volatile bool weigh_period = false; /* -e page-faults -F FREQ */
const volatile bool multi_event = false;  /* several -e: the link's cookie says which */
const volatile bool want_wakers = false;
const volatile bool want_kthreads = false;
const volatile bool want_python = false; /* walk the frames of py_procs' processes */
const volatile __u64 min_block_ns = 0;	 /* 0: no bound */
const volatile __u64 max_block_ns = 0;

struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct sample_key);
	__type(value, __u64);
	__uint(max_entries, 1);
} counts SEC(".maps");

/* The counts map samples are added to: counts, or, every other interval of
 * --continuous, a twin user space made. User space swaps them here; the kernel waits for
 * every running program before an update of a map of maps returns
 * (maybe_wait_bpf_programs), so once the swap returns no sample can land in
 * the map let go, and user space reads and empties it alone: no sample is
 * lost or counted twice, which a lookup-and-delete per key cannot promise
 * (an add between the program's lookup and its atomic add would go to a
 * deleted element). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct counts_map);
} counts_now SEC(".maps") = { .values = { &counts } };

/* The counts map is full: hand the sample to user space instead. */
static __always_inline int spill_sample(const struct sample_key *key, __u64 weight)
{
	struct sample_count_event ev = { .type = EV_SAMPLE, .key = *key, .weight = weight };

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_NO_WAKEUP)) {
		count(CNT_SAMPLES_DROPPED);
		return 0;
	}
	count(CNT_SAMPLES_SPILLED);
	count(CNT_SAMPLES);
	return 0;
}

static __always_inline void send_tick(const struct sample_key *key, __u64 ts, __u64 dur,
				      __u64 weight)
{
	struct sample_tick_event ev = {
		.type = EV_TICK,
		.cpu = bpf_get_smp_processor_id(),
		.ts = ts,
		.dur = dur,
		.weight = weight,
		.key = *key,
	};

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_NO_WAKEUP))
		count(CNT_TICKS_DROPPED);
}

/* Adds weight to key's count: in the counts map, or, full, through the
 * ring buffer. */
static __always_inline int add_count(const struct sample_key *key, __u64 weight)
{
	__u32 zero = 0;
	void *m = bpf_map_lookup_elem(&counts_now, &zero);
	__u64 *val;
	long err;

	if (!m)
		return spill_sample(key, weight);
	val = bpf_map_lookup_elem(m, key);
	if (val) {
		__sync_fetch_and_add(val, weight);
	} else {
		err = bpf_map_update_elem(m, key, &weight, BPF_NOEXIST);
		/* another CPU inserted the same key first */
		if (err == -EEXIST && (val = bpf_map_lookup_elem(m, key)))
			__sync_fetch_and_add(val, weight);
		else if (err)
			return spill_sample(key, weight);
	}
	count(CNT_SAMPLES);
	return 0;
}

#include "span.bpf.h"

/* -f usdt:... with a timeline output: each site's first arguments. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct probe_args);
	__uint(max_entries, 1); /* sized by user space: a site per cookie */
} usdt_args SEC(".maps");

/* A hit of site as an event of the timeline, with its arguments. */
static __always_inline void send_hit(struct pt_regs *ctx, const struct sample_key *key, __u32 site)
{
	const struct probe_args *pa = bpf_map_lookup_elem(&usdt_args, &site);
	struct sample_hit_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);

	if (!ev) {
		count(CNT_TICKS_DROPPED);
		return;
	}
	ev->type = EV_HIT;
	ev->cpu = bpf_get_smp_processor_id();
	ev->ts = bpf_ktime_get_ns();
	ev->nargs = pa ? pa->n : 0;
	ev->is_signed = ev->is_str = 0;
	ev->pad = 0;
	for (int i = 0; i < PROBE_HIT_NARGS; i++) {
		ev->args[i] = pa && i < (int)pa->n ? probe_arg_fetch(ctx, &pa->a[i]) : 0;
		ev->str[i][0] = 0;
		if (!pa || i >= (int)pa->n)
			continue;
		if (pa->a[i].is_signed)
			ev->is_signed |= 1 << i;
		else if (probe_arg_str(&pa->a[i], ev->args[i], ev->str[i]))
			ev->is_str |= 1 << i;
	}
	ev->key = *key;
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
}

/* The current task's stacks, counted weight times more (a sample: once;
 * a tracepoint's hit: once, or by a value of it), as the probe or event
 * what (sample_key.probe); scan: an Erlang node's frames walked too
 * (user_stack_by). */
static __always_inline int count_stack_by(void *ctx, __u64 weight, __u32 what, bool probe,
					  const bool scan)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task = bpf_get_current_task_btf();
	struct sample_key key = { .pid = id >> 32, .tid = (__u32)id, .probe = what };

	if (filter_pids && !pid_traced(key.pid, task)) {
		count(CNT_FILTERED);
		return 0;
	}
	/* a probe's hit in user code: its kernel stack is the trap's. First:
	 * after the user stack's many ways out, the verifier would check it
	 * once for each */
	if (want_kernel && !probe)
		key.kstack = take_stack(ctx, 0, EV_STACK, CNT_KSTACK_ERR, CNT_STACKS_DROPPED);
	if (want_user && key.pid)
		key.ustack = user_stack_by(ctx, key.pid, task, EV_STACK, CNT_USTACK, CNT_USTACK_ERR,
					   CNT_STACKS_DROPPED, CNT_EVENTS_LOST, scan);
	if (want_python && want_user && key.pid)
		key.pystack = python_stack(key.pid, key.tid, CNT_STACKS_DROPPED, &key.pyinstr);
	BPF_CORE_READ_STR_INTO(&key.comm, task, group_leader, comm);
	bpf_get_current_comm(&key.tcomm, sizeof(key.tcomm));
	if (key.pid)
		note_process(key.pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);

	key.span = span_current(task);
	if (timeline && probe)
		send_hit(ctx, &key, what);
	else if (timeline)
		send_tick(&key, bpf_ktime_get_ns(), 0, weight);
	return add_count(&key, weight);
}

static __always_inline int count_stack(void *ctx, __u64 weight, __u32 what, bool probe)
{
	return count_stack_by(ctx, weight, what, probe, false);
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	/* a counted event at a frequency: the kernel changes the period as it
	 * goes, each sample stands for its own */
	return count_stack_by(ctx, weigh_period ? ctx->sample_period : 1,
			      multi_event ? (__u32)bpf_get_attach_cookie(ctx) : 0, false, true);
}

/* -f usdt:...: a USDT probe's hit, its number in the link's cookie (from
 * 1). Loaded for uprobe_multi links, bpf_get_attach_cookie() reads the
 * link's cookie of the probe hit; loaded without (classic uprobes), the
 * perf event's: the expected attach type chooses the helper. */
SEC("kprobe")
int on_usdt(struct pt_regs *ctx)
{
	return count_stack(ctx, 1, (__u32)bpf_get_attach_cookie(ctx), true);
}

/* -e tracepoint:...: a raw tracepoint, attached by name (no tracefs); the
 * system calls' are sys_enter (regs, id) and sys_exit (regs, ret). */
const volatile __s32 tp_nr = -1; /* sys_enter/sys_exit: the call counted; -1: every hit */
const volatile bool tp_exit = false;
const volatile __s32 tp_weight = -1; /* enum tp_weight of tracepoint_spec.h */

static __always_inline __u64 syscall_arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0:
		return BPF_CORE_READ(regs, di);
	case 1:
		return BPF_CORE_READ(regs, si);
	case 2:
		return BPF_CORE_READ(regs, dx);
	case 3:
		return BPF_CORE_READ(regs, r10);
	case 4:
		return BPF_CORE_READ(regs, r8);
	default:
		return BPF_CORE_READ(regs, r9);
	}
}

SEC("raw_tp")
int on_tracepoint(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u64 weight = 1;
	long ret;

	if (tp_nr >= 0) {
		__s64 nr = tp_exit ? BPF_CORE_READ(regs, orig_ax) : (__s64)ctx->args[1];

		if (nr != tp_nr)
			return 0;
	}
	if (tp_weight == 6) { /* TP_WEIGHT_RET: bytes read, written, ... */
		ret = (long)ctx->args[1];
		weight = ret > 0 ? ret : 0;
	} else if (tp_weight >= 0) {
		weight = syscall_arg(regs, tp_weight);
	}
	return weight ? count_stack(ctx, weight, 0, false) : 0;
}

/* --weight FIELD at another tracepoint: a classic tracepoint program, its
 * context the event's record as tracefs's format file lays it out (its
 * first 8 bytes, the header, overwritten with a pointer to the registers). */
const volatile __u32 tp_field_offset = 8;
const volatile __u32 tp_field_size = 8;
const volatile bool tp_field_signed = false;

/* The field's value; a negative one weighs nothing, as an error's return. */
static __always_inline __u64 field_value(void *ctx)
{
	const void *at = (const char *)ctx + tp_field_offset;
	union {
		__u8 u8;
		__u16 u16;
		__u32 u32;
		__u64 u64;
	} v = {};
	__u32 size = tp_field_size;
	__s64 value;

	if (size > sizeof(v) || bpf_probe_read_kernel(&v, size, at))
		return 0;
	switch (size) {
	case 1:
		value = tp_field_signed ? (__s8)v.u8 : v.u8;
		break;
	case 2:
		value = tp_field_signed ? (__s16)v.u16 : v.u16;
		break;
	case 4:
		value = tp_field_signed ? (__s32)v.u32 : v.u32;
		break;
	default:
		return tp_field_signed && (__s64)v.u64 < 0 ? 0 : v.u64;
	}
	return value > 0 ? value : 0;
}

SEC("tracepoint")
int on_tracepoint_field(void *ctx)
{
	__u64 weight = field_value(ctx);

	return weight ? count_stack(ctx, weight, 0, false) : 0;
}

/* PF_KTHREAD (include/linux/sched.h): a kernel thread. A user thread that
 * exits has no mm either, and is not one. */
#define PF_KTHREAD_FLAG 0x00200000

/* The kernel stacks of sched_switch and sched_waking are taken whole:
 * user space leaves out their first frames, this program's and the
 * tracepoint's, which are more or fewer with the kernel and the JIT. */
#define OFFCPU_SKIP_FRAMES 0

/* --off-cpu: where and how each thread left the CPU, until it is back (ts
 * 0: on it). Task storage, not a hash by tid: no bucket lock, nothing to
 * delete, and the kernel frees it with the thread. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_start);
} offcpu_starts SEC(".maps");

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

/* A block from ts to now ends: counted as key and flags (OFFCPU_F_*) say. */
static __always_inline void end_block(const struct sample_key *key, __u64 flags, __u64 ts,
				      __u64 now)
{
	if (flags & OFFCPU_F_KTHREAD) {
		count(CNT_OFF_KTHREAD);
		count_by(CNT_OFF_KTHREAD_NS, now > ts ? now - ts : 0);
		return;
	}
	if (now <= ts)
		return;
	if (now - ts < min_block_ns) {
		count(CNT_OFF_SHORT);
		count_by(CNT_OFF_SHORT_NS, now - ts);
		return;
	}
	if (max_block_ns && now - ts > max_block_ns) {
		count(CNT_OFF_LONG);
		count_by(CNT_OFF_LONG_NS, now - ts);
		return;
	}
	add_blocked(key, now - ts);
	if (timeline)
		send_tick(key, ts, now - ts, 0);
}

static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	struct offcpu_start *s = bpf_task_storage_get(&offcpu_starts, next, 0, 0);
	struct sample_key key;
	__u64 ts;

	if (!s)
		return;
	ts = s->ts;
	if (!ts) {
		/* the start iterator found it blocked and is still walking it:
		 * that block ends now, and the iterator ends it */
		if (s->walking)
			s->woke = now;
		else
			count(CNT_OFF_NO_START);
		return;
	}
	s->ts = 0;
	key = s->key; /* a wake-up may write it while this counts */
	end_block(&key, s->flags, ts, now);
}

/* A thread leaves the CPU with a block still open: it came back untraced. */
static __always_inline void end_untraced(struct offcpu_start *s, struct task_struct *task,
					 __u64 now)
{
	struct sample_key key = s->key;

	count(CNT_OFF_UNTRACED);
	end_block(&key, s->flags, s->ts, offcpu_untraced_end(s->ts, s->run_ns, task, now));
}

/* The stacks are taken here, where the thread leaving is still current,
 * into its storage (the key's waker fields stay zero until a wake-up). */
static __always_inline void switch_out(void *ctx, bool preempt, struct task_struct *prev,
				       unsigned int prev_state, __u64 now)
{
	struct offcpu_start *s;
	__u32 pid = prev->tgid;

	if (!pid || (prev_state & OFFCPU_TASK_DEAD))
		return; /* the idle task, or a thread's last switch (TASK_DEAD) */
	if (filter_pids && !pid_traced(pid, prev)) {
		count(CNT_FILTERED);
		return;
	}
	s = bpf_task_storage_get(&offcpu_starts, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		count(CNT_OFF_NO_STORAGE);
		return;
	}
	if (s->ts)
		end_untraced(s, prev, now);
	s->ts = now;
	s->run_ns = prev->se.sum_exec_runtime;
	/* kernel threads wait for work most of the time: apart, unless asked */
	if ((prev->flags & PF_KTHREAD_FLAG) && !want_kthreads) {
		s->flags = OFFCPU_F_KTHREAD;
		return;
	}
	s->flags = 0;
	s->key = (struct sample_key){ .pid = pid, .tid = prev->pid };
	s->key.state = offcpu_state(preempt, prev_state);
	s->key.span = span_current(prev);
	if (want_user)
		s->key.ustack = user_stack(ctx, pid, prev, EV_STACK, CNT_USTACK, CNT_USTACK_ERR,
					   CNT_STACKS_DROPPED, CNT_EVENTS_LOST);
	/* prev is still the current task: its Python frames read as a sample's */
	if (want_python && want_user)
		s->key.pystack = python_stack(pid, prev->pid, CNT_STACKS_DROPPED, &s->key.pyinstr);
	if (want_kernel)
		s->key.kstack = take_stack(ctx, OFFCPU_SKIP_FRAMES, EV_STACK, CNT_KSTACK_ERR,
					   CNT_STACKS_DROPPED);
	BPF_CORE_READ_STR_INTO(&s->key.comm, prev, group_leader, comm);
	bpf_probe_read_kernel_str(&s->key.tcomm, sizeof(s->key.tcomm), prev->comm);
	note_process(pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);
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
 * task woke it (or an interrupt did, in whatever task it came). At
 * sched_waking, not sched_wakeup: a wake-up handed to an idle CPU ends
 * there, in the idle task, where sched_wakeup fires. Its stacks,
 * taken here, go into the woken thread's key, counted when it runs. */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	struct offcpu_start *s = bpf_task_storage_get(&offcpu_starts, p, 0, 0);
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;

	if (!s || !s->ts || (s->flags & OFFCPU_F_KTHREAD))
		return 0;
	s->key.wpid = pid;
	s->key.wtid = (__u32)id;
	s->key.wustack = s->key.wkstack = 0;
	if (want_user && pid)
		s->key.wustack = user_stack(ctx, pid, task, EV_STACK, CNT_USTACK, CNT_USTACK_ERR,
					    CNT_STACKS_DROPPED, CNT_EVENTS_LOST);
	if (want_kernel)
		s->key.wkstack = take_stack(ctx, OFFCPU_SKIP_FRAMES, EV_STACK, CNT_KSTACK_ERR,
					    CNT_STACKS_DROPPED);
	bpf_get_current_comm(&s->key.wcomm, sizeof(s->key.wcomm));
	if (pid)
		note_process(pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);
	return 0;
}

/* Threads already off the CPU when the capture starts: this task iterator
 * runs once, right after on_switch is attached, and starts their blocks at
 * capture_start_ns. Their stacks are not the current task's: the kernel's
 * comes from bpf_get_task_stack(), the user one is unwound from the
 * registers saved when the thread entered the kernel, read with
 * bpf_copy_from_user_task(), which may sleep: hence a sleepable iterator. */
__u64 capture_start_ns; /* set by user space before the iterator runs */

/* Its own buffer: a per-CPU one could be taken by on_switch while this
 * program sleeps. Only user space's one read runs the iterator. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct sample_stack_event);
	__uint(max_entries, 1);
} iter_scratch SEC(".maps");

/* A thread off the CPU now, and not on its way off it (on_cpu: it set its
 * state and has yet to call schedule(); on_switch will see it leave). */
static __always_inline bool blocked_now(struct task_struct *task, unsigned int state)
{
	return (state & 0xff) && !(state & OFFCPU_TASK_DEAD) && !task->on_cpu && !task->exit_state;
}

static __always_inline __u64 task_kernel_stack(struct task_struct *task,
					       struct sample_stack_event *st)
{
	return taken_stack(st, bpf_get_task_stack(task, st->ip, sizeof(st->ip), 0), EV_STACK,
			   CNT_KSTACK_ERR, CNT_STACKS_DROPPED);
}

SEC("iter.s/task")
int offcpu_at_start(struct bpf_iter__task *ctx)
{
	struct offcpu_start b = { .ts = capture_start_ns, .flags = OFFCPU_F_AT_START };
	struct task_struct *task = ctx->task;
	struct sample_stack_event *st;
	struct offcpu_start *s;
	unsigned int state;
	__u32 zero = 0;

	if (!task)
		return 0;
	state = task->__state;
	b.key.pid = task->tgid;
	b.key.tid = task->pid;
	if (!b.key.pid || !blocked_now(task, state))
		return 0;
	if (filter_pids && !pid_traced(b.key.pid, task))
		return 0;
	/* a switch since the attach has the truth: keep its start, unwalked */
	s = bpf_task_storage_get(&offcpu_starts, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s || s->ts)
		return 0;
	s->woke = 0;
	s->walking = 1;
	b.key.state = offcpu_state(false, state);
	st = bpf_map_lookup_elem(&iter_scratch, &zero);
	if (!st)
		return 0;
	if ((task->flags & PF_KTHREAD_FLAG) && !want_kthreads) {
		b.flags |= OFFCPU_F_KTHREAD;
	} else {
		if (want_user)
			b.key.ustack = task_user_stack(task, b.key.pid, st, CNT_USTACK,
						       CNT_STACKS_DROPPED);
		if (want_kernel)
			b.key.kstack = task_kernel_stack(task, st);
		b.key.span = span_current(task);
		BPF_CORE_READ_STR_INTO(&b.key.comm, task, group_leader, comm);
		bpf_probe_read_kernel_str(&b.key.tcomm, sizeof(b.key.tcomm), task->comm);
		note_process(b.key.pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);
	}
	/* it may have run, and left again, while this walked: its block
	 * ended then (killed in its sleep, it never leaves again) */
	if (!s->woke && !s->ts) {
		s->key = b.key;
		s->flags = b.flags;
		s->run_ns = task->se.sum_exec_runtime;
		s->ts = b.ts;
	}
	/* a run seen after the store ends the block as one before it */
	s->walking = 0;
	if (s->woke) {
		if (s->ts == b.ts)
			s->ts = 0;
		end_block(&b.key, b.flags, b.ts, s->woke);
		s->woke = 0;
	}
	return 0;
}

/* Threads still off the CPU at the stop: their blocks, written for user
 * space to read (task storage cannot be walked from there). */
SEC("iter/task")
int offcpu_at_stop(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct offcpu_start *s;

	if (!task)
		return 0;
	s = bpf_task_storage_get(&offcpu_starts, task, 0, 0);
	if (!s || !s->ts)
		return 0;
	/* it has run since: it came back untraced, its block is over */
	if (task->se.sum_exec_runtime != s->run_ns) {
		end_untraced(s, task, bpf_ktime_get_ns());
		s->ts = 0;
		return 0;
	}
	bpf_seq_write(ctx->meta->seq, s, sizeof(*s));
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
	bool command = filter_pids && exec_done(pid);

	forget_process(pid);
	python_forget(pid);
	/* a look at its maps now, while it runs ld.so: a process that lives a
	 * few milliseconds is gone before its first sample would be read */
	if (want_user && (!filter_pids || bpf_map_lookup_elem(&pids, &pid)))
		note_exec(pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);
	if (want_user && command && hold_exec)
		hold_at_exec(pid, CNT_EVENTS_LOST);
	return 0;
}

/* Keeps the seen map small in a storm of short-lived processes, and makes a
 * reused pid look new. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 pid = BPF_CORE_READ(p, tgid);

	span_exit(p);
	if (BPF_CORE_READ(p, pid) == pid) {
		forget_process(pid);
		python_forget(pid);
	}
	return 0;
}

#include "alloc.bpf.h"

char LICENSE[] SEC("license") = "GPL";
