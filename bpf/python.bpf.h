/* SPDX-License-Identifier: GPL-2.0 */
/* Python frames of the sampled thread, walked in the kernel: its thread
 * states found among the interpreters' by native thread id, then their
 * chains of _PyInterpreterFrame, innermost first, as struct py_offsets lays out
 * the process's version (3.11 to 3.13), or its chain of PyFrameObject
 * (3.10). A thread state's fields are one user read; so are the frames
 * of a thread's data stack (3.11+), up to PY_STACK_SPAN bytes at once, and
 * each frame elsewhere (3.10's, generators'). A record of frames not
 * sent lately is kept by the CPU and sent with others (py_stage()). The
 * includer includes common.bpf.h and stack.bpf.h first. */
#ifndef FLAMEBPF_PYTHON_BPF_H
#define FLAMEBPF_PYTHON_BPF_H

#include "python.h"

/* A measuring knob (FLAMEBPF_PY_TIME=1, tools/bench_python.sh): the walk's
 * own time summed into CNT_PY_WALK_NS. Off, the verifier drops the clock
 * reads as dead code. */
const volatile bool time_python = false;

/* Bumped by user space when it lets go of stacks no sample used lately
 * (--continuous): the ids of the records each CPU sent (py_cached.sent)
 * then no longer count, and a record a sample takes again is sent again. */
volatile __u32 py_sent_gen = 0;

/* Where the records kept are sent, apart from the ring buffer of
 * everything else: a few pages written over and over stay warmer. A batch
 * of 900 bytes took 2.5-9 us at 99 Hz here in the 256 KiB ring, 0.7-2.9
 * in one of 8-16 KiB. Sized by user space; when it is full, batches go to
 * the large one. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 15);
} py_events SEC(".maps");

/* Set by user space once py_flush ran on a CPU: new records are then kept
 * and sent together (py_stage()), else each alone. */
volatile bool py_staging = false;

/* Filled by user space when it finds a Python process of a known layout. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct py_proc);
	__uint(max_entries, 4096);
} py_procs SEC(".maps");

/* A thread's states, found once, newest interpreter first (CPython links
 * a new one at the list's head): a thread that runs code in a
 * sub-interpreter it made has a state there too, whose frames lie above
 * those of its state that called into it. The next samples check the
 * first state (its native thread id still the thread's) and the list's
 * head (unchanged: no interpreter made or ended since) with its list of
 * thread states (no state made in the newest interpreter since: a thread
 * sampled between making an interpreter and its state there kept the
 * states found then for good, and the sub-interpreter's frames were never
 * seen) rather than walk the lists again, which bounds how many threads
 * the walk may pass over. */
struct py_thread {
	__u64 head;		  /* _PyRuntime.interpreters.head when found */
	__u64 threads;		  /* ... and head's threads.head then */
	__u64 ts[PY_MAX_TSTATES]; /* 0 past the last */
};

/* In the task's own storage: a look there costs a few loads where a hash
 * map's lookup cost 200 ns a sample here; the kernel frees it with the
 * thread. Each CPU keeps a copy of the threads it sampled lately
 * (py_window.cached), in front: at 99 Hz the storage's chain of pointers
 * is cold, 500 ns a sample here against 100 at 999 Hz. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct py_thread);
} py_tstates SEC(".maps");

/* What the walk reads and counts as it goes, in the window's per-CPU
 * value rather than on the stack: the verifier tracks no map value's
 * contents, so the walk's loop callbacks are checked once rather than for
 * every value these take (five times the sampler's verification). */
struct py_vars {
	__u64 interp; /* the interpreter whose states are being read */
	__u64 at;     /* the thread state, then the frame, being read */
	__u64 me;     /* the thread's id as its state holds it (PY_WALK_PTHREAD) */
	__u64 lo, hi; /* the user bytes in the window */
	/* the state read last: its thread's id, its frame (or _PyCFrame), and
	 * its data stack's current chunk up to its top */
	__u64 ts_id, ts_frame, chunk, top;
	__u32 ts_first; /* the fields are the thread's first state's */
	__u32 nr;	/* words of st->ip written */
	__u32 found;	/* states of pt found, then walked */
};

/* A thread's states as this CPU found them last, and the ids of its
 * records this CPU sent last (a thread in a C call, or blocked, repeats
 * its record). A thread is known by its task_struct and its ids together:
 * either alone may be another thread's later (pid_max is 32768 here). */
#define PY_SENT 4

struct py_cached {
	__u64 task;
	__u64 id; /* pid_tgid */
	struct py_thread t;
	__u64 sent[PY_SENT];
	__u32 sent_gen; /* py_sent_gen when they were sent */
	__u32 unlooked; /* samples since the interpreters' list's head was read */
};

/* A thread's states kept in its slot are checked against the list's head
 * on one sample in this many: at 99 Hz the head's read is a cold one
 * (100 ns), and a sub-interpreter the thread made since is seen that many
 * of its samples later at most. */
#define PY_HEAD_EVERY 8

#define PY_CACHED 16 /* per CPU, a thread in the slot its id's low bits pick */

/* What was read last: a thread state's fields, or frames, the bytes at
 * user address lo to hi (empty: lo = hi). Offsets into it are masked
 * (a field read lies within what was read). Beside them, the threads this
 * CPU sampled lately. */
struct py_window {
	union {
		__u8 b[PY_STACK_SPAN];
		__u64 q[PY_STACK_SPAN / 8];
	};
	struct py_vars v;
	struct py_cached cached[PY_CACHED];
	/* new records kept to be sent together (py_stage()) */
	__u64 stage_since; /* when the first was kept */
	__u32 stage_records;
	/* being sent: a sample that interrupts py_flush sends its record alone */
	__u32 stage_busy;
	/* batches the ring buffer had no room for: their records, no longer
	 * sent, are sent again (py_send()) */
	__u32 stage_lost;
	struct py_batch_event stage;
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
	struct py_cached *c; /* the thread's slot of py_window.cached: its states */
	struct task_struct *task;
};

static __always_inline __u64 py_read_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

/* One step over every interpreter's thread states: the sampled thread's
 * kept, then the next interpreter's (a thread has one state in each at
 * most), or the next state. */
static long py_thread_step(__u32 i, void *data)
{
	struct py_walk *w = data;
	const struct py_offsets *o = &w->pp->o;
	__u32 n = w->win->v.found;

	if (!w->win->v.at) {
		w->win->v.interp = py_read_ptr(w->win->v.interp + o->interp_next);
		if (!w->win->v.interp)
			return 1;
		w->win->v.at = py_read_ptr(w->win->v.interp + o->interp_threads_head);
		return 0;
	}
	if (py_read_ptr(w->win->v.at + o->tstate_native_tid) != w->win->v.me) {
		w->win->v.at = py_read_ptr(w->win->v.at + o->tstate_next);
		return 0;
	}
	if (n >= PY_MAX_TSTATES)
		return 1;
	w->c->t.ts[n] = w->win->v.at;
	w->win->v.found = n + 1;
	w->win->v.at = 0;
	return 0;
}

/* The word at off in the window: the fields read are words at offsets
 * that are multiples of 8 in structures that are 8-aligned, read in one
 * load rather than byte by byte. */
static __always_inline __u64 py_window_u64(const struct py_window *win, __u32 off)
{
	return win->q[(off / 8) & (PY_STACK_SPAN / 8 - 1)];
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
					   __u32 at, __u64 code, __u8 entry)
{
	__u32 off = at + (o->frame_instr & 127);
	__u64 instr;

	/* an int, f_lasti */
	if (o->flags & PY_WALK_FRAMEOBJ)
		return (__u32)(py_window_u64(w->win, off) >> (off & 4) * 8) | PY_FRAME_ENTRY;
	instr = py_window_u64(w->win, at + (o->frame_instr & 63));
	/* a pointer into the code: a shift, not a division (BPF has no
	 * signed one) */
	instr = (__u32)(((__s64)(instr - code - o->code_adaptive)) >> 1);
	if (!(o->flags & PY_WALK_SHIM) && entry)
		instr |= PY_FRAME_ENTRY;
	return instr;
}

/* User bytes lo to hi (at most PY_STACK_SPAN) into the window. */
static __always_inline bool py_read_span(struct py_walk *w, __u64 lo, __u64 hi)
{
	__u64 len = hi - lo;

	w->win->v.lo = w->win->v.hi = 0;
	if (!len || len > PY_STACK_SPAN || bpf_probe_read_user(w->win->b, len, (const void *)lo))
		return false;
	w->win->v.lo = lo;
	w->win->v.hi = hi;
	return true;
}

/* Where frame w->win->v.at's size bytes begin in the window, read now unless
 * they are there already: with the frames below it in its data stack
 * when it lies in the current chunk (all of them but generators' and
 * older chunks'), else alone. -1 when it cannot be read. */
static __always_inline int py_frame_bytes(struct py_walk *w, __u32 size)
{
	__u64 at = w->win->v.at, end = at + size, lo = at;

	if (at >= w->win->v.lo && end <= w->win->v.hi)
		return (int)(at - w->win->v.lo);
	if (at > w->win->v.chunk && end <= w->win->v.top)
		lo = end - w->win->v.chunk > PY_STACK_SPAN ? end - PY_STACK_SPAN : w->win->v.chunk;
	/* a page of the data stack never touched: the frame alone */
	if (!py_read_span(w, lo, end) && (lo == at || !py_read_span(w, at, end)))
		return -1;
	return (int)(at - w->win->v.lo);
}

/* One frame: its code object and instruction into the record, then its
 * caller. */
static long py_frame_step(__u32 i, void *data)
{
	struct py_walk *w = data;
	const struct py_offsets *o = &w->pp->o;
	__u32 n = w->win->v.nr, size;
	__u64 code, word;
	__u8 entry;
	__u32 at;
	int got;

	if (!w->win->v.at || n + 2 > SAMPLE_MAX_DEPTH)
		return 1;
	size = o->flags & PY_WALK_FRAMEOBJ ? PY_FRAMEOBJ_WINDOW : PY_FRAME_WINDOW;
	got = py_frame_bytes(w, size);
	if (got < 0)
		return 1;
	at = (__u32)got & (PY_STACK_SPAN - 1);
	entry = w->win->b[(at + (o->frame_entry & 127)) & (PY_STACK_SPAN - 1)];
	if ((o->flags & PY_WALK_SHIM) && entry == PY_OWNED_BY_CSTACK) {
		py_mark_entry(w, n);
		w->win->v.at = py_window_u64(w->win, at + (o->frame_previous & 63));
		return 0;
	}
	code = py_window_u64(w->win, at + (o->frame_code & 63));
	if (!code)
		return 1;
	word = py_frame_word(w, o, at, code, entry);
	if (n < SAMPLE_MAX_DEPTH - 1) {
		w->st->ip[n] = code;
		w->st->ip[n + 1] = word;
	}
	w->win->v.nr = n + 2;
	w->win->v.at = py_window_u64(w->win, at + (o->frame_previous & 63));
	return 0;
}

/* The fields of thread state ts the walk reads (py_walk.ts_id to top), in
 * one read of the span they lie in. */
static __always_inline bool py_read_tstate(struct py_walk *w, __u64 ts)
{
	const struct py_offsets *o = &w->pp->o;
	__u32 id = o->tstate_native_tid, frame = o->tstate_frame, ds = o->tstate_datastack;
	__u32 lo = id < frame ? id : frame, hi = (id > frame ? id : frame) + 8;

	if (ds) {
		lo = ds < lo ? ds : lo;
		hi = ds + 16 > hi ? ds + 16 : hi;
	}
	if (hi - lo > PY_TSTATE_WINDOW || !py_read_span(w, ts + lo, ts + hi))
		return false;
	w->win->v.ts_id = py_window_u64(w->win, id - lo);
	w->win->v.ts_frame = py_window_u64(w->win, frame - lo);
	w->win->v.chunk = ds ? py_window_u64(w->win, ds - lo) : 0;
	w->win->v.top = ds ? py_window_u64(w->win, ds + 8 - lo) : 0;
	/* the window holds no frame */
	w->win->v.lo = w->win->v.hi = 0;
	return true;
}

/* The frames of the thread's states one after the other: where one's
 * chain ends, the next state's innermost frame. The first state was
 * checked already; a later one whose interpreter ended (the list's head
 * unchanged) is no longer the thread's. */
static long py_chain_step(__u32 i, void *data)
{
	struct py_walk *w = data;
	const struct py_offsets *o = &w->pp->o;
	__u32 c = w->win->v.found;
	__u64 ts;

	if (w->win->v.at)
		return py_frame_step(i, data);
	if (c >= PY_MAX_TSTATES)
		return 1;
	ts = w->c->t.ts[c];
	if (!ts)
		return 1;
	w->win->v.found = c + 1;
	if (!(c == 0 && w->win->v.ts_first) && !py_read_tstate(w, ts))
		return 0;
	if (c && w->win->v.ts_id != w->win->v.me)
		return 0;
	w->win->v.at = w->win->v.ts_frame;
	if (o->flags & PY_WALK_CFRAME)
		w->win->v.at = w->win->v.at ? py_read_ptr(w->win->v.at + o->cframe_current) : 0;
	return 0;
}

/* Whether the states in w->c are still the thread's: the first one's
 * thread id unchanged (its fields are read into the window) and no
 * interpreter made or ended since, nor a state made in the newest (the
 * list's head and its threads' head unchanged). */
static __always_inline bool py_states_kept(struct py_walk *w, __u64 head, __u64 threads)
{
	const struct py_thread *t = &w->c->t;

	if (t->head != head || t->threads != threads || !t->ts[0] || !py_read_tstate(w, t->ts[0]) ||
	    w->win->v.ts_id != w->win->v.me)
		return false;
	w->win->v.ts_first = 1;
	return true;
}

/* The sampled thread's states into w->c, its slot of this CPU's cache:
 * those found last time if they are still its own, else from the
 * interpreters' lists, and kept in its storage too. */
static __always_inline bool py_find_thread(struct py_walk *w, __u64 id)
{
	const struct py_offsets *o = &w->pp->o;
	struct py_cached *c = &w->win->cached[(__u32)id & (PY_CACHED - 1)];
	bool mine = c->task == (__u64)w->task && c->id == id;
	struct py_thread *pt;
	__u64 head, threads;

	w->c = c;
	if (mine && ++c->unlooked % PY_HEAD_EVERY && py_states_kept(w, c->t.head, c->t.threads))
		return true;
	/* looked up afresh from the list as it is now: the head kept may be
	 * an interpreter's that ended */
	head = py_read_ptr(w->pp->runtime + o->runtime_interp_head);
	if (!head)
		return false;
	threads = py_read_ptr(head + o->interp_threads_head);
	if (mine && py_states_kept(w, head, threads))
		return true;
	c->task = (__u64)w->task;
	c->id = id;
	c->unlooked = 0;
	pt = bpf_task_storage_get(&py_tstates, w->task, NULL, 0);
	if (pt) {
		c->t = *pt;
		if (py_states_kept(w, head, threads))
			return true;
	} else {
		pt = bpf_task_storage_get(&py_tstates, w->task, NULL,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);
	}
	c->t.head = head;
	c->t.threads = threads;
	for (int k = 0; k < PY_MAX_TSTATES; k++)
		c->t.ts[k] = 0;
	w->win->v.interp = head;
	w->win->v.at = threads;
	bpf_loop(PY_MAX_THREADS, py_thread_step, w, 0);
	/* without storage, only this CPU's copy knows them */
	if (pt)
		*pt = c->t;
	return w->win->v.found > 0;
}

/* The records this CPU kept, sent as one. */
static __always_inline void py_stage_send(struct py_window *win, __u32 drop_counter)
{
	__u64 n = win->stage.bytes;

	if (!n || n > PY_STAGE_BYTES)
		goto out;
	win->stage_busy = 1;
	barrier();
	win->stage.type = EV_PYSTACKS;
	n += offsetof(struct py_batch_event, rec);
	if (bpf_ringbuf_output(&py_events, &win->stage, n, BPF_RB_NO_WAKEUP) &&
	    bpf_ringbuf_output(&events, &win->stage, n, BPF_RB_NO_WAKEUP)) {
		count_by(drop_counter, win->stage_records);
		win->stage_lost++;
	}
out:
	win->stage.bytes = 0;
	win->stage_records = 0;
	barrier();
	win->stage_busy = 0;
}

/* Sends what this CPU kept once the first is PY_STAGE_NS old, on a sample
 * that keeps nothing new (a thread repeating its records would otherwise
 * hold them until user space asks, 200 ms). */
static __always_inline void py_stage_due(struct py_window *win, __u32 drop_counter)
{
	if (win->stage.bytes && bpf_ktime_get_ns() - win->stage_since >= PY_STAGE_NS)
		py_stage_send(win, drop_counter);
}

/* Keeps the new record of nr words in st (its id and type set) to be sent
 * with others. False when it cannot be, or when task's process is younger
 * than PY_STAGE_AFTER_NS: it is to be sent alone. A
 * program that interrupts this one on its CPU (a flush from user space)
 * sends what was kept before; the record then goes out again with the
 * next ones, and user space keeps the first. */
static __always_inline bool py_stage(struct py_window *win, struct sample_stack_event *st,
				     struct task_struct *task, __u32 drop_counter)
{
	__u64 len = offsetof(struct sample_stack_event, ip) + (__u64)st->nr * 8;
	__u64 at, now;

	if (!py_staging || win->stage_busy || len > sizeof(*st))
		return false;
	now = bpf_ktime_get_ns();
	if (now - BPF_CORE_READ(task, group_leader, start_time) < PY_STAGE_AFTER_NS)
		return false;
	at = win->stage.bytes;
	if (at > PY_STAGE_BYTES - sizeof(*st)) {
		py_stage_send(win, drop_counter);
		at = 0;
	}
	if (!at)
		win->stage_since = now;
	if (bpf_probe_read_kernel(win->stage.rec + at, len, st))
		return false;
	win->stage.bytes = at + len;
	win->stage_records++;
	if (now - win->stage_since >= PY_STAGE_NS)
		py_stage_send(win, drop_counter);
	return true;
}

/* The record of nr words in st as send_stack() returns it, sent unless
 * this CPU sent it for the thread lately (py_cached.sent): a thread in a
 * loop, a C call or blocked repeats its few records. A per-CPU table of
 * the last 1024 ids, looked at every sample, cost 300 ns a sample at
 * 99 Hz here, more than it saved. */
static __always_inline __u64 py_send(struct py_walk *w, __u32 nr, __u32 drop_counter)
{
	__u64 *sent = w->c->sent, id;
	/* either moved: what was sent counts no longer */
	__u32 gen = py_sent_gen + w->win->stage_lost;

	if (w->c->sent_gen != gen) {
		for (int k = 0; k < PY_SENT; k++)
			sent[k] = 0;
		w->c->sent_gen = gen;
	}
	if (nr > SAMPLE_MAX_DEPTH)
		nr = SAMPLE_MAX_DEPTH;
	w->st->nr = nr;
	id = hash_ips(w->st);
	for (int k = 0; k < PY_SENT; k++) {
		if (sent[k] == id) {
			py_stage_due(w->win, drop_counter);
			return id;
		}
	}
	w->st->type = EV_PYSTACK;
	w->st->id = id;
	if (!py_stage(w->win, w->st, w->task, drop_counter) &&
	    !output_record(w->st, nr, drop_counter))
		return STACK_ID_LOST;
	for (int k = PY_SENT - 1; k > 0; k--)
		sent[k] = sent[k - 1];
	sent[0] = id;
	return id;
}

/* The frames of pid's thread tid, the current one, of a process of
 * py_procs, as python_stack() returns them, the innermost one's
 * instruction into *instr. A global function: the verifier checks it
 * once, not on every path of the program that calls it (the walk's loops
 * made five times the sampler's verification). */
__noinline __u64 py_walk_stack(const struct py_proc *pp, __u32 pid, __u32 tid, __u32 drop_counter,
			       __u32 *instr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct py_walk w = { .pp = pp, .task = task };
	__u32 zero = 0;

	if (!pp)
		return STACK_ID_NONE;
	count(CNT_PY_SAMPLES);
	w.st = stack_scratch();
	w.win = bpf_map_lookup_elem(&py_win, &zero);
	if (!w.st || !w.win)
		return STACK_ID_NONE;
	w.win->v = (struct py_vars){ .me = tid, .nr = 1 };
	/* pthread_self(), glibc's thread pointer: the thread's fs base */
	if (pp->o.flags & PY_WALK_PTHREAD)
		w.win->v.me = BPF_CORE_READ(task, thread.fsbase);
	if (!py_find_thread(&w, (__u64)pid << 32 | tid))
		return STACK_ID_NONE;
	w.win->v.at = 0;
	w.win->v.found = 0;
	/* twice the frames recorded: shim frames take a step each */
	bpf_loop(2 * PY_MAX_FRAMES + PY_MAX_TSTATES, py_chain_step, &w, 0);
	if (w.win->v.nr < 3)
		return STACK_ID_NONE;
	w.st->ip[0] = pid;
	if (instr)
		*instr = (__u32)w.st->ip[2];
	w.st->ip[2] &= ~PY_INSTR_MASK;
	count(CNT_PY_STACKS);
	return py_send(&w, w.win->v.nr, drop_counter);
}

/* The current thread's Python frames as a record id (send_stack()), for a
 * process of py_procs, and the innermost one's instruction into *instr;
 * STACK_ID_NONE when it has none or is not one. The stack scratch buffer
 * is free: the user stack was sent already. */
static __always_inline __u64 python_stack(__u32 pid, __u32 tid, __u32 drop_counter, __u32 *instr)
{
	const struct py_proc *pp = bpf_map_lookup_elem(&py_procs, &pid);
	__u64 t0 = 0, id;

	/* the common case, not a Python process, without the call */
	if (!pp)
		return STACK_ID_NONE;
	if (time_python)
		t0 = bpf_ktime_get_ns();
	id = py_walk_stack(pp, pid, tid, drop_counter, instr);
	if (time_python)
		count_by(CNT_PY_WALK_NS, bpf_ktime_get_ns() - t0);
	return id;
}

/* Sends the records the CPU it runs on kept: run by user space on each
 * CPU (BPF_F_TEST_RUN_ON_CPU) when it drains the ring buffer for good,
 * and now and then for a CPU no sample came to since. */
SEC("raw_tp")
int py_flush(void *ctx)
{
	__u32 zero = 0;
	struct py_window *win = bpf_map_lookup_elem(&py_win, &zero);

	if (win)
		py_stage_send(win, CNT_STACKS_DROPPED);
	return 0;
}

/* An exec or an exit: the process's interpreter, if any, is gone. */
static __always_inline void python_forget(__u32 pid)
{
	bpf_map_delete_elem(&py_procs, &pid);
}

#endif
