// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline: a small benchmark for the `flamebpf diff` tests, built twice:
 * as is (build/workloads/pipeline) and with -DREGRESSED
 * (build/workloads/regressed/pipeline, the same name so that both
 * captures have the same root), where checksum() does three times the
 * work, as a change that made it slower would.
 *
 *   main -> step -> parse       2 units a round
 *                -> transform   3 units
 *                -> checksum    1 unit (3 with -DREGRESSED)
 *
 * so checksum's share grows from 1/6 to 3/8 of the run (+21 points).
 *
 * usage: pipeline SECONDS
 */
#include <stdio.h>

#include "workload.h"

#define UNIT 20011UL /* loop iterations in one unit of work (~25 us) */

#ifdef REGRESSED
#define CHECKSUM_UNITS 3
#else
#define CHECKSUM_UNITS 1
#endif

NOINLINE void parse(void)
{
	spin(2 * UNIT);
}

NOINLINE void transform(void)
{
	spin(3 * UNIT);
}

NOINLINE void checksum(void)
{
	spin(CHECKSUM_UNITS * UNIT);
}

NOINLINE void step(void)
{
	parse();
	transform();
	checksum();
}

int main(int argc, char **argv)
{
	double seconds, deadline;

	if (argc != 2 || parse_num(argv[1], &seconds)) {
		fprintf(stderr, "usage: pipeline SECONDS\n");
		return 2;
	}
	deadline = now() + seconds;
	do
		step();
	while (now() < deadline);
	return 0;
}
