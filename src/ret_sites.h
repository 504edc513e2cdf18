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

/* False when the instruction at file_off is one x86 uprobes refuse (a lock
 * or ES/CS/SS/DS segment prefix, int3/int/into/int1): leaving those out up
 * front spares a failed link, which costs the kernel ~0.1 s to undo. True
 * when unsure: the kernel has the last word. */
bool disasm__probeable(struct disasm *d, int fd, uint64_t file_off);

/* True when code in the ELF file open on fd can be unwound through by
 * something that reads return addresses: C++ exception tables
 * (.gcc_except_table) or Go (.gopclntab). */
bool ret_sites__unwinds(int fd);

#endif
