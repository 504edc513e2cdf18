// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "proc_mem.h"

int proc_mem__read(void *arg, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = (pid_t)(intptr_t)arg;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}
