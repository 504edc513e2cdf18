/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the workloads. Each workload is built alone (see the
 * Makefile), so everything here is static. Under -fno-inline the static
 * inline functions stay calls of their own (as a frame of that name), except
 * spin(), which is always inlined: its loop is the caller's own work.
 */
#ifndef FLAMEBPF_WORKLOAD_H
#define FLAMEBPF_WORKLOAD_H

#include <stdlib.h>
#include <time.h>

/* Kept out of line and never tail-called, so each keeps its own stack frame. */
#ifdef __clang__
#define NOINLINE __attribute__((noinline, disable_tail_calls))
#else
#define NOINLINE __attribute__((noinline, optimize("no-optimize-sibling-calls")))
#endif

static volatile unsigned long sink;

/* CLOCK_MONOTONIC in seconds. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Busy work in the caller's own frame: ITERATIONS rounds of a volatile add. */
static inline __attribute__((always_inline)) void spin(unsigned long iterations)
{
	for (volatile unsigned long i = 0; i < iterations; i++)
		sink += i;
}

/* Parses S, a whole non-negative number; -1 when it is not one. */
static inline int parse_num(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end == s || *end || *v < 0 ? -1 : 0;
}

#endif
