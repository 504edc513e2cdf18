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
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Kept out of line and never tail-called, so each keeps its own stack frame. */
#ifdef __clang__
#define NOINLINE __attribute__((noinline, disable_tail_calls))
#else
#define NOINLINE __attribute__((noinline, optimize("no-optimize-sibling-calls")))
#endif

#define BLOCK (64 * 1024)
#define ROUND 64 /* reads between two clock checks */

static char buf[BLOCK];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
	char *end;
	int fd;

	if (argc != 2 || (seconds = strtod(argv[1], &end)) < 0 || end == argv[1] || *end) {
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
