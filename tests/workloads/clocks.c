// SPDX-License-Identifier: GPL-2.0
/*
 * clocks: reads the clock as fast as it can for SECONDS, through the
 * vDSO (clock_gettime runs there, in user space, on a clock source that
 * allows it): the [vdso] frames of a capture, under read_clock.
 *
 * usage: clocks SECONDS
 */
#include <stdio.h>
#include <time.h>

#include "workload.h"

static NOINLINE long read_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double secs, end;
	unsigned long reads = 0;

	if (argc != 2 || parse_num(argv[1], &secs)) {
		fprintf(stderr, "usage: clocks SECONDS\n");
		return 2;
	}
	end = now() + secs;
	while (now() < end)
		for (int i = 0; i < 1000; i++, reads++)
			sink += read_clock();
	printf("reads %lu\n", reads);
	return 0;
}
