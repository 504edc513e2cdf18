// SPDX-License-Identifier: GPL-2.0
/*
 * spans_scope: include/flamebpf.h's C++ scope guard.
 *
 *   spans_scope N   N times: a "scoped" req span around 20 ms busy in
 *                   work(), ended by the end of its scope
 *
 * Prints "SCOPED NS", the wall time of the scopes as measured around them.
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "../../include/flamebpf.h"

FLAMEBPF_SPAN_DECLARE(req);

static volatile unsigned long sink;

static double now()
{
	using namespace std::chrono;
	return duration<double>(steady_clock::now().time_since_epoch()).count();
}

__attribute__((noinline)) static void work()
{
	double until = now() + 0.020;

	while (now() < until)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

__attribute__((noinline)) static void scoped()
{
	FLAMEBPF_SPAN_SCOPE(req, "scoped");
	work();
}

int main(int argc, char **argv)
{
	int n = argc == 2 ? atoi(argv[1]) : 0;
	double took = 0;

	if (n < 1) {
		fprintf(stderr, "usage: spans_scope N\n");
		return 2;
	}
	usleep(300000); /* a profiler reads a new process's tables first */
	for (int i = 0; i < n; i++) {
		double t = now();

		scoped();
		took += now() - t;
	}
	printf("SCOPED %.0f\n", took * 1e9);
	return 0;
}
