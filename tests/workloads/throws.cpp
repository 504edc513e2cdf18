// SPDX-License-Identifier: GPL-2.0
/*
 * throws: C++ exceptions thrown through functions a tracer probes. R times,
 * xa_catch calls xb_pass (which holds an object with a destructor) calls
 * xc_throw, which busy-waits BUSY_US microseconds (default 0) and then
 * throws on two calls in three; xa_catch catches.
 *
 * Prints "checksum N destroyed N", from the values returned and caught and
 * the destructor runs, so a run that went wrong anywhere prints something
 * else (or dies: a return address replaced on the stack makes the unwinder
 * call std::terminate); then "xa_catch NS", the wall time of all xa_catch
 * calls measured around them, and "xc_busy NS", that of xc_throw's busy
 * waits measured inside it (probes cost nothing there).
 *
 * usage: throws R [BUSY_US]
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;
static unsigned long destroyed;
static long busy_ns;
static long long busy_spent;

static long long now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct guard {
	int v;
	~guard()
	{
		destroyed += v;
	}
};

NOINLINE int xc_throw(int i)
{
	long long start = now_ns(), until = start + busy_ns, t;

	while ((t = now_ns()) < until)
		sink = sink + 1;
	busy_spent += t - start;
	if (i % 3)
		throw std::runtime_error(i % 2 ? "odd" : "even");
	sink = sink + 1;
	return i * 7;
}

NOINLINE int xb_pass(int i)
{
	guard g{ i & 15 };
	int v = xc_throw(i);

	sink = sink + 1; /* work after the call: no tail call */
	return v + 1;
}

NOINLINE long xa_catch(int i)
{
	try {
		return xb_pass(i);
	} catch (const std::runtime_error &e) {
		return e.what()[0] == 'o' ? 3 : 5;
	}
}

int main(int argc, char **argv)
{
	long r = argc == 2 || argc == 3 ? std::strtol(argv[1], nullptr, 10) : -1;
	unsigned long sum = 0;
	long long spent = 0;

	busy_ns = argc == 3 ? std::strtol(argv[2], nullptr, 10) * 1000 : 0;
	if (r < 0 || busy_ns < 0) {
		std::fprintf(stderr, "usage: throws R [BUSY_US]\n");
		return 2;
	}
	for (long i = 0; i < r; i++) {
		long long start = now_ns();

		sum = sum * 31 + xa_catch((int)i);
		spent += now_ns() - start;
	}
	std::printf("checksum %lu destroyed %lu\nxa_catch %lld\nxc_busy %lld\n", sum, destroyed,
		    spent, busy_spent);
	return 0;
}
