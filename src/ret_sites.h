/* Where a function returns: its ret instructions and tail-call jumps, found
 * by disassembling it (capstone). Probing these instead of hijacking the
 * return address (uretprobe) keeps the stack intact for unwinders. */
#ifndef FLAMEBPF_RET_SITES_H
#define FLAMEBPF_RET_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ret_sites {
	uint64_t *off; /* file offsets of the return sites */
	size_t n, cap;
	bool leaf;     /* no call and no indirect jump: nothing can unwind through it */
	bool complete; /* the whole body disassembled */
};

struct disasm;

/* Returns 0 or -ENOMEM / -ENOTSUP (no x86-64 disassembler). */
int disasm__new(struct disasm **out);
void disasm__free(struct disasm *d);

/* Disassembles the function of size bytes at file offset file_off (link
 * address vaddr) of the file open on fd, and appends its return sites to
 * *out (which starts zeroed). Returns 0 or -errno. */
int ret_sites__find(struct disasm *d, int fd, uint64_t file_off, uint64_t vaddr, uint64_t size,
		    struct ret_sites *out);

void ret_sites__free(struct ret_sites *rs);

/* How a uprobe at a function's entry runs (measured on Linux 6.18): the
 * kernel emulates push and branches and turns a 5-byte nop into a call
 * (~0.2-0.4 us); any other instruction is single-stepped out of line (~4 us
 * in a VM); some it refuses outright. */
enum entry_kind {
	ENTRY_EMULATED,
	ENTRY_STEPPED,
	ENTRY_REFUSED, /* a lock or ES/CS/SS/DS segment prefix, int3/int/into/int1 */
};

/* Where to probe the entry of the function at file_off, and how that probe
 * runs. An endbr64 (which changes nothing a probe reads) is stepped over
 * when the instruction after it is emulated. Refused entries are worth
 * knowing up front: a failed link costs the kernel ~0.1 s to undo. When
 * the code cannot be read, says STEPPED and lets the kernel decide. */
enum entry_kind disasm__entry(struct disasm *d, int fd, uint64_t file_off, uint64_t *site);

/* True when code in the ELF file open on fd can be unwound through by
 * something that reads return addresses: C++ exception tables
 * (.gcc_except_table), Go (.gopclntab), or the unwinder and its callers
 * (an _Unwind_ symbol, defined or imported). */
bool ret_sites__unwinds(int fd);

#endif
