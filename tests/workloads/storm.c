// SPDX-License-Identifier: GPL-2.0
/*
 * storm: loads for the fault tests, where a profiler meets many calls, many
 * threads or many processes at once.
 *
 *   storm rate SECONDS           calls hot() as fast as it can for SECONDS
 *                                and prints "rate R" (calls per second) for
 *                                every 0.1 s of it, then "calls N"
 *   storm threads T M            T threads (up to 4096), started together,
 *                                each calls thread_call() M times
 *   storm spin T SECONDS         T threads spin in thread_spin for SECONDS
 *   storm sleep T SECONDS        T threads sleep in thread_sleep, 10 ms at a
 *                                time, for SECONDS
 *   storm stacks T SECONDS       T threads spin for SECONDS at the end of
 *                                ever new stacks (walk_a and walk_b in a
 *                                random order, 32 to 95 deep: some 500
 *                                bytes of stack each)
 *   storm forks N K              N children, 8 at a time, each forked and
 *                                exec'd as "storm child K"
 *   storm child K                child_call() K times
 *
 * Exits 0, 1 when a thread or child failed, 2 on bad arguments.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

#define MAX_THREADS   4096
#define THREAD_STACK  (64 * 1024)
#define FORKS_AT_ONCE 8

NOINLINE void hot(void)
{
	sink++;
}

NOINLINE void thread_call(void)
{
	sink++;
}

NOINLINE void child_call(void)
{
	sink++;
}

NOINLINE void thread_spin(double deadline)
{
	while (now() < deadline)
		spin(10007);
}

NOINLINE void thread_sleep(double deadline)
{
	struct timespec ten_ms = { 0, 10000000 };

	while (now() < deadline)
		nanosleep(&ten_ms, NULL);
}

NOINLINE void walk_a(unsigned int path, int depth);
NOINLINE void walk_b(unsigned int path, int depth);

/* Recurses DEPTH levels through walk_a and walk_b as the bits of PATH say,
 * then spins: each PATH is a stack of its own. */
NOINLINE void walk_a(unsigned int path, int depth)
{
	if (depth == 0)
		spin(2003);
	else if (path & 1)
		walk_a(path >> 1, depth - 1);
	else
		walk_b(path >> 1, depth - 1);
}

NOINLINE void walk_b(unsigned int path, int depth)
{
	if (depth == 0)
		spin(2003);
	else if (path & 1)
		walk_a(path >> 1, depth - 1);
	else
		walk_b(path >> 1, depth - 1);
}

NOINLINE void walk(double deadline)
{
	unsigned int seed = (unsigned int)pthread_self();

	while (now() < deadline) {
		seed = seed * 1103515245 + 12345;
		walk_a(seed >> 6, 32 + (int)(seed & 63));
	}
}

static int run_rate(double seconds)
{
	double start = now(), tick = start, t;
	unsigned long long total = 0, in_tick = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	do {
		for (int i = 0; i < 1024; i++)
			hot();
		in_tick += 1024;
		t = now();
		if (t - tick >= 0.1) {
			printf("rate %.0f\n", in_tick / (t - tick));
			total += in_tick;
			in_tick = 0;
			tick = t;
		}
	} while (t - start < seconds);
	printf("calls %llu\n", total + in_tick);
	return 0;
}

static long per_thread;
static double spin_until;
static pthread_barrier_t start_line;

static void *calls_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	for (long i = 0; i < per_thread; i++)
		thread_call();
	return NULL;
}

static void *spin_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	thread_spin(spin_until);
	return NULL;
}

static void *sleep_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	thread_sleep(spin_until);
	return NULL;
}

static void *walk_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	walk(spin_until);
	return NULL;
}

static int run_threads(long n, void *(*fn)(void *))
{
	static pthread_t tids[MAX_THREADS];
	pthread_attr_t attr;
	long started = 0;
	int failed = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	pthread_barrier_init(&start_line, NULL, (unsigned int)n);
	for (; started < n; started++)
		if (pthread_create(&tids[started], &attr, fn, NULL))
			break;
	if (started < n) {
		fprintf(stderr, "storm: cannot start thread %ld of %ld\n", started + 1, n);
		_exit(1); /* the others wait at the barrier for ever */
	}
	for (long i = 0; i < n; i++)
		failed |= pthread_join(tids[i], NULL) != 0;
	return failed;
}

/* Starts one child that execs SELF child K. */
static pid_t start_child(const char *self, const char *k)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, "storm", "child", k, (char *)NULL);
		perror("storm: exec");
		_exit(127);
	}
	return pid;
}

static int run_forks(long n, const char *k)
{
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	long started = 0, running = 0;
	int status, failed = 0;

	if (len <= 0)
		return 1;
	self[len] = '\0';
	while (started < n || running) {
		if (started < n && running < FORKS_AT_ONCE) {
			if (start_child(self, k) < 0)
				return 1;
			started++;
			running++;
			continue;
		}
		if (wait(&status) < 0)
			return 1;
		running--;
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	return failed;
}

static void run_child(long k)
{
	for (long i = 0; i < k; i++)
		child_call();
}

static int usage(void)
{
	fprintf(stderr,
		"usage: storm rate SECONDS | threads T M | spin T SECONDS | sleep T SECONDS |\n"
		"       stacks T SECONDS | forks N K | child K\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double a = 0, b = 0;

	if (argc > 2 && parse_num(argv[2], &a))
		return usage();
	if (argc > 3 && parse_num(argv[3], &b))
		return usage();
	if (!strcmp(mode, "rate") && argc == 3)
		return run_rate(a);
	if (!strcmp(mode, "threads") && argc == 4 && a >= 1 && a <= MAX_THREADS) {
		per_thread = (long)b;
		return run_threads((long)a, calls_main);
	}
	if (!strcmp(mode, "spin") && argc == 4 && a >= 1 && a <= MAX_THREADS) {
		spin_until = now() + b;
		return run_threads((long)a, spin_main);
	}
	if (!strcmp(mode, "sleep") && argc == 4 && a >= 1 && a <= MAX_THREADS) {
		spin_until = now() + b;
		return run_threads((long)a, sleep_main);
	}
	if (!strcmp(mode, "stacks") && argc == 4 && a >= 1 && a <= MAX_THREADS) {
		spin_until = now() + b;
		return run_threads((long)a, walk_main);
	}
	if (!strcmp(mode, "forks") && argc == 4)
		return run_forks((long)a, argv[3]);
	if (!strcmp(mode, "child") && argc == 3) {
		run_child((long)a);
		return 0;
	}
	return usage();
}
