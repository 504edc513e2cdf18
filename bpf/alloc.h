/* SPDX-License-Identifier: GPL-2.0 */
/* ABI of --alloc, shared by bpf/alloc.bpf.h (in the sampler's BPF object),
 * src/capture/alloc_probes.c and the sampler. */
#ifndef FLAMEBPF_ALLOC_H
#define FLAMEBPF_ALLOC_H

/* What a probe's cookie says its function is, by where its arguments are. */
enum alloc_kind {
	ALLOC_MALLOC = 1,     /* size in arg0: malloc, valloc, pvalloc, operator new* */
	ALLOC_CALLOC,	      /* arg0 * arg1 */
	ALLOC_REALLOC,	      /* old pointer in arg0, size in arg1 */
	ALLOC_MEMALIGN,	      /* alignment in arg0, size in arg1: memalign, aligned_alloc */
	ALLOC_POSIX_MEMALIGN, /* the pointer back through arg0 (0 returned), size in arg2 */
	ALLOC_FREE,	      /* pointer in arg0: free */
	ALLOC_DELETE,	      /* pointer in arg0: operator delete*, which may call free */
	ALLOC_MMAP,	      /* length in arg1, flags in arg3: mmap, mmap64 */
	ALLOC_MUNMAP,	      /* address in arg0, length in arg1 */
};

/* mmap's flag of memory that is no file's (x86, arm64: the generic value;
 * src/capture/alloc_probes.c checks it against the C library's) and its
 * error return */
#define ALLOC_MAP_ANONYMOUS 0x20
#define ALLOC_MAP_FAILED    ((__u64)-1)

/* A live allocation, keyed by process and address. */
struct alloc_addr {
	__u32 pid;
	__u32 pad;
	__u64 addr;
};

/* Counts are fixed-point, in 1/ALLOC_COUNT_ONE of an allocation: under
 * --alloc-sample a sampled allocation stands for N/size of them. */
#define ALLOC_COUNT_ONE 1024

struct alloc_live {
	__u64 size;   /* bytes it stands for: its size, or N when sampled below N */
	__u64 ustack; /* the allocating call's user stack id */
	__u64 count;  /* allocations it stands for, in ALLOC_COUNT_ONE units */
	__u32 tid;
	__u32 pad;
};

/* Per (process, thread, stack) in alloc_counts: bytes and calls (as in
 * struct alloc_live). */
struct alloc_total {
	__u64 bytes;
	__u64 count;
};

/* A thread inside a traced allocation call (task storage): what its
 * return needs. sp 0: none. */
struct alloc_call {
	__u64 sp;   /* the stack pointer at the entry, to match its return */
	__u64 ts;   /* when it was entered (CLOCK_MONOTONIC ns) */
	__u64 size; /* bytes asked for */
	__u64 arg;  /* realloc: the old pointer; posix_memalign: where the new one goes */
	__u64 ustack;
	__u64 deleted; /* what operator delete was last given, till its own free of it */
	__u64 freed;   /* what free or delete was last given, till a munmap around it */
	__u32 kind;
	__u32 sampled; /* --alloc-sample: recorded (else counted in the totals only) */
};

#endif
