// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_tree: a CPU-bound program with a known call tree, for sampling tests.
 *
 *   main -> tree_a -> burn            (2 units of work per round)
 *   main -> tree_b -> tree_c -> burn  (1 unit of work per round)
 *
 * so tree_a gets about twice the samples of tree_b, tree_b's self time is ~0
 * and tree_c is only ever seen under tree_b.
 *
 * usage: cpu_tree SECONDS [EXIT_STATUS]
 */
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

/*
 * Loop iterations in one unit of work, ~10 ms. A round (three units) must be
 * long beside the sampling period: with rounds shorter than a sample, the
 * two periods can lock in phase and give tree_a anything from 1 to 3 times
 * tree_b's samples (seen at 2.74 on a CI machine with 0.7 ms rounds).
 */
#define UNIT 16000057UL

NOINLINE void burn(unsigned long iterations)
{
	spin(iterations);
}

NOINLINE void tree_c(void)
{
	burn(UNIT);
}

NOINLINE void tree_b(void)
{
	tree_c();
}

NOINLINE void tree_a(void)
{
	burn(2 * UNIT);
}

static int parse_args(int argc, char **argv, double *seconds, int *status)
{
	char *end;

	if (argc < 2 || argc > 3)
		return -1;
	if (parse_num(argv[1], seconds))
		return -1;
	*status = 0;
	if (argc == 3) {
		long v = strtol(argv[2], &end, 10);

		if (end == argv[2] || *end || v < 0 || v > 255)
			return -1;
		*status = (int)v;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double seconds, deadline;
	int status;

	if (parse_args(argc, argv, &seconds, &status)) {
		fprintf(stderr, "usage: cpu_tree SECONDS [EXIT_STATUS]\n");
		return 2;
	}
	deadline = now() + seconds;
	do {
		tree_a();
		tree_b();
	} while (now() < deadline);
	return status;
}
