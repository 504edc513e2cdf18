// SPDX-License-Identifier: GPL-2.0
/*
 * napper: a thread started at once naps NAPS times for MS milliseconds each
 * (usleep, in the C library: nap_thread;nap;usleep;...;clock_nanosleep)
 * while the main thread computes, then joins it. Its first nap comes a
 * few milliseconds after the exec, while the C library is newly mapped.
 *
 * Prints the time the naps took in all: "napped NS".
 *
 * usage: napper NAPS MS
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "workload.h"

static double naps, nap_ms;
static volatile int napping = 1;

NOINLINE void nap(void)
{
	usleep((useconds_t)(nap_ms * 1000));
}

NOINLINE void *nap_thread(void *arg)
{
	double *took = arg, t = now();

	for (int i = 0; i < (int)naps; i++)
		nap();
	*took = now() - t;
	napping = 0;
	return NULL;
}

NOINLINE void compute(void)
{
	while (napping)
		spin(100000);
}

int main(int argc, char **argv)
{
	double took = 0;
	pthread_t th;

	if (argc != 3 || parse_num(argv[1], &naps) || naps < 1 || parse_num(argv[2], &nap_ms) ||
	    nap_ms < 1 || nap_ms > 10000) {
		fprintf(stderr, "usage: napper NAPS MS\n");
		return 2;
	}
	if (pthread_create(&th, NULL, nap_thread, &took))
		return 1;
	compute();
	pthread_join(th, NULL);
	printf("napped %.0f\n", took * 1e9);
	return 0;
}
