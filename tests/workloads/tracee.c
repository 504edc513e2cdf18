// SPDX-License-Identifier: GPL-2.0
/*
 * tracee: functions with known calls, nesting and wall times, for the uprobe
 * (-f) tests. Every timed function busy-waits on CLOCK_MONOTONIC: it takes
 * at least the time asked for, and more only when the machine preempts it.
 *
 *   tracee nest X_MS Y_MS K      K times: outer does X ms itself and calls
 *                                inner, which does Y ms; prints "outer NS
 *                                inner NS", the wall times of the calls as
 *                                measured around them (longer than asked for
 *                                when the machine preempts the busy loops)
 *   tracee loop SECONDS [X Y]    nest with X, Y ms (default 2, 3) until SECONDS
 *                                passed
 *   tracee count N               count_me() N times and malloc()+free() N
 *                                times, no stdio in the loop
 *   tracee threads T M           T threads, each calls count_me() and
 *                                count_other() in turn, M times each
 *   tracee waves W T M           W waves of threads T M, one after the other
 *                                (T up to 128: more threads at once than a
 *                                tracer's per-thread slots, and new threads
 *                                where others ended)
 *   tracee fib N                 fib(N) by plain recursion; prints
 *                                "fib N = V in NS ns" (wall time of the call)
 *   tracee jump R                R times: jump_f calls jump_g, which longjmps
 *                                back to main; then after_jump() calls
 *                                after_leaf() R times
 *   tracee fork X Y K            a child process runs nest X Y K; the parent
 *                                waits for it
 *   tracee forkcount MS N        a child process waits MS ms, then runs
 *                                count N; the parent waits for it
 *   tracee deep D R              R times: deep() recurses D levels deep; then
 *                                main calls inner(0.1 ms) R times
 *
 * Exits 0, or 2 on bad arguments.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define MAX_THREADS 64
#define MAX_WAVE    128 /* threads at once in waves */

static void *volatile kept;
static jmp_buf jump_env;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void busy_ms(double ms)
{
	long long until = now_ns() + (long long)(ms * 1e6);

	while (now_ns() < until)
		sink++;
}

NOINLINE void inner(double ms)
{
	busy_ms(ms);
}

static long long outer_ns, inner_ns; /* measured around the calls */

NOINLINE void outer(double x_ms, double y_ms)
{
	long long start;

	busy_ms(x_ms);
	start = now_ns();
	inner(y_ms);
	inner_ns += now_ns() - start;
}

static void run_nest(double x, double y, long k)
{
	for (long i = 0; i < k; i++) {
		long long start = now_ns();

		outer(x, y);
		outer_ns += now_ns() - start;
	}
	printf("outer %lld inner %lld\n", outer_ns, inner_ns);
}

NOINLINE void count_me(void)
{
	sink++;
}

NOINLINE void count_other(void)
{
	sink += 2;
}

static void run_count(long n)
{
	for (long i = 0; i < n; i++) {
		count_me();
		kept = malloc(32 + (i & 7)); /* kept: the pair cannot be optimised away */
		free(kept);
	}
}

static long per_thread;
static pthread_barrier_t start_line;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	for (long i = 0; i < per_thread; i++) {
		count_me();
		count_other();
	}
	return NULL;
}

static int run_threads(long t, long m)
{
	pthread_t tids[MAX_WAVE];

	per_thread = m;
	pthread_barrier_init(&start_line, NULL, t);
	for (long i = 0; i < t; i++)
		if (pthread_create(&tids[i], NULL, thread_main, NULL))
			return 1;
	for (long i = 0; i < t; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&start_line);
	return 0;
}

static int run_waves(long w, long t, long m)
{
	for (long i = 0; i < w; i++)
		if (run_threads(t, m))
			return 1;
	return 0;
}

NOINLINE long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void run_fib(long n)
{
	long long start = now_ns();
	long v = fib(n);

	printf("fib %ld = %ld in %lld ns\n", n, v, now_ns() - start);
}

NOINLINE void jump_g(int i)
{
	sink += i;
	longjmp(jump_env, 1);
}

NOINLINE void jump_f(int i)
{
	jump_g(i);
	sink++; /* never reached */
}

NOINLINE void after_leaf(void)
{
	busy_ms(0.2);
}

NOINLINE void after_jump(void)
{
	after_leaf();
}

static void run_jump(long r)
{
	volatile long jumped = 0;

	for (volatile long i = 0; i < r; i++)
		if (setjmp(jump_env) == 0)
			jump_f(i);
		else
			jumped++;
	for (long i = 0; i < r; i++)
		after_jump();
	printf("jumped %ld times\n", (long)jumped);
}

static int run_fork(double x, double y, long k)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0) {
		run_nest(x, y, k);
		fflush(stdout); /* _exit() would drop the buffered timing line */
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int run_forkcount(double ms, long n)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms * 1e6) % 1000000000L };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0) {
		nanosleep(&ts, NULL);
		run_count(n);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

NOINLINE void deep(long n)
{
	sink++;
	if (n > 1)
		deep(n - 1);
	sink++; /* work after the call: no tail call */
}

static void run_deep(long d, long r)
{
	for (long i = 0; i < r; i++)
		deep(d);
	for (long i = 0; i < r; i++)
		inner(0.1);
}

/* Parses argv[2..] into v[]; false unless there are between min and max. */
static bool nums(int argc, char **argv, int min, int max, double *v)
{
	if (argc - 2 < min || argc - 2 > max)
		return false;
	for (int i = 2; i < argc; i++)
		if (parse_num(argv[i], &v[i - 2]))
			return false;
	return true;
}

static int run_loop(double seconds, double x, double y)
{
	long long deadline = now_ns() + (long long)(seconds * 1e9);

	while (now_ns() < deadline)
		outer(x, y);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double v[3] = { 0, 2, 3 };

	if (!strcmp(mode, "nest") && nums(argc, argv, 3, 3, v))
		return run_nest(v[0], v[1], (long)v[2]), 0;
	if (!strcmp(mode, "loop") && nums(argc, argv, 1, 3, v) && argc != 4)
		return run_loop(v[0], v[1], v[2]);
	if (!strcmp(mode, "count") && nums(argc, argv, 1, 1, v))
		return run_count((long)v[0]), 0;
	if (!strcmp(mode, "threads") && nums(argc, argv, 2, 2, v) && v[0] >= 1 &&
	    v[0] <= MAX_THREADS)
		return run_threads((long)v[0], (long)v[1]);
	if (!strcmp(mode, "waves") && nums(argc, argv, 3, 3, v) && v[0] >= 1 && v[1] >= 1 &&
	    v[1] <= MAX_WAVE)
		return run_waves((long)v[0], (long)v[1], (long)v[2]);
	if (!strcmp(mode, "fib") && nums(argc, argv, 1, 1, v) && v[0] <= 40)
		return run_fib((long)v[0]), 0;
	if (!strcmp(mode, "jump") && nums(argc, argv, 1, 1, v))
		return run_jump((long)v[0]), 0;
	if (!strcmp(mode, "fork") && nums(argc, argv, 3, 3, v))
		return run_fork(v[0], v[1], (long)v[2]);
	if (!strcmp(mode, "forkcount") && nums(argc, argv, 2, 2, v))
		return run_forkcount(v[0], (long)v[1]);
	if (!strcmp(mode, "deep") && nums(argc, argv, 2, 2, v))
		return run_deep((long)v[0], (long)v[1]), 0;
	fprintf(stderr,
		"usage: tracee nest X_MS Y_MS K | loop SECONDS [X_MS Y_MS] | count N |\n"
		"       threads T M | waves W T M | fib N | jump R | fork X_MS Y_MS K |\n"
		"       forkcount MS N |\n"
		"       deep D R |\n"
		"       exit\n");
	return 2;
}
