// SPDX-License-Identifier: GPL-2.0
/*
 * Context switches for tools/bench_offcpu.sh: two threads pass a byte back
 * and forth through two pipes, so that each blocks once a round trip.
 *
 *   bench_switch SECONDS FILE
 *	ping-pong for SECONDS of wall time; write "trips N", "secs T" and
 *	"blocks_per_sec R" (two blocks a round trip) to FILE
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Answers each byte until it reads a 0. */
static void *echo(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1 && c)
		if (write(pong[1], &c, 1) != 1)
			exit(1);
	return NULL;
}

static int trip(char c)
{
	return write(ping[1], &c, 1) == 1 && read(pong[0], &c, 1) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	double secs, start, took;
	unsigned long trips = 0;
	pthread_t th;
	FILE *f;

	if (argc != 3 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: bench_switch SECONDS FILE\n");
		return 2;
	}
	if (pipe(ping) || pipe(pong) || pthread_create(&th, NULL, echo, NULL))
		return 1;
	start = now();
	do {
		for (int i = 0; i < 256; i++, trips++)
			if (trip(1))
				return 1;
	} while (now() - start < secs);
	took = now() - start;
	if (write(ping[1], "", 1) != 1) /* the 0 that ends echo */
		return 1;
	pthread_join(th, NULL);
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "trips %lu\nsecs %.6f\nblocks_per_sec %.1f\n", trips, took, 2 * trips / took);
	return fclose(f) ? 1 : 0;
}
