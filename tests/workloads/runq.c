// SPDX-License-Identifier: GPL-2.0
/*
 * runq: three threads spin on CPU 0 for SECONDS, so that each waits in the
 * run queue about two thirds of the time. Before it ends, each prints its
 * wait as the scheduler counts it (/proc/thread-self/schedstat, the second
 * field, ns): "TID WAIT_NS", a line per thread.
 *
 * usage: runq SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workload.h"

#define NTHREADS 3

static double seconds;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

NOINLINE void spinner(void)
{
	double until = now() + seconds;

	while (now() < until)
		spin(1000);
}

static void *run(void *arg)
{
	unsigned long long cpu_ns, wait_ns;
	cpu_set_t one;
	FILE *f;

	(void)arg;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		exit(1);
	spinner();
	f = fopen("/proc/thread-self/schedstat", "r");
	if (!f || fscanf(f, "%llu %llu", &cpu_ns, &wait_ns) != 2)
		exit(1);
	fclose(f);
	pthread_mutex_lock(&out);
	printf("%ld %llu\n", (long)syscall(SYS_gettid), wait_ns);
	pthread_mutex_unlock(&out);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];

	if (argc != 2 || parse_num(argv[1], &seconds) || seconds <= 0) {
		fprintf(stderr, "usage: runq SECONDS\n");
		return 2;
	}
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, run, NULL))
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	return 0;
}
