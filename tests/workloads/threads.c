// SPDX-License-Identifier: GPL-2.0
/*
 * threads: starts its worker threads late, so a profiler that only looks at
 * the threads present when it attached misses them.
 *
 * The main thread waits DELAY seconds (default 0.3), or with DELAY "signal"
 * until it gets SIGUSR1, then starts NTHREADS (default 4) threads that spin in
 * thread_spin for SECONDS and joins them.
 *
 * usage: threads SECONDS [NTHREADS [DELAY|signal]]
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "workload.h"

#define MAX_THREADS 64

NOINLINE void spin_chunk(void)
{
	spin(100003);
}

NOINLINE void *thread_spin(void *arg)
{
	double deadline = *(const double *)arg;

	do
		spin_chunk();
	while (now() < deadline);
	return NULL;
}

static int wait_start(const char *delay)
{
	struct timespec ts;
	sigset_t set;
	double d;
	int sig;

	if (strcmp(delay, "signal") == 0) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		return sigwait(&set, &sig);
	}
	if (parse_num(delay, &d))
		return -1;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
	return nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	pthread_t tids[MAX_THREADS];
	double seconds, n = 4, deadline;
	sigset_t set;

	if (argc < 2 || argc > 4 || parse_num(argv[1], &seconds) ||
	    (argc > 2 && (parse_num(argv[2], &n) || n < 1 || n > MAX_THREADS || n != (int)n))) {
		fprintf(stderr, "usage: threads SECONDS [NTHREADS [DELAY|signal]]\n");
		return 2;
	}
	/* Blocked before anything can send it, and inherited by the threads. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (wait_start(argc > 3 ? argv[3] : "0.3")) {
		fprintf(stderr, "threads: bad DELAY '%s'\n", argv[3]);
		return 2;
	}
	deadline = now() + seconds;
	for (int i = 0; i < (int)n; i++) {
		if (pthread_create(&tids[i], NULL, thread_spin, &deadline)) {
			fprintf(stderr, "threads: cannot create a thread\n");
			return 1;
		}
	}
	for (int i = 0; i < (int)n; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
