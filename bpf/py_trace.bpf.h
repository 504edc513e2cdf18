/* SPDX-License-Identifier: GPL-2.0 */
/* `-f py:REGEX`: Python calls on the shadow stack of bpf/trace.bpf.c. A
 * Python frame's entry there holds the frame's address where a native
 * call holds its stack slot (sp), and its caller's frame where a native
 * call holds its probe's address (ip). An exception leaves frames without
 * a return: they are found left when the next Python call's chain of
 * callers does not hold them, or when a frame below them returns.
 * CPython 3.10's calls (py310_enter) are native calls of its evaluation
 * function, pushed and ended as native calls are. The includer defines the
 * shadow stack, close_frame(), unwind_to() and leave() first. */
#ifndef FLAMEBPF_PY_TRACE_BPF_H
#define FLAMEBPF_PY_TRACE_BPF_H

#include "py_trace.h"

const volatile struct py_trace_layout py_lay = {};

/* The next function id of a matching code object: read, moved on, and
 * claimed in py_ids (an insert only one CPU can win), so that two CPUs
 * never number two code objects alike; a race costs a gap. BPF v1 has no
 * atomic add that returns the old value. */
__u32 py_next_id = 0;

#define PY_ID_TRIES 8

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 65536);
} py_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct py_dfa);
	__uint(max_entries, 1);
} py_dfa SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct py_code_key);
	__type(value, struct py_code_val);
	__uint(max_entries, 65536);
} py_codes SEC(".maps");

struct py_name {
	__u8 b[PY_NAME_MAX * 2]; /* the half read; masked sizes stay within */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct py_name);
	__uint(max_entries, 1);
} py_name_buf SEC(".maps");

/* How far up a new call's chain of callers a frame on the shadow stack is
 * looked for (one read each), when its direct caller is not that frame. */
#define PY_CHAIN_MAX 16

struct py_chain {
	__u64 a[PY_CHAIN_MAX]; /* the callers, nearest first; 0 past the root */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct py_chain);
	__uint(max_entries, 1);
} py_chain_buf SEC(".maps");

static __always_inline __u64 py_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

struct dfa_run {
	const struct py_dfa *dfa;
	const struct py_name *name;
	__u32 len, st;
	bool matched;
};

static long dfa_step(__u32 i, void *data)
{
	struct dfa_run *r = data;
	__u32 k;

	if (i >= r->len)
		return 1;
	k = r->st * PY_DFA_CLASSES + r->dfa->cls[r->name->b[i & (PY_NAME_MAX - 1)]];
	r->st = r->dfa->next[k & (PY_DFA_STATES * PY_DFA_CLASSES - 1)] & (PY_DFA_STATES - 1);
	if (r->dfa->accept[r->st] & PY_DFA_MATCHED) {
		r->matched = true;
		return 1;
	}
	return 0;
}

/* Whether the compact ASCII string at s matches; names that are not such
 * a string, or longer than PY_NAME_MAX and not decided by then, do not
 * (counted). */
static __always_inline bool py_name_matches(__u64 s, __u32 *name_len)
{
	__u32 zero = 0, state = 0;
	struct dfa_run r = {};
	__u64 len = 0, n;

	r.dfa = bpf_map_lookup_elem(&py_dfa, &zero);
	r.name = bpf_map_lookup_elem(&py_name_buf, &zero);
	if (!r.dfa || !r.name || !s)
		return false;
	if (bpf_probe_read_user(&state, sizeof(state), (void *)(s + py_lay.str_state)) ||
	    bpf_probe_read_user(&len, sizeof(len), (void *)(s + py_lay.str_length)) ||
	    !(state & (1 << 5)) || !(state & (1 << 6))) {
		count(TCNT_PY_UNREAD);
		return false;
	}
	n = len;
	if (n > PY_NAME_MAX)
		n = PY_NAME_MAX;
	r.len = n;
	*name_len = len;
	barrier_var(n); /* keep the mask: the verifier loses the clamp */
	if (bpf_probe_read_user((void *)r.name->b, n & (PY_NAME_MAX * 2 - 1),
				(void *)(s + py_lay.str_ascii_data))) {
		count(TCNT_PY_UNREAD);
		return false;
	}
	if (r.dfa->accept[0] & PY_DFA_MATCHED)
		return true;
	bpf_loop(PY_NAME_MAX, dfa_step, &r, 0);
	if (r.matched)
		return true;
	if (len > PY_NAME_MAX) {
		count(TCNT_PY_UNREAD);
		return false;
	}
	return r.dfa->accept[r.st & (PY_DFA_STATES - 1)] & PY_DFA_AT_END;
}

/* The function id of the code object at code when its name matches, else
 * -1: decided once per code object (and again when another object takes
 * its address), so every call of a matching function is counted. */
/* The length of the compact ASCII string at s, read into buf (max bytes,
 * a power of two); -1 when it is not one or is not shorter. */
static __always_inline __s32 py_ascii(__u64 s, char *buf, __u32 max)
{
	__u32 state = 0;
	__u64 len = 0;

	if (!s || bpf_probe_read_user(&state, sizeof(state), (void *)(s + py_lay.str_state)) ||
	    bpf_probe_read_user(&len, sizeof(len), (void *)(s + py_lay.str_length)) ||
	    !(state & (1 << 5)) || !(state & (1 << 6)) || len >= max)
		return -1;
	if (bpf_probe_read_user(buf, len & (max - 1), (void *)(s + py_lay.str_ascii_data)))
		return -1;
	return len;
}

/* Tells user space of a matching code object, with its names. */
static __always_inline void py_send_code(__u32 pid, __u64 code, __u32 id,
					 const struct py_name *name, __u32 name_len)
{
	struct py_code_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);

	if (!ev) {
		count(TCNT_PY_NAMES_LOST);
		return;
	}
	ev->type = EV_PY_CODE;
	ev->pid = pid;
	ev->code = code;
	ev->id = id;
	ev->firstlineno = 0;
	bpf_probe_read_user(&ev->firstlineno, sizeof(ev->firstlineno),
			    (void *)(code + py_lay.co_firstlineno));
	ev->name_len = name_len <= PY_NAME_MAX ? name_len : -1;
	__builtin_memcpy(ev->name, name->b, PY_NAME_MAX);
	ev->file_len = py_ascii(py_ptr(code + py_lay.co_filename), ev->file, PY_FILE_MAX);
	bpf_ringbuf_submit(ev, 0);
}

/* A function id of its own, or -1 (all tries lost, or the ids used up). */
static __always_inline __s64 py_new_id(void)
{
	__u8 one = 1;

	for (int i = 0; i < PY_ID_TRIES; i++) {
		__u32 id = *(volatile __u32 *)&py_next_id;

		__sync_fetch_and_add(&py_next_id, 1);
		if (id <= TRACE_FUNC_MASK && !bpf_map_update_elem(&py_ids, &id, &one, BPF_NOEXIST))
			return id;
	}
	return -1;
}

static __always_inline __s64 py_func_of(__u32 pid, __u64 code)
{
	struct py_code_key k = { .pid = pid, .code = code };
	struct py_code_val *v = bpf_map_lookup_elem(&py_codes, &k), nv = {};
	const struct py_name *name;
	__u32 zero = 0, len = 0;
	__s64 id;

	nv.name = py_ptr(code + py_lay.co_qualname);
	if (v && v->name == nv.name)
		return v->match ? (__s64)v->id : -1;
	count(TCNT_PY_CODES);
	nv.match = py_name_matches(nv.name, &len);
	name = bpf_map_lookup_elem(&py_name_buf, &zero);
	id = nv.match && name ? py_new_id() : -1;
	if (nv.match && id < 0) {
		count(TCNT_PY_NAMES_LOST); /* no id: not traced, said as lost */
		nv.match = 0;
	}
	if (nv.match && name) {
		count(TCNT_PY_MATCHED);
		nv.id = id;
		py_send_code(pid, code, nv.id, name, len);
	}
	bpf_map_update_elem(&py_codes, &k, &nv, BPF_ANY);
	return nv.match ? (__s64)nv.id : -1;
}

/* Closes the top frame of sh, left by an exception. */
static __always_inline void py_pop_left(struct shadow *sh, __u64 now, __u64 id)
{
	__u32 d = sh->depth;

	if (!d || d > TRACE_MAX_DEPTH)
		return;
	close_frame(sh, d - 1, now, id, 0, CALL_UNFINISHED);
	sh->depth = d - 1;
	count(TCNT_PY_UNWOUND);
}

struct py_resync {
	struct shadow *sh;
	struct py_chain *chain;
	__u64 now, id;
};

static long chain_step(__u32 i, void *data)
{
	struct py_chain *c = ((struct py_resync *)data)->chain;
	__u32 k = i;
	__u64 prev;

	if (k == 0 || k >= PY_CHAIN_MAX)
		return k >= PY_CHAIN_MAX;
	/* masked after a barrier: the verifier loses the bound of k */
	barrier_var(k);
	prev = c->a[(k - 1) & (PY_CHAIN_MAX - 1)];
	c->a[k & (PY_CHAIN_MAX - 1)] = prev ? py_ptr(prev + py_lay.frame_previous) : 0;
	return !c->a[k & (PY_CHAIN_MAX - 1)];
}

/* Where x is among the callers: its index, PY_CHAIN_MAX when not there
 * (*ended: the chain was read to its root). */
static __always_inline __u32 chain_find(const struct py_chain *c, __u64 x, bool *ended)
{
	for (__u32 k = 0; k < PY_CHAIN_MAX; k++) {
		if (!c->a[k]) {
			*ended = true;
			return PY_CHAIN_MAX;
		}
		if (c->a[k] == x)
			return k;
	}
	return PY_CHAIN_MAX;
}

/* The top frame is a caller of the new call: stop. Else, if the chain
 * shows it gone (its own caller comes first, or the chain ends without
 * it), pop it. Unsure (the chain is longer than was read): keep it. */
static long resync_step(__u32 i, void *data)
{
	struct py_resync *r = data;
	__u32 d = r->sh->depth, at, up;
	bool ended = false;

	if (!d || d > TRACE_MAX_DEPTH)
		return 1;
	at = chain_find(r->chain, FR(r->sh, d - 1).sp, &ended);
	if (at < PY_CHAIN_MAX) {
		up = chain_find(r->chain, FR(r->sh, d - 1).ip, &ended);
		if (up > at)
			return 1;
	} else if (!ended && chain_find(r->chain, FR(r->sh, d - 1).ip, &ended) == PY_CHAIN_MAX &&
		   !ended) {
		return 1;
	}
	py_pop_left(r->sh, r->now, r->id);
	return 0;
}

/* Before a call of frame (whose caller is prev) is pushed: the frames on
 * top that an exception left are closed. */
static __always_inline void py_resync(struct shadow *sh, __u64 prev, __u64 now, __u64 id)
{
	struct py_resync r = { .sh = sh, .now = now, .id = id };
	__u32 zero = 0, d = sh->depth;

	if (!d || d > TRACE_MAX_DEPTH || FR(sh, d - 1).sp == prev)
		return;
	r.chain = bpf_map_lookup_elem(&py_chain_buf, &zero);
	if (!r.chain)
		return;
	r.chain->a[0] = prev;
	bpf_loop(PY_CHAIN_MAX, chain_step, &r, 0);
	bpf_loop(TRACE_MAX_DEPTH, resync_step, &r, 0);
}

/* The RESUME of the call on top of sh runs again: it found the code's
 * instrumentation behind the interpreter's (sys.monitoring, a tracer or a
 * profiler switched on or off), brought it up to date and went back to run
 * it, with the code's version changed. A Python frame keeps the version
 * it entered with in its ustack (it has no user stack: --full-stack is
 * refused). Another call of the code in a frame at the same place (the
 * one on top was left by an exception) finds the same version. */
static __always_inline bool py_again(struct shadow *sh, __u64 frame, __u64 prev, __s64 func,
				     __u64 version)
{
	__u32 d = sh->depth;

	if (!d || d > TRACE_MAX_DEPTH || FR(sh, d - 1).sp != frame || FR(sh, d - 1).ip != prev ||
	    FR(sh, d - 1).func != func || FR(sh, d - 1).ustack == version)
		return false;
	FR(sh, d - 1).ustack = version;
	return true;
}

/* Pushes a Python call of function func on sh, the call identified by sp
 * and ip as the exits that end it look for it; returns 1 when it is too
 * deep to be traced. */
static __always_inline int py_push(struct shadow *sh, __s64 func, __u64 now, __u64 sp, __u64 ip,
				   __u64 version)
{
	struct call_start c = { .sp = sp, .ip = ip, .ustack = version };
	__u32 d = sh->depth;

	if (d >= TRACE_MAX_DEPTH) {
		count(TCNT_TOO_DEEP);
		return 1;
	}
	push_call(sh, d, func, now, &c);
	return 0;
}

/* The function id of frame's call when it is traced, else -1; the thread's
 * shadow stack in *sh, the frame's code object in *code. */
static __always_inline __s64 py_traced(__u64 frame, __u64 id, struct shadow **sh, __u64 *code)
{
	*sh = shadow_of(id, true);
	*code = *sh ? py_ptr(frame + py_lay.frame_code) : 0;
	return *code ? py_func_of(id >> 32, *code) : -1;
}

/* RESUME (and RESUME_CHECK when it does not deoptimise into RESUME): the
 * frame in the cookie's register starts or resumes (a generator's,
 * a coroutine's, after a yield or an await: a call, as Python's profilers
 * count them). */
SEC("kprobe")
int on_py_entry(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	__u64 cookie = bpf_get_attach_cookie(ctx), code, prev, version;
	__u64 frame = reg_value(ctx, cookie & PY_COOKIE_REG);
	__u32 cond = cookie >> PY_COOKIE_COND_SHIFT;
	struct shadow *sh;
	__s64 func;

	split_mark();

	if (stopping || ((cond & PY_COOKIE_FALLS) && jcc_taken(cond & 15, ctx->flags)))
		return 0;
	func = py_traced(frame, id, &sh, &code);
	if (func < 0)
		return 0;
	prev = py_ptr(frame + py_lay.frame_previous);
	version = py_lay.co_version ? py_ptr(code + py_lay.co_version) : 0;
	if (py_again(sh, frame, prev, func, version))
		return 0;
	py_resync(sh, prev, now, id);
	py_push(sh, func, now, frame, prev, version);
	return 0;
}

struct py_find {
	struct shadow *sh;
	__u64 frame, now, id;
	__u32 at; /* the depth below which the frame is, 0: not there */
};

static long find_step(__u32 i, void *data)
{
	struct py_find *f = data;
	__u32 d = f->sh->depth;

	if (i + 1 >= d || d > TRACE_MAX_DEPTH)
		return 1;
	if (FR(f->sh, d - 2 - i).sp == f->frame) {
		f->at = d - 1 - i;
		return 1;
	}
	return 0;
}

/* Pops the frames above depth f->at: an exception left them. */
static long pop_step(__u32 i, void *data)
{
	struct py_find *f = data;

	if (f->sh->depth <= f->at || f->sh->depth > TRACE_MAX_DEPTH)
		return 1;
	py_pop_left(f->sh, f->now, f->id);
	return 0;
}

/* RETURN_VALUE, YIELD_VALUE: the frame in register cookie returns or
 * suspends. Its call ends if traced; calls above it, left by an exception,
 * end too. */
SEC("kprobe")
int on_py_exit(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	__u64 frame = reg_value(ctx, bpf_get_attach_cookie(ctx) & PY_COOKIE_REG);
	struct shadow *sh = shadow_of(id, false);
	struct py_find f = { .sh = sh, .frame = frame, .now = now, .id = id };
	__u32 d;

	split_mark();

	if (!sh)
		return 0;
	d = sh->depth;
	if (!d || d > TRACE_MAX_DEPTH)
		return 0;
	if (FR(sh, d - 1).sp != frame) {
		bpf_loop(TRACE_MAX_DEPTH, find_step, &f, 0);
		if (!f.at)
			return 0;
		bpf_loop(TRACE_MAX_DEPTH, pop_step, &f, 0);
		d = sh->depth;
		if (!d || d > TRACE_MAX_DEPTH || FR(sh, d - 1).sp != frame)
			return 0;
	}
	close_frame(sh, d - 1, now, id, 0, 0);
	sh->depth = d - 1;
	return 0;
}

/* CPython 3.10: each Python call is a C call of _PyEval_EvalFrameDefault
 * (tstate, f, throwflag), a generator's or coroutine's each time it resumes,
 * and returns from it, by an exception too. A call is pushed as a native
 * one is, by its stack slot (sp), so that its return, caught like a
 * uretprobe's, finds it; ip holds its frame. Returns 1 when it is not
 * traced (a uprobe session then skips its return). */
static __always_inline int py310_enter(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	__u64 frame = PT_REGS_PARM2(ctx), sp = PT_REGS_SP(ctx), code;
	struct shadow *sh;
	__s64 func;

	split_mark();

	if (stopping)
		return 1;
	func = py_traced(frame, id, &sh, &code);
	if (func < 0)
		return 1;
	/* a slot above a deeper call's: that call's return was not caught */
	unwind_to(sh, sp, now, id);
	return py_push(sh, func, now, sp, frame, 0);
}

/* 3.10, with uprobe sessions (Linux 6.13+): only traced calls have their
 * return caught. */
SEC("kprobe")
int on_py310(struct pt_regs *ctx)
{
	if (!bpf_session_is_return())
		return py310_enter(ctx);
	return leave(PT_REGS_SP(ctx) - 8, LEAVE_ANY_FUNC, 0, false);
}

/* 3.10 without sessions: an entry probe, and a uretprobe on every call,
 * traced or not (those not traced find no frame of theirs). */
SEC("kprobe")
int on_py310_entry(struct pt_regs *ctx)
{
	py310_enter(ctx);
	return 0;
}

SEC("kprobe")
int on_py310_return(struct pt_regs *ctx)
{
	return leave(PT_REGS_SP(ctx) - 8, LEAVE_ANY_FUNC, 0, true);
}

#endif
