// SPDX-License-Identifier: GPL-2.0
/*
 * cxx_names: a CPU-bound C++ program whose hot functions have mangled names,
 * for the demangling tests:
 *
 *   main -> shapes::Widget::spin(int)             (2 units of work a round)
 *   main -> shapes::mix<unsigned long>(...)       (1 unit of work a round)
 *
 * usage: cxx_names SECONDS
 */
#include <cstdio>

#include "workload.h"

#define UNIT 400009 /* loop iterations in one unit of work (~0.5 ms) */

namespace shapes
{
class Widget {
    public:
	explicit Widget(unsigned long seed) : seed_(seed)
	{
	}
	NOINLINE unsigned long spin(int rounds);

    private:
	unsigned long seed_;
};

NOINLINE unsigned long Widget::spin(int rounds)
{
	unsigned long s = seed_;

	for (int i = 0; i < rounds; i++) {
		s = s * 6364136223846793005UL + 1442695040888963407UL;
		sink = s;
	}
	return s;
}

template <typename T> NOINLINE T mix(T x, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		sink = x;
	}
	return x;
}
} // namespace shapes

int main(int argc, char **argv)
{
	shapes::Widget w(3);
	double seconds, deadline;
	unsigned long x = 1;

	if (argc != 2 || parse_num(argv[1], &seconds)) {
		std::fprintf(stderr, "usage: cxx_names SECONDS\n");
		return 2;
	}
	deadline = now() + seconds;
	do {
		x += w.spin(2 * UNIT);
		x = shapes::mix<unsigned long>(x, UNIT);
	} while (now() < deadline);
	return x == 42; /* keeps x live */
}
