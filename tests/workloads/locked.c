// SPDX-License-Identifier: GPL-2.0
/*
 * locked: a loop whose round lasts exactly PERIOD_US microseconds of wall
 * time, spent a quarter in quarter() and the rest in rest(), for testing
 * that sampling is not locked to the program's period.
 *
 * With PERIOD_US a multiple of the sampling period (2002 us is two periods
 * at 999 Hz), a sampler with a fixed period hits the same phases of every
 * round, and quarter's share comes out 0%, 50% or 100% instead of 25%.
 *
 * usage: locked SECONDS PERIOD_US
 */
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

/* Spins until the deadline (CLOCK_MONOTONIC seconds). */
NOINLINE void quarter(double until)
{
	while (now() < until)
		spin(50);
}

NOINLINE void rest(double until)
{
	while (now() < until)
		spin(50);
}

int main(int argc, char **argv)
{
	double seconds, period_us, start, t;

	if (argc != 3 || parse_num(argv[1], &seconds) || parse_num(argv[2], &period_us) ||
	    period_us <= 0) {
		fprintf(stderr, "usage: locked SECONDS PERIOD_US\n");
		return 2;
	}
	start = t = now();
	while (t - start < seconds) {
		quarter(t + period_us / 4e6);
		rest(t + period_us / 1e6);
		t += period_us / 1e6;
	}
	return 0;
}
