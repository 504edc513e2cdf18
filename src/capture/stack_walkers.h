/* What may read the return addresses on a thread's stack while a traced
 * function runs: a uretprobe replaces the function's return address with
 * the kernel's trampoline, which no unwinder can step through. */
#ifndef FLAMEBPF_STACK_WALKERS_H
#define FLAMEBPF_STACK_WALKERS_H

#include "symbols/binaries.h"

enum stack_walker {
	/* An unwinder that runs through the frames it passes: C++ and Rust
	 * exceptions, pthread_exit()'s forced unwind, or a switch to another
	 * stack (ucontext, boost.context) that a return would follow. It
	 * passes only frames that called down to it. */
	WALKER_UNWINDER = 1,
	/* Go: the runtime walks every frame, a leaf's too, when it grows or
	 * scans a goroutine's stack. */
	WALKER_GO = 2,
};

/* The walkers (a mask of enum stack_walker) the ELF file open on fd brings
 * to the processes that map it: 0 for plain C. A file that is not ELF
 * brings none. */
unsigned int stack_walkers__of_file(int fd);

/* The walkers of all of a process's binaries (each read by its open_path):
 * 0 only when none brings one and each could be read. */
unsigned int stack_walkers__of_binaries(const struct binaries *b);

#endif
