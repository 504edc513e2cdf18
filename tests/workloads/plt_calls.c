// SPDX-License-Identifier: GPL-2.0
/*
 * plt_calls: a tight loop calling libc's abs() through the executable's
 * PLT, so that a visible share of the samples (about a tenth) land in the
 * stub abs@plt itself, for the unwinding and naming tests.
 *
 *   main -> plt_loop -> abs@plt -> abs (libc)
 *
 * Built with -fno-builtin (else abs() is inlined) and -z lazy (the stubs
 * GNU ld writes for lazy binding, whose CFA is a DWARF expression).
 *
 * usage: plt_calls SECONDS
 */
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

#define ROUND 100000 /* calls between two looks at the clock */

NOINLINE void plt_loop(void)
{
	unsigned long s = 0;

	for (int i = 0; i < ROUND; i++)
		s += (unsigned long)abs(i - ROUND / 2);
	sink += s;
}

int main(int argc, char **argv)
{
	double seconds, start;

	if (argc != 2 || parse_num(argv[1], &seconds)) {
		fprintf(stderr, "usage: plt_calls SECONDS\n");
		return 2;
	}
	start = now();
	while (now() - start < seconds)
		plt_loop();
	return 0;
}
