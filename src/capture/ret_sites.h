/* Where a function returns: its ret instructions and tail-call jumps, found
 * by disassembling it (capstone). Probing these instead of hijacking the
 * return address (uretprobe) keeps the stack intact for unwinders. */
#ifndef FLAMEBPF_RET_SITES_H
#define FLAMEBPF_RET_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a return site returns. A probe runs before its instruction: a jcc's
 * whether it jumps or not. */
enum site_kind {
	SITE_RET,
	SITE_JMP, /* a tail call, if the frame is gone (else a jump to code of
		   * the function that has no symbol: a stripped .cold part) */
	SITE_JCC, /* likewise when taken: SITE_JCC + the x86 condition code (the
		   * low nibble of its opcode), up to SITE_JCC + 15 */
	/* jmp *%reg, a tail call when the register points out of the function
	 * (else a jump table's): SITE_JMP_REG + the register's number in the
	 * encoding (rax 0, rcx 1, ..., r15 15) */
	SITE_JMP_REG = SITE_JCC + 16, /* as bpf/trace.h has them */
	SITE_KIND_END = SITE_JMP_REG + 16,
};

struct ret_sites {
	uint64_t *off; /* file offsets of the return sites */
	uint8_t *kind; /* per site: enum site_kind */
	size_t n, cap;
	/* Control never leaves the function's bytes but by its ret: no call, no
	 * indirect jump, no jump elsewhere, no trap. Nothing can unwind through
	 * such a function's frame, so a uretprobe may replace its return
	 * address even where exceptions are thrown. */
	bool leaf;
	bool complete; /* the whole body (and its fragments) disassembled */
	/* It may end in a jump to other code (a tail call): that code runs
	 * on with this function's return address. */
	bool tail;
	bool touches_ret; /* it uses its own return address (ret_slot.h) */
	size_t nfrags;	  /* fragments (gcc's .cold parts) followed */
};

/* Bytes of code: a function, or one of its fragments. */
struct code_range {
	uint64_t vaddr, size, file_off;
};

/* Whether the code at vaddr, outside the function, is a fragment of it (a
 * part gcc split off, such as "f.cold", reached by a jump): if so, sets
 * *frag to the whole fragment and returns true. */
typedef bool (*fragment_fn)(void *arg, uint64_t vaddr, struct code_range *frag);

struct disasm;

/* For other readers of code: what they ask of an instruction a disassembler
 * (disasm.h) decoded with details. */
struct cs_insn;
bool disasm__in_group(const struct cs_insn *insn, uint8_t group);
/* A jmp, jcc or call to a constant address: sets *target. */
bool disasm__direct_branch(const struct cs_insn *insn, uint64_t *target);
/* The number x86 encodes a 64-bit register by (rax 0 ... r15 15), or -1. */
int disasm__reg_number(int capstone_reg);
/* A jcc's condition code (x86's, 0 o ... 15 g), or -1 for other insns. */
int disasm__jcc_cc(const struct cs_insn *insn);

/* Disassembles the function body of the file open on fd, and the fragments
 * its jumps reach (frag may be NULL: no fragments), and appends its return
 * sites to *out (which starts zeroed): ret instructions, and tail calls:
 * direct jumps elsewhere, conditional or not, and jumps through a pointer
 * in memory (the GOT, a table of functions). Returns 0 or -errno. */
int ret_sites__find(struct disasm *d, int fd, const struct code_range *body, fragment_fn frag,
		    void *arg, struct ret_sites *out);

void ret_sites__free(struct ret_sites *rs);

/* How a uprobe at a function's entry runs (measured on Linux 6.18): the
 * kernel emulates push and branches and turns a 5-byte nop into a call
 * (~0.2-0.4 us); any other instruction is single-stepped out of line (~4 us
 * in a VM); some it refuses outright. */
enum entry_kind {
	ENTRY_EMULATED,
	ENTRY_STEPPED,
	/* a lock or ES/CS/SS/DS segment prefix, int3/int/into/int1; or one the
	 * kernel would run wrongly (xchg with r8-r15 taken for a nop) */
	ENTRY_REFUSED,
};

/* Where to probe the entry of the function at file_off, and how that probe
 * runs. An endbr64 (which changes nothing a probe reads) is stepped over
 * when the instruction after it is emulated. Refused entries are worth
 * knowing up front: a failed link costs the kernel ~0.1 s to undo. When
 * the code cannot be read, says STEPPED and lets the kernel decide. */
enum entry_kind disasm__entry(struct disasm *d, int fd, uint64_t file_off, uint64_t *site);

#endif
