// SPDX-License-Identifier: GPL-2.0
/*
 * usdt_work: USDT probes hit a known number of times from known stacks.
 *
 *   usdt_work N        tick_a() hits work:tick N times, tick_b() 2N times;
 *                      guarded() hits work:guarded N times, but only while
 *                      its semaphore is raised (a tracer attached to it)
 *   usdt_work bench N  tick_bench() hits work:tick N times as fast as it
 *                      can (for tools/bench_usdt.sh)
 *
 * Prints "guarded K": how many times guarded() found its semaphore raised;
 * in bench mode "hits N" and "secs T", how long the hits took.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "workload.h"

__extension__ unsigned short work_tick_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short work_guarded_semaphore __attribute__((unused))
__attribute__((section(".probes")));

NOINLINE static void tick_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		STAP_PROBE1(work, tick, i);
}

NOINLINE static void tick_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		STAP_PROBE1(work, tick, i);
}

NOINLINE static void tick_bench(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		STAP_PROBE1(work, tick, i);
}

static int bench(const char *arg)
{
	double n, t;

	if (parse_num(arg, &n) || n < 1) {
		fprintf(stderr, "usage: usdt_work bench N\n");
		return 2;
	}
	t = now();
	tick_bench((unsigned long)n);
	printf("hits %lu\nsecs %.6f\n", (unsigned long)n, now() - t);
	return 0;
}

NOINLINE static unsigned long guarded(unsigned long n)
{
	unsigned long seen = 0;

	for (unsigned long i = 0; i < n; i++) {
		if (!work_guarded_semaphore)
			continue;
		seen++;
		STAP_PROBE2(work, guarded, i, seen);
	}
	return seen;
}

int main(int argc, char **argv)
{
	double n;
	unsigned long seen;

	if (argc == 3 && !strcmp(argv[1], "bench"))
		return bench(argv[2]);
	if (argc != 2 || parse_num(argv[1], &n)) {
		fprintf(stderr, "usage: usdt_work N\n");
		return 2;
	}
	/* a profiler reads a new process's tables in its first milliseconds */
	usleep(300000);
	tick_a((unsigned long)n);
	tick_b(2 * (unsigned long)n);
	seen = guarded((unsigned long)n);
	printf("guarded %lu\n", seen);
	return 0;
}
