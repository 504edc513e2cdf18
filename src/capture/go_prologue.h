/* Go's stack check: a Go function begins by comparing the stack pointer
 * with its goroutine's stack guard and, when short of room, calls
 * runtime.morestack, which copies the stack elsewhere and jumps back to
 * the function's first instruction. A probe there would see that one call
 * enter twice. */
#ifndef FLAMEBPF_GO_PROLOGUE_H
#define FLAMEBPF_GO_PROLOGUE_H

#include <stdbool.h>
#include <stdint.h>

struct disasm;

/* The file offset of the first instruction past the stack check of the Go
 * function at file_off (size bytes, in the file open on fd): the one after
 * the check's last conditional jump to a block that calls (morestack) and
 * jumps back to the function's start. The check writes neither memory nor
 * the stack pointer, so there the return address is still at the stack
 * pointer, as at the entry. Returns file_off when the function has no such
 * check (NOSPLIT functions, C code) or its code cannot be read. Sets *g_r14
 * (may be NULL) when the check reads the goroutine from r14, as code of
 * Go's register ABI does: r14 holds it at the entry and the returns. */
uint64_t go_prologue__end(struct disasm *d, int fd, uint64_t file_off, uint64_t size, bool *g_r14);

#endif
