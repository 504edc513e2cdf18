/* Another process's memory, read while it lives (process_vm_readv): what
 * the readers of interpreters' and JITs' records in memory are given. */
#ifndef FLAMEBPF_PROC_MEM_H
#define FLAMEBPF_PROC_MEM_H

#include <stddef.h>
#include <stdint.h>

/* How a reader of a process's records reads its memory: read(arg, ...),
 * 0 or -errno; proc_mem__read with the pid as arg, or a test's image. */
struct proc_mem {
	int (*read)(void *arg, uint64_t addr, void *buf, size_t len);
	void *arg;
};

/* Reads len bytes at addr of the process whose pid is arg (cast from
 * intptr_t) into buf. Returns 0, -EFAULT when not all of them could be
 * read, or -errno (-ESRCH: the process is gone). */
int proc_mem__read(void *arg, uint64_t addr, void *buf, size_t len);

#endif
