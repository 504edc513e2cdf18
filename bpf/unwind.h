/* SPDX-License-Identifier: GPL-2.0 */
/* ABI of the in-kernel unwinder (bpf/unwind.bpf.h), shared with user space
 * (src/symbols/unwind_table.c builds the rows, src/capture/unwinder.c loads them). */
#ifndef FLAMEBPF_UNWIND_H
#define FLAMEBPF_UNWIND_H

/* How to find the caller at a row's addresses. Only RSP and RBP rows can be
 * unwound: the return address is at CFA-8 and the CFA is the register plus
 * cfa_off. The others stop an unwind (or hand it to frame pointers). */
enum unwind_kind {
	UNWIND_NONE,	  /* no FDE covers the address */
	UNWIND_CFA_RSP,	  /* CFA = rsp + cfa_off */
	UNWIND_CFA_RBP,	  /* CFA = rbp + cfa_off */
	UNWIND_END,	  /* return address undefined: the outermost frame */
	UNWIND_CFA_OTHER, /* CFA is another register (DRAP) or an expression (not the PLT's) */
	UNWIND_RA_OTHER,  /* the CFA is known but the return address is not at CFA-8 */
	UNWIND_SIGNAL,	  /* the sigreturn trampoline: the caller is the signal frame's context */
	UNWIND_KIND_COUNT
};

/* Where the caller's rbp is. */
enum unwind_rbp {
	UNWIND_RBP_SAME,  /* unchanged: the caller's rbp is the current rbp */
	UNWIND_RBP_CFA,	  /* saved at CFA + rbp_off */
	UNWIND_RBP_OTHER, /* in another register, an expression, or undefined */
};

/* One row as user space builds it: its rules hold from pc up to the next
 * row's pc. Fields a kind does not use are 0, so rows compare with ==. */
struct unwind_row {
	__u64 pc;      /* link-time virtual address */
	__s32 cfa_off; /* UNWIND_CFA_RSP, UNWIND_CFA_RBP */
	__s16 rbp_off; /* UNWIND_RBP_CFA */
	__u8 kind;     /* enum unwind_kind */
	__u8 rbp;      /* enum unwind_rbp */
};

/* The same row as the BPF side keeps it, 8 bytes: pc from the table's first
 * row, the rules packed in a word (unwind_rule_pack). A row whose offsets do
 * not fit is kept as UNWIND_CFA_OTHER (the walk stops there, or hands it to
 * frame pointers). */
struct unwind_crow {
	__u32 pc;   /* link-time address - the table's first row's */
	__u32 rule; /* kind: bits 0-2, rbp: 3-4, rbp_off / 8: 5-11, cfa_off: 12-31 */
};

#define UNWIND_CFA_OFF_MAX ((1 << 19) - 1)
#define UNWIND_RBP_OFF_MAX (63 * 8)

/* The rule word of a row whose offsets fit (|cfa_off| <= UNWIND_CFA_OFF_MAX,
 * rbp_off a multiple of 8 within UNWIND_RBP_OFF_MAX). */
static inline __u32 unwind_rule_pack(__s32 cfa_off, __s16 rbp_off, __u8 kind, __u8 rbp)
{
	return (__u32)kind | (__u32)rbp << 3 | ((__u32)(rbp_off / 8) & 0x7f) << 5 |
	       (__u32)cfa_off << 12;
}

static inline __s32 unwind_rule_cfa_off(__u32 rule)
{
	return (__s32)rule >> 12;
}

static inline __s16 unwind_rule_rbp_off(__u32 rule)
{
	return (__s16)(((__s32)(rule << 20) >> 25) * 8);
}

/* The row array is an array of chunks, each an array of this many rows,
 * made by user space as rows are placed: memory follows the rows in use. */
#define UNWIND_CHUNK_BITS 16
#define UNWIND_CHUNK_ROWS (1u << UNWIND_CHUNK_BITS)

/* --unwind: how user stacks are taken. */
enum unwind_mode {
	UNWIND_MODE_FP,	   /* frame pointers only (bpf_get_stack) */
	UNWIND_MODE_DWARF, /* unwind tables only: a frame without one ends the stack */
	UNWIND_MODE_AUTO,  /* unwind tables, frame pointers where there is no table */
};

/* The counters a program keeps on its user stacks, in this order from its
 * base counter (the first three follow enum unwind_end). */
enum ustack_counter {
	USTACK_TABLES,	   /* unwind tables all the way to the outermost frame */
	USTACK_MIXED,	   /* to the outermost frame, some steps by frame pointers */
	USTACK_TRUNCATED,  /* the table walk stopped early */
	USTACK_FP,	   /* frame pointers (bpf_get_stack) */
	USTACK_EARLY,	   /* of those, because the process's tables were not loaded yet */
	USTACK_MAPS_ASKED, /* a pc outside the known mappings asked for a fresh look */
	USTACK_UNMAPPED,   /* reached the outermost frame, by frame pointers through code
			    * mapped since the process's entry, whose file has no table */
	USTACK_NR,
};

/* Executable mappings per process, sorted by start. Code without a table
 * (JIT, [vdso], a binary without call-frame information or that did not fit)
 * is listed with nrows 0: frame pointers there, and no refresh asked for. */
#define UNWIND_MAX_MAPPINGS 128 /* a power of two */

struct unwind_mapping {
	__u64 start, end; /* [start, end) in the process */
	__u64 bias;	  /* address in the process - struct unwind_crow.pc */
	__u32 first;	  /* its table: rows [first, first + nrows) of the row array */
	__u32 nrows;
};

/* A binary whose table is in the row array, by the file the kernel maps
 * (inode, and device as the kernel keeps it: major << 20 | minor): a pc in
 * code mapped since user space wrote its process's entry (ld.so maps the
 * libraries after the look at exec) finds its rows through its mapping,
 * found in the kernel, while that mapping's file offset is off. */
struct unwind_file_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

struct unwind_file {
	__u64 off;	/* the executable mapping's file offset */
	__u64 bias_off; /* its struct unwind_mapping.bias is its start - off + bias_off */
	__u32 first, nrows;
};

struct unwind_proc {
	__u32 n;
	__u32 gen;	/* this version of the entry, never 0: keys the BPF side's row cache */
	__u64 asked_ns; /* when the BPF side last asked for a fresh look at the maps */
	/* a JVM: [jvm_lo, jvm_hi) is HotSpot's template interpreter, all the
	 * methods it runs in one piece of code (0, 0: not a JVM) */
	__u64 jvm_lo, jvm_hi;
	struct unwind_mapping m[UNWIND_MAX_MAPPINGS];
};

/* A frame in the interpreter of a JVM is recorded as the method it runs:
 * UNWIND_JVM_METHOD | the Method* its frame holds, HotSpot's
 * (frame::interpreter_frame_method_offset, -3 words from rbp on x86-64),
 * in place of its pc; the stack then ends with a word UNWIND_JVM_PID |
 * the process's pid, which the methods belong to. User space names them
 * (src/symbols/jvm_procs.c). A user address never has these bits. */
#define UNWIND_JVM_METHOD     (1ULL << 62)
#define UNWIND_JVM_PID	      (3ULL << 61)
#define UNWIND_JVM_TAG_MASK   (7ULL << 61)
#define UNWIND_JVM_METHOD_OFF 24

/* An Erlang node whose JIT keeps no frame pointers (started without
 * +JPperf true), whose code has no tables either. A frame in its code is
 * stepped over as OTP's gdb support does (erts/etc/unix/jit-reader.c):
 * the caller's return address is the first word from sp with its two low
 * bits clear (an Erlang stack holds tagged terms, which never have them,
 * and return addresses, which the JIT aligns), here also within the JIT's
 * code. The outermost Erlang frame returns to normal_exit. User space
 * (src/symbols/beam_jit.c) reads these from the node's JIT. */
struct unwind_beam {
	__u64 code_lo, code_hi; /* [code_lo, code_hi): every module's code */
	__u64 normal_exit;
};

/* The words one such step reads from sp: an Erlang frame's return address
 * is above its Y registers (the variables live across its calls). */
#define UNWIND_BEAM_SCAN 32

#endif
