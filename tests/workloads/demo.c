// SPDX-License-Identifier: GPL-2.0
/*
 * demo: a toy "parse -> compute -> render" pipeline for `make demo`, with a
 * flame graph worth looking at.  Per frame of work:
 *
 *   parse_input   ~20%  (tokenize ~ 3/4, check_syntax ~ 1/4)
 *   compute       ~55%  (matrix_multiply ~ 2/3, reduce ~ 1/3)
 *   render        ~25%  (rasterize ~ 3/5, compress ~ 2/5)
 *
 * usage: demo SECONDS
 */
#include <stdio.h>

#include "workload.h"

/* The common leaf: roughly one microsecond of work per 1000 units. */
NOINLINE void work(unsigned long units)
{
	for (volatile unsigned long i = 0; i < units; i++)
		sink ^= i * 2654435761UL;
}

NOINLINE void tokenize(void)
{
	work(150000);
}

NOINLINE void check_syntax(void)
{
	work(50000);
}

NOINLINE void parse_input(void)
{
	tokenize();
	check_syntax();
}

NOINLINE void matrix_multiply(void)
{
	work(366000);
}

NOINLINE void reduce(void)
{
	work(184000);
}

NOINLINE void compute(void)
{
	matrix_multiply();
	reduce();
}

NOINLINE void rasterize(void)
{
	work(150000);
}

NOINLINE void compress(void)
{
	work(100000);
}

NOINLINE void render(void)
{
	rasterize();
	compress();
}

NOINLINE void run_frame(void)
{
	parse_input();
	compute();
	render();
}

int main(int argc, char **argv)
{
	double seconds, deadline;
	unsigned long frames = 0;

	if (argc != 2 || parse_num(argv[1], &seconds)) {
		fprintf(stderr, "usage: demo SECONDS\n");
		return 2;
	}
	deadline = now() + seconds;
	do {
		run_frame();
		frames++;
	} while (now() < deadline);
	printf("demo: rendered %lu frames in %.1f s\n", frames, seconds);
	return 0;
}
