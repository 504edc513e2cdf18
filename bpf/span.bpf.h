/* SPDX-License-Identifier: GPL-2.0 */
/* --span NAME=BEGIN,END: USDT probe pairs (uprobe_multi links or classic
 * uprobes, each site's number as cookie) open and close spans on a thread's stack of them, in
 * its task storage. Samples take the innermost span's id into their key;
 * without samples, each span's time less its children's is counted by
 * the ids, as traced calls' self time is. Included by sample.bpf.c after
 * add_count() and send_tick(). */
#ifndef FLAMEBPF_SPAN_BPF_H
#define FLAMEBPF_SPAN_BPF_H

#include "probe_arg.bpf.h"
#include "span.h"

const volatile bool spans = false;     /* samples carry their span */
const volatile bool span_time = false; /* no samples: spans' time is counted */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct span_site);
	__uint(max_entries, 1); /* sized by user space: a site per cookie */
} span_sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct span_stack);
} span_stacks SEC(".maps");

/* The innermost open span of each thread, in a slot by its tid: an array
 * lookup, which the verifier inlines, where a sample's look in task storage
 * (a helper call) cost 90 ns here. The task storage stays the truth: a
 * thread whose slot another holds is looked up there. A slot is free (tid
 * 0: no thread of its tids ever had a span, so none has one), held (tid,
 * its innermost span, 0 once closed, when another may take it) or left
 * (SPAN_SLOT_LEFT: its thread exited; a thread of its tids may have spans
 * kept only in task storage). */
#define SPAN_SLOTS     65536
#define SPAN_SLOT_LEFT 0xffffffffu

struct span_slot {
	__u32 tid;
	__u32 pad;
	__u64 id;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct span_slot);
	__uint(max_entries, SPAN_SLOTS);
} span_slots SEC(".maps");

static __always_inline struct span_slot *span_slot_of(__u32 tid)
{
	__u32 k = tid & (SPAN_SLOTS - 1);

	return bpf_map_lookup_elem(&span_slots, &k);
}

/* tid's innermost span is id now (0: none open): into its slot, unless
 * another thread holds it with a span open. */
static __always_inline void span_publish(__u32 tid, __u64 id)
{
	struct span_slot *sl = span_slot_of(tid);

	/* tid first: between the stores, a slot taken reads as tid with no
	 * span (its id is 0 to be taken), never as another's with this span */
	if (sl && (sl->tid == tid || !sl->id)) {
		sl->tid = tid;
		sl->id = id;
	}
}

/* The innermost open span of task, 0 for none. */
static __always_inline __u64 span_current(struct task_struct *task)
{
	struct span_stack *st;
	struct span_slot *sl;
	__u32 d, tid;

	if (!spans)
		return 0;
	tid = task->pid;
	sl = span_slot_of(tid);
	if (sl && (sl->tid == tid || !sl->tid))
		return sl->tid ? sl->id : 0;
	st = bpf_task_storage_get(&span_stacks, task, 0, 0);
	if (!st)
		return 0;
	d = st->depth;
	if (!d || d > SPAN_MAX_DEPTH)
		return 0;
	return st->l[(d - 1) & (SPAN_MAX_DEPTH - 1)].id;
}

/* st's innermost kept level, published for tid's samples. */
static __always_inline void span_publish_top(__u32 tid, const struct span_stack *st)
{
	__u32 d = st->depth;

	span_publish(tid, d && d <= SPAN_MAX_DEPTH ? st->l[(d - 1) & (SPAN_MAX_DEPTH - 1)].id : 0);
}

static __always_inline __u64 fnv(__u64 h, const void *p, __u32 n)
{
	const __u8 *b = p;

	for (__u32 i = 0; i < n && i < SPAN_LABEL_LEN + 16; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* Where a span level's text goes: per CPU, being too large for the stack
 * beside the rest. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct sample_span_event);
	__uint(max_entries, 1);
} span_scratch SEC(".maps");

/* BEGIN: a level on the thread's stack, its id from its parent's, its
 * span and its label; the text sent once. */
static __always_inline void span_begin(struct pt_regs *ctx, struct span_stack *st,
				       const struct span_site *site)
{
	__u32 zero = 0, d = st->depth, one = 1;
	struct sample_span_event *ev = bpf_map_lookup_elem(&span_scratch, &zero);
	struct span_level *l;
	__u64 arg, h;

	if (!ev)
		return;
	if (d >= SPAN_MAX_DEPTH) {
		if (d < 0xffff) /* its END closes nothing kept */
			st->depth = d + 1;
		count(CNT_SPAN_DEEP);
		return;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = EV_SPAN;
	ev->span = site->span;
	ev->label = site->label;
	ev->parent = d ? st->l[(d - 1) & (SPAN_MAX_DEPTH - 1)].id : 0;
	arg = site->label ? probe_arg_fetch(ctx, &site->arg) : 0;
	/* a string on a page the program has not touched yet cannot be read
	 * here (no faults in BPF): "?" says so */
	if (site->label == SPAN_LABEL_STRING &&
	    bpf_probe_read_user_str(ev->text, sizeof(ev->text), (void *)arg) < 0)
		ev->text[0] = '?';
	else if (site->label == SPAN_LABEL_NUMBER)
		ev->num = arg;
	h = fnv(0xcbf29ce484222325ULL ^ ev->parent, &ev->span, sizeof(ev->span));
	h = fnv(h, &ev->num, sizeof(ev->num));
	h = fnv(h, ev->text, sizeof(ev->text));
	ev->id = h ? h : 1;
	l = &st->l[d & (SPAN_MAX_DEPTH - 1)];
	l->id = ev->id;
	l->ts = bpf_ktime_get_ns();
	l->children_ns = 0;
	l->span = site->span;
	st->depth = d + 1;
	count(CNT_SPANS);
	if (bpf_map_lookup_elem(&sent, &ev->id))
		return;
	if (bpf_ringbuf_output(&events, ev, sizeof(*ev), 0)) {
		count(CNT_SPAN_LOST);
		return;
	}
	bpf_map_update_elem(&sent, &ev->id, &one, BPF_ANY);
}

/* Without samples: a span's time less its children's, counted by its id
 * for the thread (and, for timelines, the span from BEGIN to END). */
static __always_inline void span_count(struct span_stack *st, __u32 at, __u64 now)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid();
	struct sample_key key = { .pid = id >> 32, .tid = (__u32)id };
	struct span_level *l = &st->l[at & (SPAN_MAX_DEPTH - 1)];
	__u64 dur = now - l->ts;

	key.span = l->id;
	BPF_CORE_READ_STR_INTO(&key.comm, task, group_leader, comm);
	bpf_get_current_comm(&key.tcomm, sizeof(key.tcomm));
	if (timeline)
		send_tick(&key, l->ts, dur, 0);
	add_count(&key, dur > l->children_ns ? dur - l->children_ns : 0);
	if (at)
		st->l[(at - 1) & (SPAN_MAX_DEPTH - 1)].children_ns += dur;
}

/* END: the innermost open level of its span closes, with any left open
 * inside it (their ENDs never came); an END of no open span is counted. */
static __always_inline void span_end(struct span_stack *st, const struct span_site *site)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 d = st->depth;

	if (d > SPAN_MAX_DEPTH) { /* a level too deep to keep closes */
		st->depth = d - 1;
		return;
	}
	for (__u32 k = 0; k < SPAN_MAX_DEPTH; k++) {
		__u32 at;

		if (k >= d)
			break;
		at = d - 1 - k;
		if (st->l[at & (SPAN_MAX_DEPTH - 1)].span != site->span)
			continue;
		/* at and the levels left open above it */
		for (__u32 j = 0; j < SPAN_MAX_DEPTH && span_time; j++) {
			if (j >= d - at)
				break;
			span_count(st, d - 1 - j, now);
		}
		st->depth = at;
		return;
	}
	count(CNT_SPAN_UNMATCHED);
}

/* A thread that exits with spans open (its ENDs never came: an exception,
 * pthread_exit): they close now, and are counted. */
static __always_inline void span_exit(struct task_struct *p)
{
	struct span_slot *sl;
	struct span_stack *st;
	__u64 now;
	__u32 d;

	if (!spans)
		return;
	sl = span_slot_of(p->pid);
	if (sl && sl->tid == (__u32)p->pid) {
		sl->id = 0;
		sl->tid = SPAN_SLOT_LEFT;
	}
	st = bpf_task_storage_get(&span_stacks, p, 0, 0);
	if (!st || !st->depth)
		return;
	d = st->depth > SPAN_MAX_DEPTH ? SPAN_MAX_DEPTH : st->depth;
	now = bpf_ktime_get_ns();
	for (__u32 j = 0; j < SPAN_MAX_DEPTH; j++) {
		if (j >= d)
			break;
		count(CNT_SPAN_UNCLOSED);
		if (span_time)
			span_count(st, d - 1 - j, now);
	}
	st->depth = 0;
}

SEC("kprobe")
int on_span(struct pt_regs *ctx)
{
	__u32 cookie = (__u32)bpf_get_attach_cookie(ctx), pid = bpf_get_current_pid_tgid() >> 32;
	const struct span_site *site = bpf_map_lookup_elem(&span_sites, &cookie);
	struct span_stack *st;

	if (!site || !site->span)
		return 0;
	if (filter_pids && !pid_traced(pid, bpf_get_current_task_btf()))
		return 0;
	st = bpf_task_storage_get(&span_stacks, bpf_get_current_task_btf(), 0,
				  site->end ? 0 : BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st)
		return 0;
	if (site->end)
		span_end(st, site);
	else
		span_begin(ctx, st, site);
	span_publish_top((__u32)bpf_get_current_pid_tgid(), st);
	return 0;
}

#endif
