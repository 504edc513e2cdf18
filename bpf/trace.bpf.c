// SPDX-License-Identifier: GPL-2.0
/* Function tracing: uprobe_multi links on the entries and returns of the
 * traced functions (the function's index as the attach cookie). A shadow
 * stack per thread (task storage: it goes away with the thread) turns entry
 * and return pairs into nested calls; self time is summed per (thread, call
 * path) in the kernel. The stack pointer tells a return that belongs to the
 * top frame from one whose inner frames were left without returning. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "trace.h"

#define NR_COUNTERS TCNT_NR
#include "common.bpf.h"
#include "unwind.bpf.h"
#include "offcpu.bpf.h"

const volatile bool filter_pids = false;
/* Set by user space before it detaches: new calls are not entered, calls in
 * flight still return, so no frame is left half-seen. */
volatile bool stopping = false;
const volatile bool want_calls = false;
const volatile bool want_stacks = false;
const volatile bool notify_forks = false;
const volatile bool notify_execs = false;
const volatile bool cpu_split = false;

struct frame {
	__u32 func;
	__u32 split; /* --cpu-split: its entry saved the thread's time off the CPU */
	__u64 start;
	__u64 child_ns; /* inclusive time of the calls it made */
	__u64 sp;	/* at entry: the address of the return address */
	__u64 ip;	/* the entry probe's address, or one past it */
	__u64 path;	/* id of the call path ending here */
	__u64 args[TRACE_NARGS];
	__u64 ustack; /* the user stack under the outermost traced call */
};

#define SHADOW_SLOTS 128 /* > TRACE_MAX_DEPTH, a power of two for masking */

/* How often an outermost call reads the names again (a rename shows in the
 * paths made after it): reading them costs more than the rest of an entry. */
#define COMM_EVERY	    64
#define CALLS_COUNTED_EVERY 64 /* pend_again() */

/* who flushed a thread's pending calls at its end (struct shadow.flusher) */
#define FLUSH_BY_EXIT 1
#define FLUSH_BY_STOP 2

/* Calls of the same path at a depth, added up in the thread's storage and
 * written to the counts map when the path there changes, the thread exits
 * or the capture stops (flush_pending): a hash update less per return. */
struct pending {
	__u64 path;
	__u64 self_ns;
	__u64 calls;
};

struct shadow {
	__u32 depth;
	__u32 outermost;	    /* outermost calls so far */
	bool plain;		    /* the process's PID_PLAIN, as last read */
	__u32 flusher;		    /* who took the pending calls at the end (FLUSH_BY_*) */
	char comm[SAMPLE_COMM_LEN]; /* read at outermost calls, not per return */
	char tcomm[SAMPLE_COMM_LEN];
	__u64 sent_path[SHADOW_SLOTS]; /* per depth: the last path known to be sent */
	struct pending pend[SHADOW_SLOTS];
	struct frame f[SHADOW_SLOTS];
};

/* Masked indexing keeps the verifier's bounds simple. */
#define FR(sh, i) ((sh)->f[(i) & (SHADOW_SLOTS - 1)])

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct shadow);
} shadows SEC(".maps");

/* The shadow stacks of the first threads to come, a slot each (tid &
 * hot_mask), rather than in task storage: an array's look-up is inlined,
 * where task storage's is a helper call that takes a per-CPU lock, some 20
 * ns of every entry and every return on this VM. A thread whose slot is
 * taken keeps its stack in task storage. A slot is let go at its thread's
 * exit, its calls flushed; one whose thread left unseen (on_exit detached
 * at the stop) is flushed by the stop's iterator, by its pid and tid. */
struct hot_shadow {
	__u64 owner; /* the task_struct that holds it; 0: free */
	__u32 pid, tid;
	struct shadow sh;
};

const volatile __u32 hot_mask = 0; /* the slots less one, a power of two */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct hot_shadow);
	__uint(max_entries, 1); /* sized by user space: hot_mask + 1 */
} hot_shadows SEC(".maps");

/* --cpu-split, apart from the shadow so that the other modes do not carry
 * it: each thread's time off the CPU by state, in all (off_ns), and as it
 * was when the program running took the time (at_now): a block while that
 * program is preempted comes after its time, and goes with what follows,
 * as the wall time does. A call's inclusive time off the CPU is the
 * difference between its entry and its return; its self time that less
 * its callees', as for wall time (child_ns), so that the self times of a
 * call and its callees add up to its inclusive time exactly. */
struct split_frame {
	__u64 at_entry[TRACE_NSTATES];	/* the thread's off_ns when the call began */
	__u64 child_off[TRACE_NSTATES]; /* the inclusive time off of its callees */
};

struct split {
	__u64 out_ts;	 /* when it left the CPU; 0: it is on it */
	__u32 out_state; /* how (enum offcpu_state) */
	__u32 pad;
	__u64 out_run; /* its CPU time then (offcpu_untraced_end()) */
	__u64 off_ns[TRACE_NSTATES];
	__u64 at_now[TRACE_NSTATES];
	struct split_frame f[SHADOW_SLOTS];
};

#define SF(sp, i) ((sp)->f[(i) & (SHADOW_SLOTS - 1)])

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct split);
} splits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct trace_key);
	__type(value, struct trace_value);
	__uint(max_entries, 1); /* sized by user space */
} counts SEC(".maps");

static __always_inline __u64 path_id(__u64 parent, __u32 func)
{
	__u64 h = (parent ^ (func + 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	h ^= h >> 32;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return h < STACK_ID_FIRST ? h + STACK_ID_FIRST : h;
}

struct copy_ctx {
	struct shadow *sh;
	struct sample_stack_event *ev;
	__u32 d;
};

/* bpf_loop() callbacks are verified once, not once per iteration. */
static int copy_func(__u32 i, void *arg)
{
	struct copy_ctx *c = arg;
	__u32 k = i;

	if (k > c->d)
		return 1;
	barrier_var(k); /* keep the bound check on the register used to index */
	if (k >= TRACE_MAX_DEPTH)
		return 1;
	c->ev->ip[k] = FR(c->sh, c->d - k).func;
	return 0;
}

static __always_inline bool send_root(__u64 path, __u64 ustack)
{
	struct trace_path_root r = { .type = EV_PATH_ROOT, .path = path, .ustack = ustack };

	if (!bpf_ringbuf_output(&events, &r, sizeof(r), BPF_RB_NO_WAKEUP))
		return true;
	count(TCNT_PATHS_DROPPED);
	return false;
}

/* Sends the path ending at frame d (functions leaf first) unless sent. */
static __always_inline bool send_path(struct shadow *sh, __u32 d)
{
	struct sample_stack_event *ev;
	struct copy_ctx copy;
	__u32 zero = 0;
	__u64 id;
	__u8 one = 1;

	if (d >= TRACE_MAX_DEPTH)
		return false;
	id = FR(sh, d).path;
	/* user space never forgets a path: a thread repeating one skips the map */
	if (sh->sent_path[d & (SHADOW_SLOTS - 1)] == id)
		return true;
	if (bpf_map_lookup_elem(&sent, &id)) {
		sh->sent_path[d & (SHADOW_SLOTS - 1)] = id;
		return true;
	}
	ev = bpf_map_lookup_elem(&scratch, &zero);
	if (!ev)
		return false;
	ev->type = EV_STACK;
	ev->id = id;
	ev->nr = d + 1;
	copy.sh = sh;
	copy.ev = ev;
	copy.d = d;
	bpf_loop(d + 1, copy_func, &copy, 0);
	if (bpf_ringbuf_output(&events, ev, offsetof(struct sample_stack_event, ip) + (d + 1) * 8,
			       BPF_RB_NO_WAKEUP)) {
		count(TCNT_PATHS_DROPPED);
		return false;
	}
	if (want_stacks && !send_root(id, FR(sh, 0).ustack))
		return false;
	bpf_map_update_elem(&sent, &id, &one, BPF_ANY);
	return true;
}

/* Only the thread in the key updates its entries, and a thread runs one
 * program at a time: plain additions, no atomics (they cost more than the
 * rest of the update). */
static __always_inline void add_time(struct shadow *sh, struct trace_key *key, __u64 self,
				     __u64 calls, const __u64 *self_off)
{
	struct trace_value *v, init = { self, calls };
	struct trace_call_event *ev;

	v = bpf_map_lookup_elem(&counts, key);
	if (v) {
		v->self_ns += self;
		v->calls += calls;
		for (int s = 0; cpu_split && s < TRACE_NSTATES; s++)
			v->off_ns[s] += self_off[s];
		return;
	}
	for (int s = 0; cpu_split && s < TRACE_NSTATES; s++)
		init.off_ns[s] = self_off[s];
	__builtin_memcpy(init.comm, sh->comm, sizeof(init.comm));
	__builtin_memcpy(init.tcomm, sh->tcomm, sizeof(init.tcomm));
	if (!bpf_map_update_elem(&counts, key, &init, BPF_NOEXIST))
		return;
	/* built in the ring buffer: beside the shadow stack's, it would not
	 * fit in the program's stack */
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count_by(TCNT_DROPPED, calls);
		return;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = EV_CALL;
	ev->key.pid = key->pid;
	ev->key.tid = key->tid;
	ev->key.ustack = key->path;
	__builtin_memcpy(ev->key.comm, sh->comm, sizeof(ev->key.comm));
	__builtin_memcpy(ev->key.tcomm, sh->tcomm, sizeof(ev->key.tcomm));
	ev->val = init;
	bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
	count_by(TCNT_SPILLED, calls);
}

/* Writes slot's calls (of thread pid, tid) to the counts map. */
static __always_inline void flush_slot(struct shadow *sh, struct pending *slot, __u32 pid,
				       __u32 tid)
{
	struct trace_key key = { .pid = pid, .tid = tid, .path = slot->path };
	__u64 no_split[TRACE_NSTATES] = {};

	if (!slot->calls)
		return;
	count_by(TCNT_CALLS, slot->calls % CALLS_COUNTED_EVERY);
	add_time(sh, &key, slot->self_ns, slot->calls, no_split);
	slot->calls = 0;
}

/* Whether a call of path at depth d that took self was added to the
 * pending calls there, of the same path (then sent already: a slot holds
 * only paths sent). The calls counter (the live progress) hears of a
 * slot's calls every CALLS_COUNTED_EVERY, and of the rest when it is
 * flushed: a per-CPU lookup less on most returns. */
static __always_inline bool pend_again(struct shadow *sh, __u32 d, __u64 path, __u64 self)
{
	struct pending *slot = &sh->pend[d & (SHADOW_SLOTS - 1)];

	if (!slot->calls || slot->path != path)
		return false;
	slot->self_ns += self;
	if (!(++slot->calls % CALLS_COUNTED_EVERY))
		count_by(TCNT_CALLS, CALLS_COUNTED_EVERY);
	return true;
}

/* The call of a path new at depth d (pend_again() said no): the pending
 * calls there go to the counts map, and it takes their place. */
static __always_inline void pend_new(struct shadow *sh, __u32 d, __u64 path, __u64 self, __u64 id)
{
	struct pending *slot = &sh->pend[d & (SHADOW_SLOTS - 1)];

	flush_slot(sh, slot, id >> 32, (__u32)id);
	slot->path = path;
	slot->self_ns = self;
	slot->calls = 1;
}

struct flush_ctx {
	struct shadow *sh;
	__u32 pid, tid;
};

static int flush_one(__u32 i, void *arg)
{
	struct flush_ctx *c = arg;

	flush_slot(c->sh, &c->sh->pend[i & (SHADOW_SLOTS - 1)], c->pid, c->tid);
	return 0;
}

/* Every pending call of the thread to the counts map. */
static __always_inline void flush_pending(struct shadow *sh, __u32 pid, __u32 tid)
{
	struct flush_ctx c = { sh, pid, tid };

	bpf_loop(SHADOW_SLOTS, flush_one, &c, 0);
}

/* Closes frame d at time now: its self time goes to its path, its inclusive
 * time to its parent's children. */
static __always_inline void send_record(struct shadow *sh, __u32 d, __u64 dur, __u64 id, __u64 ret,
					__u32 flags, const __u64 *off)
{
	struct trace_call_record r = {
		.type = EV_CALL_RECORD,
		.depth = d,
		.pid = id >> 32,
		.tid = (__u32)id,
		.start = FR(sh, d).start,
		.dur = dur,
		.path = FR(sh, d).path,
		.ret = ret,
		.flags = flags,
		.cpu = bpf_get_smp_processor_id(),
	};

	r.args[0] = FR(sh, d).args[0];
	r.args[1] = FR(sh, d).args[1];
	r.args[2] = FR(sh, d).args[2];
	for (int s = 0; cpu_split && s < TRACE_NSTATES; s++)
		r.off_ns[s] = off[s];
	if (bpf_ringbuf_output(&events, &r, cpu_split ? sizeof(r) : offsetof(typeof(r), off_ns),
			       BPF_RB_NO_WAKEUP))
		count(TCNT_RECORDS_DROPPED);
}

/* --cpu-split: frame d's time off the CPU, the calls it made included
 * (incl) and not (self), the first added to its parent's callees'. Left
 * as they are (zero) when its entry could not save the thread's. */
static __always_inline void split_of(struct shadow *sh, __u32 d, __u64 *incl, __u64 *self)
{
	struct split *sp = bpf_task_storage_get(&splits, bpf_get_current_task_btf(), NULL, 0);

	if (!sp || !FR(sh, d).split)
		return;
	for (int s = 0; s < TRACE_NSTATES; s++) {
		incl[s] = sp->at_now[s] - SF(sp, d).at_entry[s];
		self[s] = incl[s] > SF(sp, d).child_off[s] ? incl[s] - SF(sp, d).child_off[s] : 0;
		if (d > 0)
			SF(sp, d - 1).child_off[s] += incl[s];
	}
}

static __always_inline void close_frame(struct shadow *sh, __u32 d, __u64 now, __u64 id, __u64 ret,
					__u32 flags)
{
	struct trace_key key = { .pid = id >> 32, .tid = (__u32)id };
	__u64 dur, self, incl_off[TRACE_NSTATES] = {}, self_off[TRACE_NSTATES] = {};
	bool again;

	if (d >= TRACE_MAX_DEPTH)
		return;
	if (cpu_split)
		split_of(sh, d, incl_off, self_off);
	dur = now - FR(sh, d).start;
	self = dur > FR(sh, d).child_ns ? dur - FR(sh, d).child_ns : 0;
	if (d > 0)
		FR(sh, d - 1).child_ns += dur;
	/* the common case, a path repeated at its depth: added to the calls
	 * pending there, without looking whether it was sent */
	again = !cpu_split && pend_again(sh, d, FR(sh, d).path, self);
	if (!again && !send_path(sh, d))
		return;
	if (want_calls)
		send_record(sh, d, dur, id, ret, flags, incl_off);
	if (!cpu_split) {
		if (!again)
			pend_new(sh, d, FR(sh, d).path, self, id);
		return;
	}
	key.path = FR(sh, d).path;
	count(TCNT_CALLS);
	add_time(sh, &key, self, 1, self_off);
}

/* Pops the frames whose stack slot lies below sp: they were left without a
 * return (longjmp, an exception, a uretprobe the kernel did not install).
 * Each popped is counted in counter; a frame at keep_sp entered within 10
 * bytes of keep_ip (the start of the function the caller is in, less one:
 * either address may be one past the breakpoint) stays. */
struct unwind_ctx {
	struct shadow *sh;
	__u64 sp, now, id;
	__u32 counter;
	__u64 keep_sp, keep_ip;
};

static int unwind_one(__u32 i, void *arg)
{
	struct unwind_ctx *u = arg;
	__u32 d = u->sh->depth;

	if (!d || d > TRACE_MAX_DEPTH || FR(u->sh, d - 1).sp >= u->sp)
		return 1;
	if (FR(u->sh, d - 1).sp == u->keep_sp && FR(u->sh, d - 1).ip - u->keep_ip < 10)
		return 1;
	close_frame(u->sh, d - 1, u->now, u->id, 0, CALL_UNFINISHED);
	u->sh->depth = d - 1;
	count(u->counter);
	return 0;
}

/* A subprogram: its context is built only when there is something to
 * pop (inline, the compiler built it on every entry and return). */
static __noinline void unwind_frames(struct shadow *sh, __u64 sp, __u64 now, __u64 id)
{
	struct unwind_ctx u = { sh, sp, now, id, TCNT_UNFINISHED };

	bpf_loop(TRACE_MAX_DEPTH, unwind_one, &u, 0);
}

static __always_inline void unwind_to(struct shadow *sh, __u64 sp, __u64 now, __u64 id)
{
	__u32 d = sh->depth;

	/* the common case, nothing to pop, without the cost of a loop call */
	if (!d || d > TRACE_MAX_DEPTH || FR(sh, d - 1).sp >= sp)
		return;
	unwind_frames(sh, sp, now, id);
}

/* task's slot, whoever holds it. */
static __always_inline struct hot_shadow *hot_slot(const struct task_struct *task)
{
	__u32 i = task->pid & hot_mask;

	return bpf_map_lookup_elem(&hot_shadows, &i);
}

/* Whether hot is task's. */
static __always_inline bool holds_hot(const struct hot_shadow *hot, const struct task_struct *task)
{
	return hot && hot->owner == (__u64)task;
}

/* Takes hot, free, for task (thread id): its stack starts empty. Its
 * pending calls are none: flushed when it was let go (on_exit). */
static __always_inline bool hot_claim(struct hot_shadow *hot, const struct task_struct *task,
				      __u64 id)
{
	if (!hot || hot->owner || __sync_val_compare_and_swap(&hot->owner, 0, (__u64)task))
		return false;
	hot->pid = id >> 32;
	hot->tid = (__u32)id;
	hot->sh.depth = 0;
	hot->sh.outermost = 0;
	hot->sh.plain = false;
	hot->sh.flusher = 0;
	return true;
}

/* task's shadow stack, if it has one; hot is task's slot. */
static __always_inline struct shadow *shadow_in(struct hot_shadow *hot, struct task_struct *task)
{
	if (holds_hot(hot, task))
		return &hot->sh;
	return bpf_task_storage_get(&shadows, task, NULL, 0);
}

static __always_inline struct shadow *shadow_if_any(struct task_struct *task)
{
	return shadow_in(hot_slot(task), task);
}

/* A thread's shadow stack; only threads of traced processes get one, so a
 * thread that has one passed the pid filter already (it is looked up on
 * the first call only: a hash lookup less on every entry and return). */
static __always_inline struct shadow *task_shadow(struct task_struct *task, __u64 id, bool create)
{
	struct hot_shadow *hot = hot_slot(task);
	struct shadow *sh = shadow_in(hot, task);
	__u32 pid = id >> 32;

	if (sh || !create)
		return sh;
	if (filter_pids && !pid_traced(pid, task)) {
		count(TCNT_FILTERED);
		return NULL;
	}
	if (hot_claim(hot, task, id))
		return &hot->sh;
	sh = bpf_task_storage_get(&shadows, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!sh)
		count(TCNT_NO_STORAGE);
	return sh;
}

/* The current thread's: task_shadow() of its task_struct. */
static __always_inline struct shadow *shadow_of(__u64 id, bool create)
{
	return task_shadow(bpf_get_current_task_btf(), id, create);
}

/* The current thread's pid_tgid, from its task_struct: two loads where
 * the helper is a call, on every traced entry and return. */
static __always_inline __u64 pid_tgid_of(const struct task_struct *task)
{
	return (__u64)task->tgid << 32 | (__u32)task->pid;
}

/* Whether the process may have returns caught by uretprobes that rely on
 * its being plain (TRACE_PLAIN_ONLY). Read again while it is not: user
 * space may judge a new program plain after an exec. */
static __always_inline bool is_plain(struct shadow *sh, __u64 id)
{
	__u32 pid = id >> 32;
	__u8 *flags;

	if (sh->plain)
		return true;
	flags = bpf_map_lookup_elem(&pids, &pid);
	sh->plain = flags && (*flags & PID_PLAIN);
	return sh->plain;
}

static long vma_is_anon(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	*(bool *)data = !vma->vm_file;
	return 0;
}

static __always_inline bool in_anon_code(__u64 addr)
{
	bool anon = false;

	bpf_find_vma(bpf_get_current_task_btf(), addr, vma_is_anon, &anon, 0);
	return anon;
}

/* --cpu-split: a thread back on the CPU adds the time it was away to its
 * totals; the calls open since it left get it when they return, and the
 * calls after it never see it. */
static __always_inline void split_back(struct split *sp, __u64 now)
{
	__u32 s = sp->out_state;

	/* masked: the verifier sees the bound on the register used */
	if (s >= OFFCPU_SLEEPING && s < OFFCPU_NR && now > sp->out_ts)
		sp->off_ns[(s - OFFCPU_SLEEPING) & (TRACE_NSTATES - 1)] += now - sp->out_ts;
	sp->out_ts = 0;
}

/* --cpu-split: the thread's time off the CPU as of the time the program
 * just took; called right after it. A block still open is over (the thread
 * runs this): it came back untraced, and its time goes to the calls open
 * across it, now, not to those open at its next switch away. Its CPU time
 * is as of the last tick (CONFIG_HZ): the block comes out that much longer
 * at most. */
static __always_inline void split_mark(void)
{
	struct task_struct *task;
	struct split *sp;

	if (!cpu_split)
		return;
	task = bpf_get_current_task_btf();
	sp = bpf_task_storage_get(&splits, task, NULL, 0);
	if (sp && sp->out_ts) {
		count(TCNT_SPLIT_UNTRACED);
		split_back(sp,
			   offcpu_untraced_end(sp->out_ts, sp->out_run, task, bpf_ktime_get_ns()));
	}
	for (int s = 0; sp && s < TRACE_NSTATES; s++)
		sp->at_now[s] = sp->off_ns[s];
}

/* --cpu-split: frame d starts with the thread's time off the CPU so far. */
static __always_inline void split_enter(struct shadow *sh, __u32 d)
{
	struct split *sp = bpf_task_storage_get(&splits, bpf_get_current_task_btf(), NULL,
						BPF_LOCAL_STORAGE_GET_F_CREATE);

	FR(sh, d).split = sp != NULL;
	if (!sp) {
		count(TCNT_SPLIT_LOST);
		return;
	}
	for (int s = 0; s < TRACE_NSTATES; s++) {
		SF(sp, d).at_entry[s] = sp->at_now[s];
		SF(sp, d).child_off[s] = 0;
	}
}

/* What a new call's frame holds besides its function and start. */
struct call_start {
	__u64 sp, ip;
	__u64 ustack; /* --full-stack: the user stack under it; -f py: the code's version */
	__u64 root;   /* the path an outermost call grows from */
	__u64 args[TRACE_NARGS];
};

/* Pushes a call of func on sh at depth d, below TRACE_MAX_DEPTH. */
static __always_inline void push_call(struct shadow *sh, __u32 d, __u32 func, __u64 now,
				      const struct call_start *c)
{
	FR(sh, d).func = func;
	FR(sh, d).start = now;
	FR(sh, d).child_ns = 0;
	FR(sh, d).sp = c->sp;
	FR(sh, d).ip = c->ip;
	FR(sh, d).ustack = c->ustack;
	/* only a call's record carries them */
	for (int i = 0; want_calls && i < TRACE_NARGS; i++)
		FR(sh, d).args[i] = c->args[i];
	if (!d && !(sh->outermost++ % COMM_EVERY)) {
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();

		BPF_CORE_READ_STR_INTO(&sh->comm, task, group_leader, comm);
		bpf_get_current_comm(&sh->tcomm, sizeof(sh->tcomm));
	}
	FR(sh, d).path = path_id(d ? FR(sh, d - 1).path : c->root, func);
	if (cpu_split)
		split_enter(sh, d);
	sh->depth = d + 1;
}

/* Where Go frames are placed: below the threads' own stacks, above Go's
 * heap, where goroutine stacks are, so that a Go function called back from
 * C nests in it, and a traced Go function's frame in a traced one's without
 * a stack check (real stack pointers, in Go's heap). */
#define GO_FRAMES_TOP 0x700000000000ULL
#define GO_STACK_MAX  (1ULL << 30) /* the runtime's limit of a goroutine's stack */

/* The stack pointer a frame is placed and matched by: sp, or for a Go
 * function with its goroutine g in r14 (TRACE_GO_G), its distance from
 * the top of g's stack (g.stack.hi, at 8(g)), which the runtime keeps
 * when it copies the stack to grow it. */
static __always_inline __u64 frame_sp(struct pt_regs *ctx, __u64 cookie, __u64 sp)
{
	__u64 hi = 0;

	if (!(cookie & TRACE_GO_G) || bpf_probe_read_user(&hi, sizeof(hi), (void *)ctx->r14 + 8) ||
	    hi < sp || hi - sp >= GO_STACK_MAX)
		return sp;
	return GO_FRAMES_TOP - (hi - sp);
}

/* Pushes the call; returns 1 when it is not traced (then a uprobe session
 * skips its return). */
static __always_inline int enter(struct pt_regs *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 d, cookie = bpf_get_attach_cookie(ctx), func = cookie & TRACE_FUNC_MASK;
	__u64 now = bpf_ktime_get_ns(), id = pid_tgid_of(task),
	      sp = frame_sp(ctx, cookie, PT_REGS_SP(ctx));
	struct shadow *sh = task_shadow(task, id, true);
	struct call_start c;
	__u64 ret_addr = 0;

	split_mark();

	if (stopping)
		return 1;
	if (!sh)
		return 1;
	if ((cookie & TRACE_PLAIN_ONLY) && !is_plain(sh, id)) {
		count(TCNT_NOT_PLAIN);
		return 1;
	}
	/* a slot above a deeper frame's means that frame is gone */
	unwind_to(sh, sp, now, id);
	d = sh->depth;
	/* The same slot: a tail call nests (the slot then holds the uretprobe
	 * trampoline, in an anonymous mapping); a new call after a longjmp
	 * does not (the slot holds a return address into a file's code). */
	if (d && d <= TRACE_MAX_DEPTH && FR(sh, d - 1).sp == sp) {
		bpf_probe_read_user(&ret_addr, sizeof(ret_addr), (void *)PT_REGS_SP(ctx));
		if (!in_anon_code(ret_addr))
			unwind_to(sh, sp + 1, now, id);
	}
	d = sh->depth;
	if (d >= TRACE_MAX_DEPTH) {
		count(TCNT_TOO_DEEP);
		return 1;
	}
	if (!d && want_stacks)
		note_process(id >> 32, TCNT_SEEN_FULL, TCNT_PATHS_DROPPED);
	/* under --full-stack a path also grows from its user stack */
	c.ustack = d		 ? FR(sh, d - 1).ustack
		   : want_stacks ? user_stack(ctx, id >> 32, bpf_get_current_task_btf(), EV_USTACK,
					      TCNT_USTACK, TCNT_USTACK_ERR, TCNT_PATHS_DROPPED,
					      TCNT_PATHS_DROPPED)
				 : 0;
	c.root = c.ustack;
	c.sp = sp;
	c.ip = PT_REGS_IP(ctx);
	c.args[0] = PT_REGS_PARM1(ctx);
	c.args[1] = PT_REGS_PARM2(ctx);
	c.args[2] = PT_REGS_PARM3(ctx);
	push_call(sh, d, func, now, &c);
	return 0;
}

SEC("kprobe")
int on_entry(struct pt_regs *ctx)
{
	enter(ctx);
	return 0;
}

/* A return of function func (LEAVE_ANY_FUNC: the call's at slot, whichever
 * it is) whose return address was at slot. A jump that may be a tail call
 * (quiet) is one only when the frame is gone. */
#define LEAVE_ANY_FUNC ((__u32)-1)

static __always_inline int leave(__u64 slot, __u32 func, __u64 ret, bool quiet)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 now = bpf_ktime_get_ns(), id = pid_tgid_of(task);
	struct shadow *sh = task_shadow(task, id, false);
	__u32 d;

	split_mark();

	if (!sh)
		return 0;
	unwind_to(sh, slot, now, id);
	d = sh->depth;
	if (!d || d > TRACE_MAX_DEPTH || FR(sh, d - 1).sp != slot ||
	    (func != LEAVE_ANY_FUNC && FR(sh, d - 1).func != func)) {
		if (!quiet)
			count(TCNT_UNMATCHED);
		return 0;
	}
	close_frame(sh, d - 1, now, id, ret, 0);
	sh->depth = d - 1;
	return 0;
}

/* A uretprobe: ret has popped the return address. */
SEC("kprobe")
int on_return(struct pt_regs *ctx)
{
	return leave(PT_REGS_SP(ctx) - 8, bpf_get_attach_cookie(ctx) & TRACE_FUNC_MASK,
		     PT_REGS_RC(ctx), false);
}

/* Whether a jcc of condition code cc jumps, given the flags it tests. */
static __always_inline bool jcc_taken(__u32 cc, __u64 flags)
{
	bool cf = flags & 0x1, pf = flags & 0x4, zf = flags & 0x40, sf = flags & 0x80,
	     of = flags & 0x800, t;

	switch (cc >> 1) {
	case 0:
		t = of;
		break;
	case 1:
		t = cf;
		break;
	case 2:
		t = zf;
		break;
	case 3:
		t = cf || zf;
		break;
	case 4:
		t = sf;
		break;
	case 5:
		t = pf;
		break;
	case 6:
		t = sf != of;
		break;
	default:
		t = zf || sf != of;
		break;
	}
	return t != (cc & 1);
}

/* Where pt_regs keeps register number reg (rax 0 ... r15 15, as x86
 * encodes them). */
static __always_inline __u32 reg_offset(__u32 reg)
{
	switch (reg) {
	case 0:
		return offsetof(struct pt_regs, ax);
	case 1:
		return offsetof(struct pt_regs, cx);
	case 2:
		return offsetof(struct pt_regs, dx);
	case 3:
		return offsetof(struct pt_regs, bx);
	case 4:
		return offsetof(struct pt_regs, sp);
	case 5:
		return offsetof(struct pt_regs, bp);
	case 6:
		return offsetof(struct pt_regs, si);
	case 7:
		return offsetof(struct pt_regs, di);
	case 8:
		return offsetof(struct pt_regs, r8);
	case 9:
		return offsetof(struct pt_regs, r9);
	case 10:
		return offsetof(struct pt_regs, r10);
	case 11:
		return offsetof(struct pt_regs, r11);
	case 12:
		return offsetof(struct pt_regs, r12);
	case 13:
		return offsetof(struct pt_regs, r13);
	case 14:
		return offsetof(struct pt_regs, r14);
	default:
		return offsetof(struct pt_regs, r15);
	}
}

/* Read through a helper: the verifier allows no variable offset into ctx. */
static __always_inline __u64 reg_value(struct pt_regs *ctx, __u32 reg)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)ctx + reg_offset(reg));
	return v;
}

/* Whether a jump to target stays in the function of size bytes whose frame
 * is on top: a jump table's, not a tail call. Its entry probe's address is
 * within an endbr64 (and the 1 of a breakpoint) of its start. */
static __always_inline bool jumps_inside(__u64 target, __u64 size)
{
	struct shadow *sh = shadow_of(bpf_get_current_pid_tgid(), false);
	__u32 d = sh ? sh->depth : 0;
	__u64 start;

	if (!d || d > TRACE_MAX_DEPTH)
		return false;
	start = FR(sh, d - 1).ip - 8;
	return target - start < size + 8;
}

/* A probe on the function's ret instruction, or on a tail call's jump (a
 * jcc returns only when taken, a jump to a register when it leaves the
 * function): the return address is still on the stack. Unlike a
 * uretprobe, nothing on the stack is replaced, so unwinders (C++
 * exceptions, Go) see the real frames. */
SEC("kprobe")
int on_ret_insn(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 kind = (cookie >> TRACE_SITE_KIND_SHIFT) & 0xff;

	if (kind >= TRACE_SITE_JMP_REG) {
		if (jumps_inside(reg_value(ctx, kind - TRACE_SITE_JMP_REG),
				 cookie >> TRACE_SITE_SIZE_SHIFT))
			return 0;
	} else if (kind >= TRACE_SITE_JCC && !jcc_taken(kind - TRACE_SITE_JCC, ctx->flags)) {
		return 0;
	}
	return leave(frame_sp(ctx, cookie, PT_REGS_SP(ctx)), (__u32)cookie & TRACE_FUNC_MASK,
		     PT_REGS_RC(ctx), kind != 0);
}

/* Children of a traced process are traced too (COMMAND mode). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	struct trace_proc_event ev = {
		.type = EV_FORK,
		.pid = BPF_CORE_READ(child, tgid),
		.ts = bpf_ktime_get_ns(),
	};

	if (!follow_fork(parent, child)) {
		count(TCNT_PIDS_FULL);
		return 0;
	}
	if (!notify_forks || ev.pid == BPF_CORE_READ(parent, tgid) ||
	    !bpf_map_lookup_elem(&pids, &ev.pid))
		return 0;
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP))
		count(TCNT_FORKS_LOST);
	return 0;
}

/* Whether by (FLUSH_BY_*) is the first to take sh's pending calls at its
 * end: on_exit and the stop's iterator may run at once on two CPUs, and
 * both flushing would count them twice. */
static __always_inline bool flush_claim(struct shadow *sh, __u32 by)
{
	return __sync_val_compare_and_swap(&sh->flusher, 0, by) == 0;
}

/* A thread that exits inside traced calls: they end here, without a return. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	struct hot_shadow *hot = hot_slot(p);
	struct shadow *sh = shadow_in(hot, p);

	__u32 pid = BPF_CORE_READ(p, tgid);

	/* the stop's iterator took the calls first: they are counted */
	if (sh && !flush_claim(sh, FLUSH_BY_EXIT))
		return 0;
	if (sh && sh->depth) {
		__u64 now = bpf_ktime_get_ns();

		split_mark();
		unwind_to(sh, ~0ULL, now, bpf_get_current_pid_tgid());
	}
	if (sh)
		flush_pending(sh, pid, BPF_CORE_READ(p, pid));
	/* its calls are out: the slot is free for the next thread */
	if (holds_hot(hot, p))
		__sync_fetch_and_and(&hot->owner, 0);
	if (want_stacks && BPF_CORE_READ(p, pid) == pid)
		forget_process(pid);
	return 0;
}

/* Tells user space of a process that exec'd a program not judged yet. */
static __always_inline void notify_exec(__u32 pid)
{
	struct trace_proc_event ev = { .type = EV_EXEC, .pid = pid, .ts = bpf_ktime_get_ns() };

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP))
		count(TCNT_EXECS_LOST);
}

/* A new program: it is no longer the one judged plain (but for the
 * command's own), and --full-stack needs a new snapshot of its mappings and
 * new tables. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 pid = BPF_CORE_READ(p, tgid);
	__u8 *flags = bpf_map_lookup_elem(&pids, &pid);
	struct shadow *sh = shadow_if_any(p);
	bool command = exec_done(pid);

	if (flags && (*flags & PID_EXEC_ONCE)) {
		*flags &= ~PID_EXEC_ONCE;
	} else if (flags && (*flags & PID_PLAIN)) {
		*flags &= ~PID_PLAIN;
		if (notify_execs)
			notify_exec(pid);
	}
	if (sh)
		sh->plain = flags && (*flags & PID_PLAIN);
	if (want_stacks)
		forget_process(pid);
	/* --full-stack: its maps read and tables built before its first call */
	if (want_stacks && command && hold_exec) {
		note_exec(pid, TCNT_SEEN_FULL, TCNT_PATHS_DROPPED);
		hold_at_exec(pid, TCNT_PATHS_DROPPED);
	}
	return 0;
}

static __always_inline void split_in(struct task_struct *task, __u64 now)
{
	struct split *sp = bpf_task_storage_get(&splits, task, NULL, 0);

	if (!sp)
		return;
	/* made on the thread, on the CPU: the switch away was not traced */
	if (!sp->out_ts)
		count(TCNT_SPLIT_NO_OUT);
	else
		split_back(sp, now);
}

/* A thread that has made traced calls leaves the CPU: when and how. In a
 * call or not (a call's entry may be under way, its program preempted):
 * only the calls open across the block see it. */
static __always_inline void split_out(struct task_struct *task, __u32 state, __u64 now)
{
	struct split *sp = bpf_task_storage_get(&splits, task, NULL, 0);

	if (!sp)
		return;
	if (sp->out_ts) { /* it came back untraced */
		count(TCNT_SPLIT_UNTRACED);
		split_back(sp, offcpu_untraced_end(sp->out_ts, sp->out_run, task, now));
	}
	sp->out_ts = now;
	sp->out_run = task->se.sum_exec_runtime;
	sp->out_state = state;
}

/* --cpu-split only (autoloaded then): every switch of the system runs it,
 * which threads outside traced calls leave at a lookup or two. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();

	split_in(next, now);
	if (!(prev_state & OFFCPU_TASK_DEAD))
		split_out(prev, offcpu_state(preempt, prev_state), now);
	return 0;
}

/* Whether a thread of a traced process runs: one without a shadow stack
 * yet may be. */
static __always_inline bool traced_thread(struct shadow *sh, __u64 id)
{
	__u32 pid = id >> 32;

	return sh || !filter_pids || pid_traced(pid, bpf_get_current_task_btf());
}

/*
 * libstdc++'s catch probe, in __cxa_begin_catch, which the landing pad of
 * the function that caught calls first. The exception left every frame
 * below that function's: it ends here, at the catch, not at the thread's
 * next traced event. A frame's sp is the slot of its return address; the
 * catcher's callees had theirs below the stack pointer the catcher calls
 * from, the one __cxa_begin_catch's CFA gives (the landing pad runs at the
 * stack pointer of the call the exception came out of). The probe's own
 * stack pointer would not do: __cxa_begin_catch's frame now lies over the
 * slots of the frames that were left. The slot just below the CFA is the
 * catcher's direct callee's, now __cxa_begin_catch's own return address:
 * a frame there is popped unless it is __cxa_begin_catch's, traced itself
 * (entered at the start of the function the probe is in), which is not
 * over yet.
 */
static __always_inline void catch_at(struct pt_regs *ctx, struct shadow *sh, __u64 cookie,
				     __u64 now, __u64 id)
{
	__u64 rbp = ctx->bp, rsp = PT_REGS_SP(ctx);
	__u64 into = (cookie >> TRACE_EXC_INTO_SHIFT) & 0xffff;
	struct unwind_ctx u = { sh, 0, now, id, TCNT_CATCH_UNWOUND };

	/* both read before the choice: ctx takes no chosen offset */
	barrier_var(rbp);
	barrier_var(rsp);
	u.sp = (cookie & TRACE_EXC_RBP ? rbp : rsp) + (__s32)cookie;
	if (into != TRACE_EXC_INTO_NONE) {
		u.keep_sp = u.sp - 8;
		u.keep_ip = PT_REGS_IP(ctx) - into - 1;
	}
	bpf_loop(TRACE_MAX_DEPTH, unwind_one, &u, 0);
}

/* libstdc++'s throw, rethrow and catch probes (TRACE_EXC_* cookies). */
SEC("kprobe")
int on_exception(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	__u64 cookie = bpf_get_attach_cookie(ctx);
	struct shadow *sh = shadow_of(id, false);

	split_mark();

	if (!traced_thread(sh, id))
		return 0;
	if ((cookie >> TRACE_EXC_KIND_SHIFT & 0xff) != TRACE_EXC_CATCH) {
		count(TCNT_THROWN);
		return 0;
	}
	count(TCNT_CAUGHT);
	if (sh)
		catch_at(ctx, sh, cookie, now, id);
	return 0;
}

/* At the stop, after the probes are gone: every thread's pending calls to
 * the counts map. A thread whose on_exit took them is left to it, and one
 * taken here is left by its on_exit (flush_claim). One exiting but not
 * there yet is flushed here: PF_EXITING is set well before
 * sched_process_exit (exit_mm(), milliseconds for a large process, lies
 * between on many kernels), and on_exit may be detached before the thread
 * gets there. */
static int flush_hot(__u32 i, void *arg)
{
	struct hot_shadow *hot = bpf_map_lookup_elem(&hot_shadows, &i);

	if (hot && hot->owner && flush_claim(&hot->sh, FLUSH_BY_STOP))
		flush_pending(&hot->sh, hot->pid, hot->tid);
	return 0;
}

SEC("iter/task")
int flush_at_stop(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct shadow *sh;

	/* the end: the slots of threads gone unseen, whose tasks it passed */
	if (!task) {
		bpf_loop(hot_mask + 1, flush_hot, NULL, 0);
		return 0;
	}
	sh = shadow_if_any(task);
	if (sh && flush_claim(sh, FLUSH_BY_STOP))
		flush_pending(sh, task->tgid, task->pid);
	return 0;
}

extern bool bpf_session_is_return(void) __ksym __weak;

/* A uprobe session (Linux 6.13+): one program, one link, for the entry and
 * the return of a function whose return is caught like a uretprobe's. An
 * entry that is not traced asks for no return; a return is its own
 * entry's, whose frame its slot finds without the function's cookie (a
 * helper call less). */
SEC("kprobe")
int on_session(struct pt_regs *ctx)
{
	if (!bpf_session_is_return())
		return enter(ctx);
	return leave(PT_REGS_SP(ctx) - 8, LEAVE_ANY_FUNC, PT_REGS_RC(ctx), false);
}

#include "py_trace.bpf.h"

char LICENSE[] SEC("license") = "GPL";
