// SPDX-License-Identifier: GPL-2.0
/*
 * usdt_work: USDT probes hit a known number of times from known stacks.
 *
 *   usdt_work N        tick_a() hits work:tick N times, tick_b() 2N times;
 *                      guarded() hits work:guarded N times, but only while
 *                      its semaphore is raised (a tracer attached to it)
 *   usdt_work bench N  tick_bench() hits work:tick N times as fast as it
 *                      can (for tools/bench_usdt.sh)
 *   usdt_work types N  typed() hits the types: probes N times each, their
 *                      arguments of every width and sign, a constant,
 *                      pointers and strings (see typed())
 *
 * Prints "guarded K": how many times guarded() found its semaphore raised;
 * in bench mode "hits N" and "secs T", how long the hits took.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "workload.h"

__extension__ unsigned short work_tick_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short work_guarded_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short types_small_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short types_mid_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short types_big_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short types_regs_semaphore __attribute__((unused))
__attribute__((section(".probes")));
__extension__ unsigned short types_text_semaphore __attribute__((unused))
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

/* Read through volatile, so that the compiler passes them as it finds
 * them (registers, stack slots), not as constants. */
static volatile int8_t s8 = -5;
static volatile uint8_t u8 = 250;
static volatile int16_t s16 = -300;
static volatile uint16_t u16 = 65000;
static volatile int32_t s32 = -100000;
static volatile uint32_t u32 = 4000000000u;
static volatile int64_t s64 = -1099511627776;
static volatile uint64_t u64 = 0x8000000000000005ull;
static unsigned long not_text = 0x0a0b0c0d;

/* types:regs (-100000, 65000, -5) from registers of three widths. */
NOINLINE static void regs(void)
{
	register int32_t a asm("r12") = s32;
	register uint16_t b asm("r13") = u16;
	register int8_t c asm("r14") = s8;

	STAP_PROBE3(types, regs, a, b, c);
}

/* types:small (-5, 250, -300), types:mid (65000, -100000, 4000000000),
 * types:big (-2^40, 2^63 + 5, the constant 42), types:text ("GET /users",
 * a pointer to bytes that are no text, ""), types:regs: n times each. */
NOINLINE static void typed(unsigned long n)
{
	const char *volatile path = "GET /users", *volatile empty = "";

	for (unsigned long i = 0; i < n; i++) {
		int8_t a = s8;
		uint8_t b = u8;
		int16_t c = s16;
		uint16_t d = u16;
		int32_t e = s32;
		uint32_t f = u32;
		int64_t g = s64;
		uint64_t h = u64;

		STAP_PROBE3(types, small, a, b, c);
		STAP_PROBE3(types, mid, d, e, f);
		STAP_PROBE3(types, big, g, h, 42);
		STAP_PROBE3(types, text, path, &not_text, empty);
		regs();
	}
}

int main(int argc, char **argv)
{
	double n;
	unsigned long seen;

	if (argc == 3 && !strcmp(argv[1], "bench"))
		return bench(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "types")) {
		if (parse_num(argv[2], &n) || n < 1)
			return 2;
		usleep(300000);
		typed((unsigned long)n);
		return 0;
	}
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
