// SPDX-License-Identifier: GPL-2.0
/*
 * Allocations for tools/bench_alloc.sh: malloc(64) and free, as fast as
 * they go, after 300 ms (a profiler reads a new process's tables first).
 *
 *   bench_malloc SECONDS FILE
 *	for SECONDS of wall time; write "pairs N", "secs T" and
 *	"pairs_per_sec R" to FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Not inlined, and the pointer kept: the compiler may not drop the pair. */
__attribute__((noinline)) static void *pair(void)
{
	void *volatile p = malloc(64);

	free(p);
	return p;
}

int main(int argc, char **argv)
{
	double secs, start, took;
	unsigned long pairs = 0;
	FILE *f;

	if (argc != 3 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: bench_malloc SECONDS FILE\n");
		return 2;
	}
	usleep(300000);
	start = now();
	do {
		for (int i = 0; i < 256; i++, pairs++)
			pair();
	} while (now() - start < secs);
	took = now() - start;
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "pairs %lu\nsecs %.6f\npairs_per_sec %.1f\n", pairs, took, pairs / took);
	return fclose(f) ? 1 : 0;
}
