// SPDX-License-Identifier: GPL-2.0
/*
 * throw_count: K exceptions, each thrown in thrower() and caught in
 * catcher(), after 300 ms (a profiler reads a new process's unwind tables
 * in its first milliseconds). For libstdc++'s throw and catch USDT probes.
 *
 * usage: throw_count K     prints "caught K"
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static void thrower(int i)
{
	throw std::runtime_error(i % 2 ? "odd" : "even");
}

NOINLINE static int catcher(int i)
{
	try {
		thrower(i);
	} catch (const std::exception &) {
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int k = argc == 2 ? atoi(argv[1]) : -1, caught = 0;

	if (k < 0) {
		fprintf(stderr, "usage: throw_count K\n");
		return 2;
	}
	usleep(300000);
	for (int i = 0; i < k; i++)
		caught += catcher(i);
	printf("caught %d\n", caught);
	return 0;
}
