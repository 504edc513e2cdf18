/* SPDX-License-Identifier: GPL-2.0 */
/* Python frames of the sampled thread, walked in the kernel: its thread
 * state found among the interpreter's by native thread id, then its chain
 * of _PyInterpreterFrame, innermost first, as struct py_offsets lays out
 * the process's version (3.11 to 3.13), or its chain of PyFrameObject
 * (3.10). Each frame is one user read of
 * PY_FRAME_WINDOW bytes. The includer includes common.bpf.h and
 * stack.bpf.h first. */
#ifndef FLAMEBPF_PYTHON_BPF_H
#define FLAMEBPF_PYTHON_BPF_H

#include "python.h"

/* Filled by user space when it finds a Python process of a known layout. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct py_proc);
	__uint(max_entries, 4096);
} py_procs SEC(".maps");

/* Each thread's state, found once: the next samples check it (its
 * native thread id still the thread's) rather than walk the list again,
 * which bounds how many threads the walk may pass over. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16384);
} py_tstates SEC(".maps");

struct py_window {
	__u8 b[PY_FRAME_WINDOW + 64];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct py_window);
	__uint(max_entries, 1);
} py_win SEC(".maps");

struct py_walk {
	const struct py_proc *pp;
	struct sample_stack_event *st;
	struct py_window *win;
	__u64 at; /* the thread state, then the frame, being read */
	__u64 me; /* the thread's id as its state holds it (PY_WALK_PTHREAD) */
	__u32 tid;
	__u32 nr; /* words of st->ip written */
	bool found;
};

static __always_inline __u64 py_read_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

/* One thread state of the list: the sampled thread's, or the next. */
static long py_thread_step(__u32 i, void *data)
{
	struct py_walk *w = data;
	__u64 tid;

	if (!w->at)
		return 1;
	tid = py_read_ptr(w->at + w->pp->o.tstate_native_tid);
	if (tid == w->me) {
		w->found = true;
		return 1;
	}
	w->at = py_read_ptr(w->at + w->pp->o.tstate_next);
	return 0;
}

static __always_inline __u64 py_window_u64(const struct py_window *win, __u32 off)
{
	__u64 v;

	__builtin_memcpy(&v, &win->b[off & 63], sizeof(v));
	return v;
}

/* A shim frame (PY_WALK_SHIM): C entered the evaluation loop here, so the
 * frame recorded last (its callee), whose word is ip[n - 1], began a C
 * call's run. Before any frame that is ip[0], which the process's pid
 * overwrites. */
static __always_inline void py_mark_entry(struct py_walk *w, __u32 n)
{
	__u32 k = n - 1;

	if (k < SAMPLE_MAX_DEPTH)
		w->st->ip[k] |= PY_FRAME_ENTRY;
}

/* A frame's instruction as the record keeps it: its index in code units
 * (-1 before the first), and PY_FRAME_ENTRY where a C call of the loop
 * began with it. */
static __always_inline __u64 py_frame_word(const struct py_walk *w, const struct py_offsets *o,
					   __u64 code, __u8 entry)
{
	__u64 instr;
	__s32 lasti;

	if (o->flags & PY_WALK_FRAMEOBJ) {
		__builtin_memcpy(&lasti, &w->win->b[o->frame_instr & 127], sizeof(lasti));
		return (__u32)lasti | PY_FRAME_ENTRY;
	}
	instr = py_window_u64(w->win, o->frame_instr);
	/* a pointer into the code: a shift, not a division (BPF has no
	 * signed one) */
	instr = (__u32)(((__s64)(instr - code - o->code_adaptive)) >> 1);
	if (!(o->flags & PY_WALK_SHIM) && entry)
		instr |= PY_FRAME_ENTRY;
	return instr;
}

/* One frame: its code object and instruction into the record, then its
 * caller. */
static long py_frame_step(__u32 i, void *data)
{
	struct py_walk *w = data;
	const struct py_offsets *o = &w->pp->o;
	__u32 n = w->nr, size;
	__u64 code, word;
	__u8 entry;

	if (!w->at || n + 2 > SAMPLE_MAX_DEPTH)
		return 1;
	size = o->flags & PY_WALK_FRAMEOBJ ? PY_FRAMEOBJ_WINDOW : PY_FRAME_WINDOW;
	if (bpf_probe_read_user(w->win->b, size, (const void *)w->at))
		return 1;
	entry = w->win->b[o->frame_entry & 127];
	if ((o->flags & PY_WALK_SHIM) && entry == PY_OWNED_BY_CSTACK) {
		py_mark_entry(w, n);
		w->at = py_window_u64(w->win, o->frame_previous);
		return 0;
	}
	code = py_window_u64(w->win, o->frame_code);
	if (!code)
		return 1;
	word = py_frame_word(w, o, code, entry);
	if (n < SAMPLE_MAX_DEPTH - 1) {
		w->st->ip[n] = code;
		w->st->ip[n + 1] = word;
	}
	w->nr = n + 2;
	w->at = py_window_u64(w->win, o->frame_previous);
	return 0;
}

/* The sampled thread's state into w->at: the one found last time if it is
 * still the thread's, else from the interpreter's list. */
static __always_inline bool py_find_thread(struct py_walk *w)
{
	const struct py_offsets *o = &w->pp->o;
	__u64 *cached = bpf_map_lookup_elem(&py_tstates, &w->tid);
	__u64 interp;

	if (cached && *cached && py_read_ptr(*cached + o->tstate_native_tid) == w->me) {
		w->at = *cached;
		return true;
	}
	interp = py_read_ptr(w->pp->runtime + o->runtime_interp_head);
	if (!interp)
		return false;
	w->at = py_read_ptr(interp + o->interp_threads_head);
	bpf_loop(PY_MAX_THREADS, py_thread_step, w, 0);
	if (w->found)
		bpf_map_update_elem(&py_tstates, &w->tid, &w->at, BPF_ANY);
	return w->found;
}

/* The current thread's Python frames as a record id (send_stack()), for a
 * process of py_procs; STACK_ID_NONE when it has none or is not one. The
 * stack scratch buffer is free: the user stack was sent already. */
static __always_inline __u64 python_stack(__u32 pid, __u32 tid, __u32 drop_counter)
{
	const struct py_proc *pp = bpf_map_lookup_elem(&py_procs, &pid);
	struct py_walk w = { .tid = tid, .me = tid, .nr = 1 };
	struct task_struct *task;
	__u32 zero = 0;

	if (!pp)
		return STACK_ID_NONE;
	w.pp = pp;
	/* pthread_self(), glibc's thread pointer: the thread's fs base */
	task = bpf_get_current_task_btf();
	if (pp->o.flags & PY_WALK_PTHREAD)
		w.me = BPF_CORE_READ(task, thread.fsbase);
	count(CNT_PY_SAMPLES);
	w.st = stack_scratch();
	w.win = bpf_map_lookup_elem(&py_win, &zero);
	if (!w.st || !w.win)
		return STACK_ID_NONE;
	if (!py_find_thread(&w))
		return STACK_ID_NONE;
	w.at = py_read_ptr(w.at + pp->o.tstate_frame);
	if (pp->o.flags & PY_WALK_CFRAME)
		w.at = w.at ? py_read_ptr(w.at + pp->o.cframe_current) : 0;
	/* twice the frames recorded: shim frames take a step each */
	bpf_loop(2 * PY_MAX_FRAMES, py_frame_step, &w, 0);
	if (w.nr < 3)
		return STACK_ID_NONE;
	w.st->ip[0] = pid;
	count(CNT_PY_STACKS);
	return send_stack(w.st, w.nr, EV_PYSTACK, drop_counter);
}

/* An exec or an exit: the process's interpreter, if any, is gone. */
static __always_inline void python_forget(__u32 pid)
{
	bpf_map_delete_elem(&py_procs, &pid);
}

#endif
