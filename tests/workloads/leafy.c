// SPDX-License-Identifier: GPL-2.0
/*
 * leafy: a third of the time in a leaf function without a frame, for the
 * unwinding tests.
 *
 *   main -> outer_a -> leaf   (3 units of work per round, all in leaf)
 *   main -> outer_b           (7 units, in outer_b itself)
 *
 * Built with gcc -O2 -fno-omit-frame-pointer, leaf keeps its work in
 * registers and gets no frame, so a frame-pointer walk from it finds
 * outer_a's frame and reports its caller: main -> leaf, and outer_a looks
 * idle. Its inclusive share is really 30%.
 *
 * usage: leafy SECONDS
 */
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

#define UNIT 1000003UL /* loop iterations in one unit of work */

/* Work in registers only: no stack, so no frame (with gcc). */
static inline __attribute__((always_inline)) unsigned long work(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++) {
		s += i * i;
		__asm__ volatile("" : "+r"(s));
	}
	return s;
}

NOINLINE unsigned long leaf(unsigned long n)
{
	return work(n);
}

NOINLINE void outer_a(void)
{
	sink += leaf(3 * UNIT);
}

NOINLINE void tick(void)
{
	sink++;
}

/* Calls tick() between its units, so it has a frame of its own. */
NOINLINE void outer_b(void)
{
	for (int i = 0; i < 7; i++) {
		sink += work(UNIT);
		tick();
	}
}

int main(int argc, char **argv)
{
	double seconds, start;

	if (argc != 2 || parse_num(argv[1], &seconds)) {
		fprintf(stderr, "usage: leafy SECONDS\n");
		return 2;
	}
	start = now();
	while (now() - start < seconds) {
		outer_a();
		outer_b();
	}
	return 0;
}
