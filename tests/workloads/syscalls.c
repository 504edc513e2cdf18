// SPDX-License-Identifier: GPL-2.0
/*
 * syscalls: spends most of its time in the kernel, reading 64 KiB blocks from
 * /dev/zero in sys_loop, so samples carry kernel frames above user frames.
 *
 * On x86-64 the system call is issued from sys_loop itself (not from libc's
 * read(), which has no frame pointer), so user stacks taken in the kernel
 * unwind through main -> sys_loop.
 *
 * usage: syscalls SECONDS
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workload.h"

#define BLOCK (64 * 1024)
#define ROUND 64 /* reads between two clock checks */

static char buf[BLOCK];

static inline __attribute__((always_inline)) long read_block(int fd)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"((long)BLOCK)
			 : "rcx", "r11", "memory");
	return ret;
#else
	return read(fd, buf, BLOCK);
#endif
}

NOINLINE long sys_loop(int fd, double deadline)
{
	long total = 0;

	do {
		for (int i = 0; i < ROUND; i++) {
			long n = read_block(fd);

			if (n <= 0)
				return -1;
			total += n;
		}
	} while (now() < deadline);
	return total;
}

int main(int argc, char **argv)
{
	double seconds;
	int fd;

	if (argc != 2 || parse_num(argv[1], &seconds)) {
		fprintf(stderr, "usage: syscalls SECONDS\n");
		return 2;
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("syscalls: /dev/zero");
		return 1;
	}
	if (sys_loop(fd, now() + seconds) < 0) {
		perror("syscalls: read");
		return 1;
	}
	close(fd);
	return 0;
}
