// SPDX-License-Identifier: GPL-2.0
/*
 * throw_timing: exceptions whose catch a tracer can time. K times,
 * catcher() calls middle() calls thrower(), which sleeps THROW_MS and
 * throws; catcher() catches, then sleeps CATCH_MS before it returns, with
 * no call of a traced function in between: thrower() and middle() end at
 * the catch (THROW_MS each), catcher() THROW_MS + CATCH_MS later. Built
 * by g++ -O2, as Debian builds C++ (the Makefile says how).
 *
 * usage: throw_timing K THROW_MS CATCH_MS     prints "caught K"
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

NOINLINE void thrower(int i, long ms)
{
	sleep_ms(ms);
	if (sink >= 0)
		throw std::runtime_error(i % 2 ? "odd" : "even");
	sink = sink + 1;
}

NOINLINE void middle(int i, long ms)
{
	thrower(i, ms);
	sink = sink + 1; /* work after the call: no tail call */
}

NOINLINE int catcher(int i, long throw_ms, long catch_ms)
{
	try {
		middle(i, throw_ms);
	} catch (const std::runtime_error &e) {
		sleep_ms(catch_ms);
		return e.what()[0] == 'o' || e.what()[0] == 'e';
	}
	return 0;
}

int main(int argc, char **argv)
{
	long k = argc == 4 ? std::strtol(argv[1], nullptr, 10) : -1;
	long throw_ms = argc == 4 ? std::strtol(argv[2], nullptr, 10) : -1;
	long catch_ms = argc == 4 ? std::strtol(argv[3], nullptr, 10) : -1;
	long caught = 0;

	if (k < 0 || throw_ms < 0 || catch_ms < 0) {
		std::fprintf(stderr, "usage: throw_timing K THROW_MS CATCH_MS\n");
		return 2;
	}
	for (long i = 0; i < k; i++)
		caught += catcher((int)i, throw_ms, catch_ms);
	std::printf("caught %ld\n", caught);
	return 0;
}
