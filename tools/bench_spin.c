// SPDX-License-Identifier: GPL-2.0
/*
 * CPU-bound load for tools/bench.sh: NTHREADS threads spin for SECONDS of
 * wall time; prints the loop iterations per CPU-second (of the threads' own
 * CPU time). Interrupt handlers, a sampling profiler's included, are charged
 * to the thread they interrupt (without CONFIG_IRQ_TIME_ACCOUNTING), so their
 * cost shows as a drop; time other processes take from the threads does not.
 *
 *   bench_spin SECONDS [NTHREADS]      (NTHREADS defaults to 2)
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64
#define CHUNK 4096 /* iterations between looks at the stop flag */

struct worker {
	pthread_t tid;
	uint64_t iters;
	double cpu_secs;
	uint64_t sink;
	char pad[64]; /* keeps each worker on its own cache line */
};

static atomic_int go, stop;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t spin_chunk(uint64_t x)
{
	for (int i = 0; i < CHUNK; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t x = (uintptr_t)arg, n = 0;
	double t0;

	while (!atomic_load_explicit(&go, memory_order_acquire))
		;
	t0 = cpu_now();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		x = spin_chunk(x);
		n += CHUNK;
	}
	w->cpu_secs = cpu_now() - t0;
	w->iters = n;
	w->sink = x;
	return NULL;
}

/* Returns the number parsed from @s, or -1 when @s is not a positive number. */
static double parse_pos(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0))
		return -1;
	return v;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	double secs = argc > 1 ? parse_pos(argv[1]) : -1;
	double nthr = argc > 2 ? parse_pos(argv[2]) : 2;
	double iters = 0, cpu_secs = 0;
	struct timespec ts;
	int n, err;

	if (argc > 3 || secs <= 0 || nthr < 1 || nthr > MAX_THREADS || nthr != (int)nthr) {
		fprintf(stderr, "usage: bench_spin SECONDS [NTHREADS]\n");
		return 2;
	}
	n = (int)nthr;
	for (int i = 0; i < n; i++) {
		err = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
		if (err) {
			fprintf(stderr, "bench_spin: cannot create a thread: %s\n", strerror(err));
			return 1;
		}
	}
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	atomic_store_explicit(&go, 1, memory_order_release);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	atomic_store_explicit(&stop, 1, memory_order_relaxed);
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].tid, NULL);
		iters += (double)w[i].iters;
		cpu_secs += w[i].cpu_secs;
	}
	printf("%.0f\n", iters / cpu_secs);
	return 0;
}
