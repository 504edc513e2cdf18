// SPDX-License-Identifier: GPL-2.0
/*
 * inlined: work in functions inlined into their callers, for --inline and
 * --file-line.
 *
 *   main -> outer -> middle (inlined) -> inner (inlined)   all the work
 *
 * The symbol table knows main and outer only: a sample in inner's loop is
 * main;outer without DWARF, main;outer;middle;inner with --inline. The
 * line marked LINE-INNER is where every sample lands.
 *
 * usage: inlined SECONDS
 */
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

static inline __attribute__((always_inline)) unsigned long inner(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += i * i ^ (s >> 3); /* LINE-INNER */
	return s;
}

static inline __attribute__((always_inline)) unsigned long middle(unsigned long n)
{
	return inner(n) + 1; /* LINE-MIDDLE */
}

NOINLINE void outer(void)
{
	sink += middle(1000003); /* LINE-OUTER */
}

int main(int argc, char **argv)
{
	double seconds, start;

	if (argc != 2 || parse_num(argv[1], &seconds)) {
		fprintf(stderr, "usage: inlined SECONDS\n");
		return 2;
	}
	start = now();
	while (now() - start < seconds)
		outer();
	return 0;
}
