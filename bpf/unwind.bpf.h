/* SPDX-License-Identifier: GPL-2.0 */
/* User stacks unwound in the kernel from the call-frame information of each
 * binary (docs/unwinding.md): user space loads every binary's rows into one
 * array (of chunks) and each process's executable mappings into a hash, and the walk
 * below turns registers into the same leaf-first list of addresses that
 * bpf_get_stack() gives, so stack ids, counting and the ring buffer stay as
 * they are. Each frame is a binary search over the process's mappings, one
 * over its binary's rows, and one or two 8-byte user reads. */
#ifndef FLAMEBPF_UNWIND_BPF_H
#define FLAMEBPF_UNWIND_BPF_H

#include "sample.h"
#include "unwind.h"

/* The includer includes common.bpf.h first (the ring buffer, count(),
 * the stack scratch buffer). */

const volatile __u32 unwind_mode = UNWIND_MODE_FP;

/* Rows by chunk (UNWIND_CHUNK_ROWS each): row i is row i & (UNWIND_CHUNK_ROWS
 * - 1) of chunk i >> UNWIND_CHUNK_BITS. */
struct unwind_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE); /* user space writes tables in place */
	__type(key, __u32);
	/* a size, not a type: clang leaves the type's BTF as a declaration */
	__uint(value_size, sizeof(struct unwind_crow));
	__uint(max_entries, UNWIND_CHUNK_ROWS);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 1); /* sized by user space */
	__array(values, struct unwind_chunk);
} unwind_rows SEC(".maps");

/* By pid; at 0 (the idle task's) an empty entry, gen 0 (never a written
 * process's): the one of a process whose entry is not written yet. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* only user space inserts */
	__type(key, __u32);
	__type(value, struct unwind_proc);
	__uint(max_entries, 8192);
} unwind_procs SEC(".maps");

/* Binaries with tables, by file (struct unwind_file_key). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* only user space inserts */
	__type(key, struct unwind_file_key);
	__type(value, struct unwind_file);
	__uint(max_entries, 4096);
} unwind_files SEC(".maps");

/* Erlang nodes without frame pointers (struct unwind_beam), by pid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* only user space inserts */
	__type(key, __u32);
	__type(value, struct unwind_beam);
	__uint(max_entries, 1024);
} unwind_beams SEC(".maps");

/* Processes whose frame pointer may lie below the stack pointer, once a
 * walk (stack_switch()), by pid: Erlang nodes with frame pointers
 * (+JPperf true), whose JIT calls C on the scheduler's stack, and Go
 * programs, whose runtime calls the vDSO and C on the thread's system
 * stack, above the goroutine's. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* only user space inserts */
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1024);
} unwind_fp_below SEC(".maps");

/* The rows last found, per CPU, by (process entry, pc): a thread that
 * blocks or is sampled at the same places again and again skips both
 * binary searches. The entry's gen changes whenever user space writes it,
 * so a row found under an older look at the process is never used. */
#define UNWIND_CACHE_BITS 10

struct unwind_cached {
	__u64 pc;
	__u32 pid, gen;
	struct unwind_row row; /* kind UNWIND_NONE: no row (frame pointers there) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_cached);
	__uint(max_entries, 1 << UNWIND_CACHE_BITS);
} unwind_cache SEC(".maps");

/* The top of the user stack, read at once from sp: most frames' return
 * addresses and saved rbp are in it, and one read of a kilobyte costs less
 * than a dozen reads of 8 bytes (each a fault-safe user access). Reads
 * outside it go one by one. Per CPU: the programs that walk stacks run
 * with interrupts off (sched_switch, sched_waking) or are not loaded
 * together (a tracepoint's and the sampler's). */
#define UNWIND_WIN  1024
#define UNWIND_PAGE 4096

struct unwind_window {
	__u8 b[UNWIND_WIN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_window);
	__uint(max_entries, 1);
} unwind_win SEC(".maps");

/* Where an Erlang walk (beam_walk) is, per CPU: kept in a map value rather
 * than in the walk on the stack, its moving parts are unknown values to the
 * verifier, which then checks beam_step (a thousand instructions, the scan
 * unrolled) a few times rather than once for every frame count: 15 k
 * instructions of the sampler's verification before. */
struct beam_pos {
	__u64 sp;
	__u32 nr;
	__u32 done;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct beam_pos);
	__uint(max_entries, 1);
} unwind_beam_pos SEC(".maps");

/* How a table walk ended. */
enum unwind_end {
	UNW_DONE_TABLES, /* reached the outermost frame, every step by a table */
	UNW_DONE_MIXED,	 /* reached it, some steps by frame pointers */
	UNW_TRUNCATED,	 /* stopped early: unreadable stack, unknown rule, depth */
};

#define ROW_SEARCH_STEPS 24 /* 16M rows */
#define MAP_SEARCH_STEPS 8  /* UNWIND_MAX_MAPPINGS */

struct unwind_walk {
	struct sample_stack_event *st;
	struct unwind_proc *proc;
	struct unwind_beam beam; /* the Erlang node's JIT, for beam_walk() */
	__u64 pc, sp, bp;
	__u32 pid;
	__u32 nr;
	struct unwind_row row; /* the rule at pc */
	bool bp_known;
	bool fp_steps;
	bool switched; /* a frame pointer led once to a lower stack (stack_switch) */
	bool jvm;      /* a frame was recorded as a JVM's method (unwind.h) */
	bool done;     /* the outermost frame was reached */
	/* RULE_* of every frame, or'd: a pc outside every mapping (the maps
	 * changed), stepped by frame pointers if no table was found. Not a
	 * bool set in branches: the verifier would check the walk's callback
	 * for each of its values */
	__u32 unmapped;
	/* another task's stack, read from a sleepable program; NULL: the
	 * current task's */
	struct task_struct *task;
	struct unwind_window *win; /* the stack from win_lo, win_len bytes; or NULL */
	__u64 win_lo;
	__u32 win_len;
};

/* A binary search, one bpf_loop() step at a time: the verifier checks a
 * callback once rather than every iteration of an unrolled loop. */
struct unwind_search {
	struct unwind_proc *proc;
	__u64 pc;
	__u32 lo, hi;
	__s32 found; /* -1: none */
};

/* Among the mappings [lo, hi): the one holding pc. */
static long search_mapping(__u32 i, void *data)
{
	struct unwind_search *s = data;
	struct unwind_mapping *m;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = (s->lo + s->hi) / 2;
	m = &s->proc->m[mid & (UNWIND_MAX_MAPPINGS - 1)];
	if (s->pc < m->start) {
		s->hi = mid;
	} else if (s->pc >= m->end) {
		s->lo = mid + 1;
	} else {
		s->found = mid & (UNWIND_MAX_MAPPINGS - 1);
		return 1;
	}
	return 0;
}

static __always_inline struct unwind_crow *row_at(__u32 i)
{
	__u32 c = i >> UNWIND_CHUNK_BITS, k = i & (UNWIND_CHUNK_ROWS - 1);
	void *chunk = bpf_map_lookup_elem(&unwind_rows, &c);

	return chunk ? bpf_map_lookup_elem(chunk, &k) : NULL;
}

/* Among the rows [lo, hi): moves lo past the last row at or below pc. */
static long search_row(__u32 i, void *data)
{
	struct unwind_search *s = data;
	struct unwind_crow *r;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = s->lo + (s->hi - s->lo) / 2;
	r = row_at(mid);
	if (!r)
		return 1;
	if ((__u64)r->pc <= s->pc)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

static __always_inline struct unwind_mapping *unwind_find_mapping(struct unwind_proc *proc,
								  __u64 pc)
{
	struct unwind_search s = { .proc = proc, .pc = pc, .hi = proc->n, .found = -1 };

	if (s.hi > UNWIND_MAX_MAPPINGS)
		s.hi = UNWIND_MAX_MAPPINGS;
	bpf_loop(MAP_SEARCH_STEPS, search_mapping, &s, 0);
	if (s.found < 0)
		return NULL;
	return &proc->m[s.found & (UNWIND_MAX_MAPPINGS - 1)];
}

/* The row covering pc (a struct unwind_crow.pc): the last one at or below
 * it. */
static __always_inline struct unwind_crow *unwind_find_row(const struct unwind_mapping *m, __u64 pc)
{
	struct unwind_search s = { .pc = pc, .lo = m->first, .hi = m->first + m->nrows };

	bpf_loop(ROW_SEARCH_STEPS, search_row, &s, 0);
	if (s.lo == m->first)
		return NULL;
	return row_at(s.lo - 1);
}

/* The file mapping holding a pc, as bpf_find_vma() finds it. */
struct vma_look {
	__u64 start, end, pgoff, ino;
	__u32 dev;
	bool found;
};

static long vma_file(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vma_look *l = data;
	struct file *f = BPF_CORE_READ(vma, vm_file);

	if (!f)
		return 0;
	l->start = BPF_CORE_READ(vma, vm_start);
	l->end = BPF_CORE_READ(vma, vm_end);
	l->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	l->ino = BPF_CORE_READ(f, f_inode, i_ino);
	l->dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	l->found = true;
	return 0;
}

/* The mapping of the current task holding pc, described as user space
 * would (its table from unwind_files): for code mapped since the process's
 * entry was written. Returns false when its file has no table there. */
static __always_inline bool mapping_by_vma(__u64 pc, struct unwind_mapping *um)
{
	struct unwind_file_key key = {};
	struct vma_look l = {};
	struct unwind_file *f;

	if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_file, &l, 0) || !l.found)
		return false;
	key.ino = l.ino;
	key.dev = l.dev;
	f = bpf_map_lookup_elem(&unwind_files, &key);
	if (!f || f->off != l.pgoff << 12)
		return false;
	*um = (struct unwind_mapping){ .start = l.start,
				       .end = l.end,
				       .bias = l.start - f->off + f->bias_off,
				       .first = f->first,
				       .nrows = f->nrows };
	return true;
}

/* The last mapping mapping_by_vma() found, per CPU, for the entry gen of
 * process pid: with interrupts off (sched_switch) bpf_find_vma() works
 * once, its lock let go by an irq_work that runs only when they are on
 * again, so the frames of a walk through a new library (libc's, mapped by
 * ld.so after the look at exec) all find it here. */
struct unwind_new_mapping {
	struct unwind_mapping m;
	__u64 mm; /* an entry's gen is 0 before user space writes it */
	__u32 pid, gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct unwind_new_mapping);
	__uint(max_entries, 1);
} unwind_new_maps SEC(".maps");

static __always_inline struct unwind_mapping *new_mapping(struct unwind_proc *proc, __u32 pid,
							  __u64 pc)
{
	__u64 mm = (__u64)bpf_get_current_task_btf()->mm;
	__u32 zero = 0;
	struct unwind_new_mapping *n = bpf_map_lookup_elem(&unwind_new_maps, &zero);

	if (!n)
		return NULL;
	if (n->pid == pid && n->gen == proc->gen && n->mm == mm && pc >= n->m.start &&
	    pc < n->m.end)
		return &n->m;
	/* a failure (a second look in a program run) keeps the one found */
	if (!mapping_by_vma(pc, &n->m))
		return NULL;
	n->pid = pid;
	n->gen = proc->gen;
	n->mm = mm;
	return &n->m;
}

/* cross: the walk reads another task's stack (w->task), from a sleepable
 * program. Always a constant, so that the compiler leaves the sleepable
 * helper out of every other program's code (a verifier could refuse it
 * there even on a path never taken). */
static __always_inline bool read_user_u64(const struct unwind_walk *w, __u64 *v, __u64 addr,
					  const bool cross)
{
	__u64 off = addr - w->win_lo;

	if (w->win && addr >= w->win_lo && w->win_len >= 8 && off <= w->win_len - 8 &&
	    off <= UNWIND_WIN - 8) {
		__builtin_memcpy(v, &w->win->b[off], sizeof(*v));
		return true;
	}
	if (cross)
		return !bpf_copy_from_user_task(v, sizeof(*v), (const void *)addr, w->task, 0);
	return !bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

/* How rule_of() found the row (0: in the process's entry). */
#define RULE_NEW  1 /* its mapping, new, found in the kernel: the entry is out of date */
#define RULE_NONE 2 /* outside every mapping known, no table: frame pointers */

/* The row for pc into *out (kind UNWIND_NONE if none), and how it was
 * found (RULE_*): a new mapping is looked for in the kernel for the
 * current task's walk only (own). Another task's walk (!own: a sleepable
 * program, which may be preempted midway) leaves the per-CPU cache alone. */
static __always_inline int rule_of(struct unwind_proc *proc, __u32 pid, __u64 pc, const bool own,
				   struct unwind_row *out)
{
	__u32 slot = (__u32)((pc ^ (pc >> 16) ^ pid) * 0x9e3779b1U) >> (32 - UNWIND_CACHE_BITS);
	struct unwind_cached *c = own ? bpf_map_lookup_elem(&unwind_cache, &slot) : NULL;
	struct unwind_mapping *m;
	struct unwind_crow *r = NULL;
	int ret = 0;

	if (!proc || !out)
		return RULE_NONE;
	if (!proc->gen)
		c = NULL; /* no entry yet: nothing tells an exec'd image from the old */
	if (c && c->pc == pc && c->pid == pid && c->gen == proc->gen) {
		*out = c->row;
		return 0;
	}
	m = unwind_find_mapping(proc, pc);
	if (!m && own) {
		m = new_mapping(proc, pid, pc);
		ret = RULE_NEW;
	}
	if (!m)
		return RULE_NEW | RULE_NONE;
	if (m->nrows)
		r = unwind_find_row(m, pc - m->bias);
	if (r)
		*out = (struct unwind_row){ .cfa_off = unwind_rule_cfa_off(r->rule),
					    .rbp_off = unwind_rule_rbp_off(r->rule),
					    .kind = r->rule & 7,
					    .rbp = (r->rule >> 3) & 3 };
	else
		*out = (struct unwind_row){ .kind = UNWIND_NONE };
	if (c) {
		c->pc = pc;
		c->pid = pid;
		c->gen = proc->gen;
		c->row = *out;
	}
	return ret;
}

/* rule_of() for the current task's walk, and for another task's: apart,
 * so that the sleepable iterator's stack, near the limit, does not pay
 * for bpf_find_vma()'s. */
__noinline int unwind_rule_g(struct unwind_proc *proc, __u32 pid, __u64 pc, struct unwind_row *out)
{
	return rule_of(proc, pid, pc, true, out);
}

__noinline int unwind_rule_task_g(struct unwind_proc *proc, __u32 pid, __u64 pc,
				  struct unwind_row *out)
{
	return rule_of(proc, pid, pc, false, out);
}

static __always_inline int unwind_rule(struct unwind_walk *w, __u64 pc, const bool cross)
{
	if (cross)
		return unwind_rule_task_g(w->proc, w->pid, pc, &w->row);
	return unwind_rule_g(w->proc, w->pid, pc, &w->row);
}

/* One step by the row's rules. Returns false when the stack cannot be read. */
static __always_inline bool unwind_by_row(struct unwind_walk *w, const struct unwind_row *r,
					  __u64 *ra, const bool cross)
{
	__u64 cfa;

	if (r->kind == UNWIND_CFA_RBP && !w->bp_known)
		return false;
	cfa = (r->kind == UNWIND_CFA_RSP ? w->sp : w->bp) + (__s64)r->cfa_off;
	if (cfa <= w->sp || !read_user_u64(w, ra, cfa - 8, cross))
		return false;
	if (r->rbp == UNWIND_RBP_CFA) {
		if (!read_user_u64(w, &w->bp, cfa + (__s64)r->rbp_off, cross))
			return false;
		w->bp_known = true;
	} else if (r->rbp == UNWIND_RBP_OTHER) {
		w->bp_known = false;
	}
	w->sp = cfa;
	return true;
}

/* Where the interrupted context is in the kernel's signal frame (x86-64
 * struct rt_sigframe): a handler returns into the sigreturn trampoline with
 * its return address, pretcode, popped, so sp is then the ucontext, whose
 * uc_mcontext (a struct sigcontext) holds the registers. */
#define SIGFRAME_MCONTEXT 40 /* offsetof(struct ucontext, uc_mcontext) */
#define SIGCONTEXT_RBP	  80
#define SIGCONTEXT_RSP	  120
#define SIGCONTEXT_RIP	  128

/* The frame a signal interrupted, from the trampoline's (UNWIND_SIGNAL):
 * its pc into *ra, its sp and rbp into w. */
static __always_inline bool unwind_by_sigframe(struct unwind_walk *w, __u64 *ra, const bool cross)
{
	__u64 ctx = w->sp + SIGFRAME_MCONTEXT, sp;

	if (!read_user_u64(w, ra, ctx + SIGCONTEXT_RIP, cross) ||
	    !read_user_u64(w, &sp, ctx + SIGCONTEXT_RSP, cross) ||
	    !read_user_u64(w, &w->bp, ctx + SIGCONTEXT_RBP, cross))
		return false;
	w->bp_known = true;
	w->sp = sp;
	return true;
}

/* Whether pid is one of unwind_fp_below's. Elsewhere a table-less pc's
 * rbp may hold anything (a JVM's compiled code without
 * -XX:+PreserveFramePointer keeps a heap pointer there, which lies below
 * the stack). A global function: the step callbacks are verified with one
 * call, not with the lookup's paths. */
__noinline int unwind_fp_below_g(__u32 pid)
{
	return bpf_map_lookup_elem(&unwind_fp_below, &pid) != NULL;
}

/* Whether a frame pointer below sp may be followed: code without a table
 * that calls C on a stack of its own and keeps its frames on another, as
 * the BEAM's JIT does under +JPperf true (its shared fragments, GC and BIF
 * calls, run C on the scheduler's stack while rbp is their frame on the
 * process's Erlang stack, which lies lower), and Go's runtime (time.now
 * calls the vDSO on the system stack, rbp its frame on the goroutine's).
 * Once a walk: every later step goes up again, so the walk still ends. */
static __always_inline bool stack_switch(struct unwind_walk *w)
{
	if (w->switched || !w->proc || w->row.kind != UNWIND_NONE || !unwind_fp_below_g(w->pid))
		return false;
	w->switched = true;
	return true;
}

/* One step through the frame pointer chain: the caller's rbp at [rbp], the
 * return address above it. */
static __always_inline bool unwind_by_fp(struct unwind_walk *w, __u64 *ra, const bool cross)
{
	__u64 bp = w->bp;

	if (!w->bp_known || (bp & 7) || (bp < w->sp && !stack_switch(w)))
		return false;
	if (!read_user_u64(w, ra, bp + 8, cross) || !read_user_u64(w, &w->bp, bp, cross))
		return false;
	w->sp = bp + 16;
	w->fp_steps = true;
	return true;
}

/* A function's first instructions, as four bytes read at pc (little
 * endian); with a uprobe's int3 (0xcc) on the first, the three after it. */
#define PUSH_MOV 0xe5894855U /* push %rbp; mov %rsp,%rbp */
#define ENDBR	 0xfa1e0ff3U /* endbr64 */
#define MOV	 0xe58948U   /* mov %rsp,%rbp, push %rbp done */
#define INT3	 0xccU

/* Frame 0 without a row, at a function's first instructions (a uprobe on
 * its entry; the kernel's own walk does the same since 6.11): its frame is
 * not made yet, so rbp is still its caller's and the return address is on
 * top of the stack, under the saved rbp once push %rbp ran. By rbp, the
 * caller would be skipped. */
static __always_inline bool unwind_entry_by_sp(struct unwind_walk *w, __u64 *ra, const bool cross)
{
	__u64 code = 0, at;
	__u32 b, after;
	bool int3;

	if (!read_user_u64(w, &code, w->pc, cross))
		return false;
	b = (__u32)code;
	after = b >> 8;
	int3 = (b & 0xff) == INT3;
	if (b == PUSH_MOV || b == ENDBR ||
	    (int3 && (after == PUSH_MOV >> 8 || after == ENDBR >> 8)))
		at = w->sp;
	else if ((b & 0xffffff) == MOV || (int3 && (after & 0xffff) == MOV >> 8))
		at = w->sp + 8;
	else
		return false;
	if (!read_user_u64(w, ra, at, cross))
		return false;
	w->sp = at + 8;
	return true;
}

/* One step over an Erlang frame of b's JIT: to the first of the
 * UNWIND_BEAM_SCAN words from p->sp that is a return address into its
 * code, which it returns (0: none). The words are read at once, into the
 * window's buffer (the table walk is over), and looked at unrolled: a loop
 * here would cost the sampler's verification more than the whole walk
 * otherwise. A global function, checked once rather than on each of
 * beam_step()'s passes. */
__noinline __u64 beam_scan_g(const struct unwind_beam *b, struct beam_pos *p)
{
	struct unwind_window *buf;
	__u32 zero = 0;
	__u64 v;

	if (!b || !p)
		return 0;
	buf = bpf_map_lookup_elem(&unwind_win, &zero);
	if (!buf || bpf_probe_read_user(buf->b, 8 * UNWIND_BEAM_SCAN, (const void *)p->sp))
		return 0;
#pragma unroll
	for (__u32 k = 0; k < UNWIND_BEAM_SCAN; k++) {
		__builtin_memcpy(&v, &buf->b[8 * k], sizeof(v));
		if (!(v & 3) && v >= b->code_lo && v < b->code_hi) {
			p->sp += 8 * (k + 1);
			return v;
		}
	}
	return 0;
}

/* One Erlang frame of a walk that stopped in w->beam's code (beam_walk):
 * its caller's return address recorded after the frames so far. 1 stops. */
static long beam_step(__u32 k, void *data)
{
	const struct unwind_walk *w = data;
	__u32 zero = 0, n;
	struct beam_pos *p = bpf_map_lookup_elem(&unwind_beam_pos, &zero);
	__u64 ra;

	if (!p)
		return 1;
	n = p->nr;
	if (n >= SAMPLE_MAX_DEPTH)
		return 1;
	ra = beam_scan_g(&w->beam, p);
	if (!ra)
		return 1;
	if (ra == w->beam.normal_exit) {
		p->done = true;
		return 1;
	}
	w->st->ip[n] = ra;
	p->nr = n + 1;
	return 0;
}

/* A table walk that stopped in the code of an Erlang node's JIT (no table
 * there, nor frame pointers): its Erlang frames, by scanning. Looked up
 * only now, so that the table walk's verification is the same with it as
 * without. */
static __always_inline void beam_walk(struct unwind_walk *w)
{
	const struct unwind_beam *b = bpf_map_lookup_elem(&unwind_beams, &w->pid);
	__u32 zero = 0;
	struct beam_pos *p = bpf_map_lookup_elem(&unwind_beam_pos, &zero);

	if (!b || !p || w->pc < b->code_lo || w->pc >= b->code_hi)
		return;
	w->beam = *b;
	*p = (struct beam_pos){ .sp = w->sp, .nr = w->nr };
	bpf_loop(SAMPLE_MAX_DEPTH, beam_step, w, 0);
	w->sp = p->sp;
	w->nr = p->nr < SAMPLE_MAX_DEPTH ? p->nr : SAMPLE_MAX_DEPTH;
	w->done = p->done;
}

/* Frame i, in a JVM's interpreter, recorded as the method it runs rather
 * than as its pc (unwind.h). At the method's first instructions, before
 * its frame is made, rbp is still its caller's: the caller's method then;
 * between rbp's move and the Method*'s push, whatever the slot held
 * (user space names what it can, "Interpreter" the rest). */
static __always_inline void jvm_method(struct unwind_walk *w, __u32 i, const bool cross)
{
	__u64 m;

	if (i >= SAMPLE_MAX_DEPTH || !w->bp_known || w->bp <= w->sp ||
	    !read_user_u64(w, &m, w->bp - UNWIND_JVM_METHOD_OFF, cross) || !m ||
	    (m & UNWIND_JVM_TAG_MASK))
		return;
	w->st->ip[i] = UNWIND_JVM_METHOD | m;
	w->jvm = true;
}

/* One step of a bpf_loop: records w->pc and steps to its caller. 1 stops. */
static __always_inline long unwind_step_by(__u32 i, struct unwind_walk *w, const bool cross)
{
	struct unwind_row *r = NULL;
	__u64 ra = 0, pc;
	int got;

	/* i, not a count kept in w, indexes ip[]: the verifier knows nothing of
	 * it, so it checks this callback once for every frame */
	if (i >= SAMPLE_MAX_DEPTH)
		return 1;
	w->st->ip[i] = w->pc;
	w->nr = i + 1;
	if (w->proc && w->pc - w->proc->jvm_lo < w->proc->jvm_hi - w->proc->jvm_lo)
		jvm_method(w, i, cross);
	/* a return address is just past its call, which may end the function */
	pc = i ? w->pc - 1 : w->pc;
	/* no tables (another task's stack, not loaded yet): frame pointers */
	got = w->proc ? unwind_rule(w, pc, cross) : 0;
	w->unmapped |= got;
	if (w->proc && !(got & RULE_NONE) && w->row.kind != UNWIND_NONE)
		r = &w->row;
	if (r && r->kind == UNWIND_END) {
		w->done = true;
		return 1;
	}
	if (r && (r->kind == UNWIND_CFA_RSP || r->kind == UNWIND_CFA_RBP)) {
		if (!unwind_by_row(w, r, &ra, cross))
			return 1;
	} else if (r && r->kind == UNWIND_SIGNAL) {
		if (!unwind_by_sigframe(w, &ra, cross))
			return 1;
	} else if (i && w->bp_known && !w->bp && unwind_mode != UNWIND_MODE_DWARF) {
		/* a frame-pointer chain ends with 0: _start's, a goroutine's */
		w->done = true;
		return 1;
	} else if (unwind_mode == UNWIND_MODE_DWARF ||
		   (!(i == 0 && unwind_entry_by_sp(w, &ra, cross)) &&
		    !unwind_by_fp(w, &ra, cross))) {
		return 1;
	}
	if (!ra) {
		w->done = true; /* the end of a frame-pointer chain */
		return 1;
	}
	w->pc = ra;
	return 0;
}

/* The bpf_loop callbacks: the current task's stack, another task's. */
static long unwind_step(__u32 i, void *data)
{
	return unwind_step_by(i, data, false);
}

static long unwind_step_task(__u32 i, void *data)
{
	return unwind_step_by(i, data, true);
}

/* Reads the window from sp: a kilobyte, or up to the end of sp's page when
 * the next page is not there (the top of a stack). */
static __always_inline void read_window(struct unwind_walk *w)
{
	__u32 zero = 0, len = UNWIND_PAGE - (w->sp & (UNWIND_PAGE - 1));
	struct unwind_window *win = bpf_map_lookup_elem(&unwind_win, &zero);

	if (!win || w->task)
		return;
	if (!bpf_probe_read_user(win->b, UNWIND_WIN, (const void *)w->sp)) {
		len = UNWIND_WIN;
	} else {
		/* a window within sp's page failed already: a second read would too */
		if (len >= UNWIND_WIN || len < 8 ||
		    bpf_probe_read_user(win->b, len, (const void *)w->sp))
			return;
	}
	w->win = win;
	w->win_lo = w->sp;
	w->win_len = len;
}

/* Unwinds the user stack of the current task from its registers into st.
 * Returns how the walk ended; st->nr holds the frames. */
static __always_inline enum unwind_end unwind_user(struct unwind_walk *w, struct pt_regs *regs,
						   const bool cross, const bool scan)
{
	w->pc = BPF_CORE_READ(regs, ip);
	w->sp = BPF_CORE_READ(regs, sp);
	w->bp = BPF_CORE_READ(regs, bp);
	read_window(w);
	w->bp_known = true;
	w->nr = 0;
	if (cross)
		bpf_loop(SAMPLE_MAX_DEPTH, unwind_step_task, w, 0);
	else
		bpf_loop(SAMPLE_MAX_DEPTH, unwind_step, w, 0);
	if (scan && !w->done && !w->task)
		beam_walk(w);
	/* whose methods they are, last (over the outermost frame if full) */
	if (w->jvm) {
		__u32 n = w->nr < SAMPLE_MAX_DEPTH ? w->nr : SAMPLE_MAX_DEPTH - 1;

		w->st->ip[n] = UNWIND_JVM_PID | w->pid;
		w->nr = n + 1;
	}
	w->st->nr = w->nr;
	if (!w->done)
		return UNW_TRUNCATED;
	return w->fp_steps ? UNW_DONE_MIXED : UNW_DONE_TABLES;
}

/* A pc outside every known mapping: something was mapped since user space
 * looked. Asks for a fresh look, at most every 100 ms per process. */
static __always_inline void ask_for_maps(struct unwind_proc *proc, __u32 pid, __u32 base,
					 __u32 lost_counter)
{
	struct sample_proc_event ev = { .type = EV_MAPS, .pid = pid };
	__u64 now = bpf_ktime_get_ns();

	if (now - proc->asked_ns < 100000000ULL)
		return;
	proc->asked_ns = now;
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP))
		count(lost_counter);
	else
		count(base + USTACK_MAPS_ASKED);
}

/* The current task's user stack by the tables of process pid (in
 * unwind_procs), as user_stack_by() returns it. Global functions: the
 * verifier checks each once, not on every path of the programs that call
 * them; scan (an Erlang node's frames) is a function of its own, so that
 * the walk without it costs no more to verify. */
static __always_inline __u64 tables_walk(__u32 pid, __u32 type, __u32 base, __u32 drop_counter,
					 __u32 lost_counter, const bool scan)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct unwind_walk w = { .pid = pid };
	enum unwind_end end;
	__u32 zero = 0;

	/* none yet: every pc's mapping is found in the kernel, as a new one.
	 * The empty entry (gen 0) is in the same map, and told apart after the
	 * walk by its gen, not by a flag kept across it: either would have the
	 * verifier check the walk twice */
	w.proc = bpf_map_lookup_elem(&unwind_procs, &pid);
	if (!w.proc)
		w.proc = bpf_map_lookup_elem(&unwind_procs, &zero);
	w.st = stack_scratch();
	if (!w.proc || !w.st)
		return STACK_ID_LOST;
	end = unwind_user(&w, (struct pt_regs *)bpf_task_pt_regs(task), false, scan);
	if (!w.proc->gen) {
		if (w.unmapped & RULE_NONE) {
			count(base + USTACK_FP);
			count(base + USTACK_EARLY);
		} else {
			count(base + end);
		}
	} else {
		count(base +
		      ((w.unmapped & RULE_NONE) && end != UNW_TRUNCATED ? USTACK_UNMAPPED : end));
		if (w.unmapped)
			ask_for_maps(w.proc, pid, base, lost_counter);
	}
	if (!w.nr)
		return STACK_ID_NONE;
	return send_stack(w.st, w.nr, type, drop_counter);
}

__noinline __u64 user_stack_tables(__u32 pid, __u32 type, __u32 base, __u32 drop_counter,
				   __u32 lost_counter)
{
	return tables_walk(pid, type, base, drop_counter, lost_counter, false);
}

__noinline __u64 user_stack_tables_scan(__u32 pid, __u32 type, __u32 base, __u32 drop_counter,
					__u32 lost_counter)
{
	return tables_walk(pid, type, base, drop_counter, lost_counter, true);
}

/* The current task's user stack by --unwind, as take_stack() returns it (a
 * record of the given type): by the tables once user space has loaded the
 * process's; before that, by the tables of the binaries it maps whose
 * tables are built (found in the kernel, new_mapping()), by frame pointers
 * elsewhere; with scan, an Erlang node's
 * frames by scanning (struct unwind_beam). base is the first of the
 * program's enum ustack_counter block; the others count read errors, full
 * ring buffers for stacks and for requests. */
static __always_inline __u64 user_stack_by(void *ctx, __u32 pid, struct task_struct *task,
					   __u32 type, __u32 base, __u32 err_counter,
					   __u32 drop_counter, __u32 lost_counter, const bool scan)
{
	bool early;

	if (!task->mm)
		return STACK_ID_NONE; /* a kernel thread */
	/* inside execve the registers may hold the old image's user stack,
	 * which the new image's mappings would turn into [unknown] frames */
	if (bpf_core_field_exists(task->in_execve) &&
	    BPF_CORE_READ_BITFIELD_PROBED(task, in_execve))
		return STACK_ID_NONE;
	/* --unwind dwarf stops where there is no table: frame pointers until
	 * the process's tables are loaded, as ever */
	early = unwind_mode == UNWIND_MODE_DWARF && !bpf_map_lookup_elem(&unwind_procs, &pid);
	if (early)
		count(base + USTACK_EARLY);
	if (unwind_mode == UNWIND_MODE_FP || early) {
		count(base + USTACK_FP);
		return take_stack(ctx, BPF_F_USER_STACK, type, err_counter, drop_counter);
	}
	return scan ? user_stack_tables_scan(pid, type, base, drop_counter, lost_counter)
		    : user_stack_tables(pid, type, base, drop_counter, lost_counter);
}

/* user_stack_by without the scan: its verification is the sampler's
 * alone to pay. */
static __always_inline __u64 user_stack(void *ctx, __u32 pid, struct task_struct *task, __u32 type,
					__u32 base, __u32 err_counter, __u32 drop_counter,
					__u32 lost_counter)
{
	return user_stack_by(ctx, pid, task, type, base, err_counter, drop_counter, lost_counter,
			     false);
}

/* The user stack of task, not the current one and off the CPU, for a
 * sleepable program: from the registers saved when it entered the kernel,
 * by the tables once user space has loaded its process's, by frame pointers
 * before that (bpf_get_task_stack() does not read another task's user
 * stack). Into st, the caller's buffer; as take_stack() returns it. */
static __always_inline __u64 task_user_stack(struct task_struct *task, __u32 pid,
					     struct sample_stack_event *st, __u32 base,
					     __u32 drop_counter)
{
	struct unwind_walk w = { .st = st, .task = task, .pid = pid };
	enum unwind_end end;

	if (!task->mm)
		return STACK_ID_NONE;
	if (unwind_mode != UNWIND_MODE_FP)
		w.proc = bpf_map_lookup_elem(&unwind_procs, &pid);
	end = unwind_user(&w, (struct pt_regs *)bpf_task_pt_regs(task), true, false);
	if (!w.proc)
		count(base + USTACK_FP);
	else
		count(base +
		      ((w.unmapped & RULE_NONE) && end != UNW_TRUNCATED ? USTACK_UNMAPPED : end));
	if (!w.nr)
		return STACK_ID_NONE;
	return send_stack(st, w.nr, EV_STACK, drop_counter);
}

/* A process exec'd (a new image) or exited (its pid may be reused): the
 * next stack asks user space to look at it afresh. */
static __always_inline void forget_process(__u32 pid)
{
	bpf_map_delete_elem(&seen, &pid);
	bpf_map_delete_elem(&unwind_procs, &pid);
	bpf_map_delete_elem(&unwind_beams, &pid);
	bpf_map_delete_elem(&unwind_fp_below, &pid);
}

#endif
