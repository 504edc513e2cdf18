// SPDX-License-Identifier: GPL-2.0
/*
 * phases: a program with a known time pattern, for the HTML report's
 * heatmap (tests/viewers/viewers.js).
 *
 *   main thread:  phase_a from 0 s to 2 s, a pause, phase_b from 2 s on,
 *                 each busy half the time (1 ms of work, 1 ms asleep)
 *   spike thread: spike for 100 ms at 0.5 s, 1.5 s, 2.5 s, ... (idle between)
 *
 * so that, sampled, the cells of the spikes hold about three times the
 * samples of the others, and still twice as many when other work on the
 * machine leaves the two threads one CPU between them. The first two
 * seconds hold no phase_b: the pause (PAUSE s) keeps it out of them even
 * when the first sample comes a little after main started.
 *
 * usage: phases SECONDS (at least 2; phase_b takes what is left)
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "workload.h"

#define PHASE_A 2.0
#define PAUSE	0.03
#define SPIKE	0.1
#define DUTY	0.001
#define CHUNK	2000UL /* iterations between two looks at the clock */

static double start, end;

static void sleep_until(double t)
{
	double d = t - now();
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static void busy_until(double t)
{
	while (now() < t)
		spin(CHUNK);
}

/* Half the time busy: DUTY s of work, then asleep until the next period. */
static void half_busy(double until)
{
	for (double t = now(); t < until; t += 2 * DUTY) {
		busy_until(t + DUTY);
		sleep_until(t + 2 * DUTY);
	}
}

NOINLINE void phase_a(double until)
{
	half_busy(until);
}

NOINLINE void phase_b(double until)
{
	half_busy(until);
}

NOINLINE void spike(double until)
{
	busy_until(until);
}

static void *spikes(void *arg)
{
	(void)arg;
	for (double at = start + 0.5; at + SPIKE <= end; at += 1.0) {
		sleep_until(at);
		spike(at + SPIKE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds;
	pthread_t t;

	if (argc != 2 || parse_num(argv[1], &seconds) || seconds < PHASE_A) {
		fprintf(stderr, "usage: phases SECONDS (at least 2)\n");
		return 2;
	}
	start = now();
	end = start + seconds;
	if (pthread_create(&t, NULL, spikes, NULL))
		return 1;
	phase_a(start + PHASE_A);
	sleep_until(start + PHASE_A + PAUSE);
	phase_b(end);
	pthread_join(t, NULL);
	return 0;
}
