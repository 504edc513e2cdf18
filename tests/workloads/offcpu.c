// SPDX-License-Identifier: GPL-2.0
/*
 * offcpu: known time on and off the CPU, for --off-cpu. Each round:
 *
 *   compute   10 ms on the CPU (busy)
 *   wait_a    20 ms asleep (nanosleep)
 *   wait_b    60 ms blocked reading a pipe that a helper thread writes
 *   wait_c    15 ms blocked on a mutex the helper thread holds
 *
 * Prints the wall time each took, as measured around its calls ("wait_a
 * NS wait_b NS wait_c NS compute NS"): what a capture must find off the
 * CPU under each wait, whatever the machine added; and compute's, which
 * preemption can stretch past 10 ms, for --wall.
 *
 * WAIT_B_MS makes wait_b's wait that long instead of 60 ms: a build that
 * regressed, for flamebpf diff (tests/integ/test_diff.c).
 *
 * usage: offcpu ROUNDS [WAIT_B_MS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

enum { TO_HELPER, FROM_HELPER, DATA };

static int pipes[3][2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double wait_b_ms = 60;

static void sleep_ms(double ms)
{
	struct timespec ts = { 0, (long)(ms * 1e6) };

	while (nanosleep(&ts, &ts))
		;
}

static void put(int which, char c)
{
	if (write(pipes[which][1], &c, 1) != 1)
		exit(1);
}

static char get(int which)
{
	char c;

	if (read(pipes[which][0], &c, 1) != 1)
		exit(1);
	return c;
}

/* 'b': writes the data pipe wait_b_ms (60) later; 'c': holds the lock for 15 ms,
 * saying when it has it; 'q': quits. */
static void *helper(void *arg)
{
	(void)arg;
	for (;;) {
		char c = get(TO_HELPER);

		if (c == 'b') {
			sleep_ms(wait_b_ms);
			put(DATA, 'x');
		} else if (c == 'c') {
			pthread_mutex_lock(&lock);
			put(FROM_HELPER, 'l');
			sleep_ms(15);
			pthread_mutex_unlock(&lock);
		} else {
			return NULL;
		}
	}
}

NOINLINE void compute(void)
{
	double until = now() + 0.010;

	while (now() < until)
		spin(1000);
}

NOINLINE void wait_a(void)
{
	sleep_ms(20);
}

NOINLINE void wait_b(void)
{
	get(DATA);
}

NOINLINE void wait_c(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
	double rounds, t, took[4] = { 0 };
	pthread_t th;

	if (argc < 2 || argc > 3 || parse_num(argv[1], &rounds) || rounds < 1 ||
	    (argc == 3 && (parse_num(argv[2], &wait_b_ms) || wait_b_ms < 1 || wait_b_ms > 1000))) {
		fprintf(stderr, "usage: offcpu ROUNDS [WAIT_B_MS]\n");
		return 2;
	}
	for (int i = 0; i < 3; i++)
		if (pipe(pipes[i]))
			return 1;
	if (pthread_create(&th, NULL, helper, NULL))
		return 1;
	for (long r = 0; r < (long)rounds; r++) {
		t = now();
		compute();
		took[3] += now() - t;
		t = now();
		wait_a();
		took[0] += now() - t;
		put(TO_HELPER, 'b');
		t = now();
		wait_b();
		took[1] += now() - t;
		put(TO_HELPER, 'c');
		get(FROM_HELPER);
		t = now();
		wait_c();
		took[2] += now() - t;
	}
	put(TO_HELPER, 'q');
	pthread_join(th, NULL);
	printf("wait_a %.0f wait_b %.0f wait_c %.0f compute %.0f\n", took[0] * 1e9, took[1] * 1e9,
	       took[2] * 1e9, took[3] * 1e9);
	return 0;
}
