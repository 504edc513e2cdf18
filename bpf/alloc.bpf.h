/* SPDX-License-Identifier: GPL-2.0 */
/* --alloc: uprobes on the allocators' entry points (uprobe_multi links or
 * classic uprobes, the function's enum alloc_kind as cookie). An entry saves what its return
 * needs in the thread's task storage and takes the user stack there (the
 * allocating call's); the return counts bytes and calls by stack and keeps
 * the address as live until a free removes it. Included by sample.bpf.c,
 * after common.bpf.h and unwind.bpf.h, for the pid filter, the unwinder and
 * the stacks. */
#ifndef FLAMEBPF_ALLOC_BPF_H
#define FLAMEBPF_ALLOC_BPF_H

#include "alloc.h"

/* --alloc-sample N: an allocation of size s < N is recorded with
 * probability s/N and then stands for N bytes and N/s allocations; larger
 * ones always, for themselves. Unbiased, and the calls not recorded pay
 * for no stack walk. 0: every allocation. */
const volatile __u64 alloc_sample = 0;

/* mmap's lengths are rounded up to it: the pages it maps */
const volatile __u64 alloc_page_size = 4096;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct sample_key);
	__type(value, struct alloc_total);
	__uint(max_entries, 1); /* sized by user space */
} alloc_counts SEC(".maps");

/* Not preallocated: sized for the most live allocations, used for few. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct alloc_addr);
	__type(value, struct alloc_live);
	__uint(max_entries, 1); /* sized by user space */
} alloc_live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct alloc_call);
} alloc_calls SEC(".maps");

static __always_inline void alloc_free(__u32 pid, __u64 ptr)
{
	struct alloc_addr a = { .pid = pid, .addr = ptr };

	if (!ptr)
		return;
	count(CNT_FREES);
	if (bpf_map_delete_elem(&alloc_live, &a))
		count(CNT_FREE_UNKNOWN);
}

/* Adds to a map of alloc_total. Returns 0 or the update's error. */
static __always_inline long alloc_count(const struct sample_key *key, __u64 bytes, __u64 n)
{
	struct alloc_total one = { .bytes = bytes, .count = n }, *t;
	long err;

	t = bpf_map_lookup_elem(&alloc_counts, key);
	if (!t) {
		err = bpf_map_update_elem(&alloc_counts, key, &one, BPF_NOEXIST);
		if (err != -EEXIST)
			return err;
		t = bpf_map_lookup_elem(&alloc_counts, key);
		if (!t)
			return -EEXIST;
	}
	__sync_fetch_and_add(&t->bytes, bytes);
	__sync_fetch_and_add(&t->count, n);
	return 0;
}

/* What a recorded allocation stands for: bytes and count (fixed-point). */
static __always_inline void alloc_weight(__u64 size, __u64 *bytes, __u64 *n)
{
	*bytes = size;
	*n = ALLOC_COUNT_ONE;
	if (!alloc_sample || size >= alloc_sample)
		return;
	*bytes = alloc_sample;
	*n = size ? alloc_sample * ALLOC_COUNT_ONE / size : ALLOC_COUNT_ONE;
}

static __always_inline void alloc_add(__u64 id, const struct alloc_call *c, __u64 ptr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sample_key key = { .pid = id >> 32, .tid = (__u32)id, .ustack = c->ustack };
	struct alloc_addr a = { .pid = id >> 32, .addr = ptr };
	struct alloc_live l = { .ustack = c->ustack, .tid = (__u32)id };

	alloc_weight(c->size, &l.size, &l.count);
	BPF_CORE_READ_STR_INTO(&key.comm, task, group_leader, comm);
	bpf_get_current_comm(&key.tcomm, sizeof(key.tcomm));
	if (alloc_count(&key, l.size, l.count)) {
		count(CNT_ALLOC_DROPPED);
		return;
	}
	if (timeline)
		send_tick(&key, bpf_ktime_get_ns(), 0, l.size);
	count(CNT_ALLOC_SAMPLED);
	if (bpf_map_update_elem(&alloc_live, &a, &l, BPF_ANY))
		count(CNT_ALLOC_LIVE_FULL);
}

/* Whether to record an allocation of size bytes (--alloc-sample). */
static __always_inline bool alloc_sampled(__u64 size)
{
	if (!alloc_sample || size >= alloc_sample)
		return true;
	return ((__u64)bpf_get_prandom_u32() * alloc_sample >> 32) < size;
}

/* The size a call asks for, from its arguments. */
static __always_inline __u64 alloc_size(struct pt_regs *ctx, __u32 kind)
{
	switch (kind) {
	case ALLOC_CALLOC:
		return PT_REGS_PARM1(ctx) * PT_REGS_PARM2(ctx);
	case ALLOC_REALLOC:
	case ALLOC_MEMALIGN:
		return PT_REGS_PARM2(ctx);
	case ALLOC_POSIX_MEMALIGN:
		return PT_REGS_PARM3(ctx);
	case ALLOC_MMAP:
		return (PT_REGS_PARM2(ctx) + alloc_page_size - 1) & ~(alloc_page_size - 1);
	default:
		return PT_REGS_PARM1(ctx);
	}
}

/* free and operator delete, which have no return probe. */
static __always_inline void alloc_enter_free(struct alloc_call *c, __u32 pid, __u32 kind, __u64 ptr)
{
	/* what operator delete calls with the pointer it was given (the sized
	 * one the plain one, that one free) is the same free: it has no return
	 * probe to say when it ends */
	if (ptr && ptr == c->deleted) {
		if (kind == ALLOC_FREE)
			c->deleted = 0;
		return;
	}
	alloc_free(pid, ptr);
	c->deleted = kind == ALLOC_DELETE ? ptr : 0;
	c->freed = ptr;
}

/* munmap(addr, len) frees the block that starts at addr, whole, whatever
 * len: a munmap elsewhere (a block's tail, a file's pages, memory from
 * before the capture) is a free of an unknown address. The munmap of the
 * pages around the pointer free was last given (glibc's free of a block it
 * mmapped) is that free's own: free has no return probe to bracket it. */
static __always_inline void alloc_enter_munmap(struct alloc_call *c, __u32 pid, __u64 addr,
					       __u64 len)
{
	__u64 freed = c->freed;

	c->freed = 0;
	if (freed && freed - addr < len)
		return;
	alloc_free(pid, addr);
}

/* A call made inside a traced one (operator new's malloc, realloc's
 * malloc and free, malloc's mmap) belongs to the outer call: its stack is
 * deeper than the outer entry's, or as deep for a tail call
 * (realloc(NULL, n) jumps to malloc). An outer call whose return never
 * came (an exception thrown out of operator new) is forgotten after
 * ALLOC_CALL_MAX_NS. */
#define ALLOC_CALL_MAX_NS 1000000000ULL

/* Whether an entry of kind opens a call that its return counts: a file's
 * mmap allocates no memory. */
static __always_inline bool alloc_opens(struct pt_regs *ctx, __u32 kind)
{
	return kind != ALLOC_MMAP || (PT_REGS_PARM4(ctx) & ALLOC_MAP_ANONYMOUS);
}

SEC("kprobe")
int on_alloc_enter(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), sp = PT_REGS_SP(ctx), now;
	__u32 pid = id >> 32, kind = bpf_get_attach_cookie(ctx);
	struct task_struct *task = bpf_get_current_task_btf();
	struct alloc_call *c;

	if (filter_pids && !pid_traced(pid, task))
		return 0;
	c = bpf_task_storage_get(&alloc_calls, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c) {
		count(CNT_ALLOC_NO_CALL);
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (c->sp && c->sp >= sp && now - c->ts < ALLOC_CALL_MAX_NS)
		return 0;
	if (kind == ALLOC_FREE || kind == ALLOC_DELETE) {
		alloc_enter_free(c, pid, kind, PT_REGS_PARM1(ctx));
		return 0;
	}
	if (kind == ALLOC_MUNMAP) {
		alloc_enter_munmap(c, pid, PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
		return 0;
	}
	c->deleted = c->freed = 0;
	if (!alloc_opens(ctx, kind))
		return 0;
	c->sp = sp;
	c->ts = now;
	c->kind = kind;
	c->size = alloc_size(ctx, kind);
	c->arg = kind == ALLOC_REALLOC || kind == ALLOC_POSIX_MEMALIGN ? PT_REGS_PARM1(ctx) : 0;
	c->sampled = alloc_sampled(c->size);
	c->ustack = 0;
	if (!c->sampled)
		return 0;
	note_process(pid, CNT_SEEN_FULL, CNT_EVENTS_LOST);
	c->ustack = user_stack(ctx, pid, task, EV_STACK, CNT_USTACK, CNT_USTACK_ERR,
			       CNT_STACKS_DROPPED, CNT_EVENTS_LOST);
	return 0;
}

/* A uretprobe: the return address is popped, the stack pointer 8 above
 * the entry's. */
SEC("kprobe")
int on_alloc_exit(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), ptr = PT_REGS_RC(ctx);
	struct task_struct *task = bpf_get_current_task_btf();
	struct alloc_call *c = bpf_task_storage_get(&alloc_calls, task, 0, 0);

	if (!c || !c->sp || PT_REGS_SP(ctx) - 8 != c->sp)
		return 0;
	c->sp = 0;
	if (c->kind == ALLOC_MMAP && ptr == ALLOC_MAP_FAILED) {
		ptr = 0;
	} else if (c->kind == ALLOC_POSIX_MEMALIGN) {
		if (ptr || bpf_probe_read_user(&ptr, sizeof(ptr), (void *)c->arg))
			ptr = 0;
	} else if (c->kind == ALLOC_REALLOC && (ptr || !c->size)) {
		/* moved, grown in place or freed (size 0): the old one is gone */
		alloc_free(id >> 32, c->arg);
	}
	if (!ptr) {
		if (c->size)
			count(CNT_ALLOC_FAILED);
		return 0;
	}
	count(CNT_ALLOCS);
	count_by(CNT_ALLOC_BYTES, c->size);
	if (c->sampled)
		alloc_add(id, c, ptr);
	return 0;
}

#endif
