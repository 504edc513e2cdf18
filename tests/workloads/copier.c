// SPDX-License-Identifier: GPL-2.0
/*
 * copier: known numbers of calls of IFUNCs, for the -f/-l naming tests.
 *
 *   copier memcpy N   copy_n() calls libc's memcpy N times (the size is
 *                     volatile: no inlined copy), memmove none
 *   copier memmove N  move_n() calls libc's memmove N times
 *   copier pick N     pick_n() calls pick(), an IFUNC of this program whose
 *                     resolver picks one of two by the CPU, N times
 *
 * No stdio and no allocation in the loops. Exits 0, or 2 on bad arguments.
 */
#include <stdio.h>
#include <string.h>

#include "workload.h"

static char src[256], dst[256];
static volatile size_t len = 64;

static NOINLINE void copy_n(long n)
{
	for (long i = 0; i < n; i++)
		memcpy(dst, src + (i & 7), len);
}

static NOINLINE void move_n(long n)
{
	for (long i = 0; i < n; i++)
		memmove(dst, src + (i & 7), len);
}

typedef int (*pick_fn)(int);

static NOINLINE int pick_plain(int x)
{
	return x + (int)sink;
}

static NOINLINE int pick_fast(int x)
{
	return x - (int)sink;
}

static __attribute__((used)) pick_fn resolve_pick(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") ? pick_fast : pick_plain;
}

int pick(int x) __attribute__((ifunc("resolve_pick")));

static NOINLINE void pick_n(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)pick((int)i);
}

int main(int argc, char **argv)
{
	double n;

	if (argc != 3 || parse_num(argv[2], &n)) {
		fprintf(stderr, "usage: copier memcpy|memmove|pick N\n");
		return 2;
	}
	if (!strcmp(argv[1], "memcpy"))
		copy_n((long)n);
	else if (!strcmp(argv[1], "memmove"))
		move_n((long)n);
	else if (!strcmp(argv[1], "pick"))
		pick_n((long)n);
	else
		return 2;
	return dst[0];
}
