// SPDX-License-Identifier: GPL-2.0
/*
 * phases: a CPU-bound program with a known time pattern, for the HTML
 * report's heatmap (tests/viewers/viewers.js).
 *
 *   main thread:  phase_a from 0 s to 2 s, a pause, phase_b from 2 s on
 *   spike thread: spike for 100 ms at 0.5 s, 1.5 s, 2.5 s, ... (idle between)
 *
 * so that, sampled, the cells of the spikes hold the samples of two busy
 * threads where the others hold one, and the first two seconds hold no
 * phase_b. The pause (PAUSE s) keeps phase_b out of them even when the
 * first sample comes a little after main started.
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
#define CHUNK	20000UL /* iterations between two looks at the clock */

static double start, end;

NOINLINE void phase_a(double until)
{
	while (now() < until)
		spin(CHUNK);
}

NOINLINE void phase_b(double until)
{
	while (now() < until)
		spin(CHUNK);
}

NOINLINE void spike(double until)
{
	while (now() < until)
		spin(CHUNK);
}

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
