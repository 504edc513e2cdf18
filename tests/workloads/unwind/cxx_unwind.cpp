// SPDX-License-Identifier: GPL-2.0
/*
 * cxx_unwind N: C++ exceptions through every kind of frame g++ -O2 makes, N
 * rounds: throws from functions whose throwing path gcc splits off into a
 * .cold part, destructors run by landing pads, catch and rethrow, a throw
 * through std::function and a lambda, through a shared library (thrown in
 * libcxx_thrower.so, caught here, and the reverse), through deep recursion,
 * std::exception_ptr, nested handlers, and through libc: qsort() calling a
 * comparison that throws. Prints what it counted: the same
 * with and without tracing, or the program was harmed. Built by g++ -O2 as
 * Debian builds (tests/integ/test_trace_unwind.c).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cxx_thrower.h"

namespace uw {

static long dtors, caught, rethrown, values;

struct Guard {
	explicit Guard(int v) : v(v) {}
	~Guard() { dtors += v ? 1 : 2; }
	int v;
};

/* At -O2 the throw goes to "leaf_throw(int) [clone .cold]": the hot part
 * is a test, a conditional jump and a ret. */
__attribute__((noinline)) int leaf_throw(int i)
{
	if (i % 3 == 0)
		throw std::runtime_error("three");
	return i;
}

__attribute__((noinline)) int with_guard(int i)
{
	Guard g(i);
	std::string s(static_cast<size_t>(i % 7) + 20, 'x'); /* heap: freed on unwind */
	return leaf_throw(i) + static_cast<int>(s.size());
}

__attribute__((noinline)) int rethrower(int i)
{
	try {
		return with_guard(i);
	} catch (const std::runtime_error &) {
		rethrown++;
		throw;
	}
}

__attribute__((noinline)) int via_function(const std::function<int(int)> &f, int i)
{
	Guard g(1);
	return f(i) + 1;
}

__attribute__((noinline)) int deep(int n, int i)
{
	std::vector<int> v(static_cast<size_t>(n % 5) + 1, n);
	if (!n)
		return cxx_thrower::lib_throw(i);
	return deep(n - 1, i) + v[0];
}

/* Called back from the library, which catches what this throws. */
__attribute__((noinline)) int callback_throw(int i)
{
	if (i % 4 == 1)
		throw std::out_of_range("four");
	return i * 3;
}

__attribute__((noinline)) std::exception_ptr capture(int i)
{
	try {
		leaf_throw(i);
	} catch (...) {
		return std::current_exception();
	}
	return nullptr;
}

__attribute__((noinline)) void nested(int i)
{
	try {
		try {
			rethrower(i);
		} catch (const std::logic_error &) {
			std::abort(); /* a runtime_error must not land here */
		}
	} catch (const std::runtime_error &) {
		caught++;
		throw std::logic_error("translated");
	}
}

static int cmp_ints(const void *a, const void *b)
{
	int x = *static_cast<const int *>(a), y = *static_cast<const int *>(b);

	if (x == 13 || y == 13)
		throw std::domain_error("thirteen");
	return (x > y) - (x < y);
}

/* Sorts i % 20 + 2 numbers; those that reach 13 throw out of qsort(). */
__attribute__((noinline)) int sort_some(int i)
{
	int v[24];
	int n = i % 20 + 2;

	for (int k = 0; k < n; k++)
		v[k] = (k * 7 + i) % 23;
	std::qsort(v, static_cast<size_t>(n), sizeof(v[0]), cmp_ints);
	return v[0];
}

template <typename F> static void count(F f)
{
	try {
		values += f();
	} catch (const std::exception &) {
		caught++;
	}
}

static void round(int i)
{
	count([i] { return rethrower(i); });
	count([i] { return via_function([](int k) { return leaf_throw(k) * 2; }, i); });
	count([i] { return deep(i % 40, i); });
	count([i] { return sort_some(i); });
	values += cxx_thrower::call_back(callback_throw, i);
	if (std::exception_ptr p = capture(i)) {
		try {
			std::rethrow_exception(p);
		} catch (const std::runtime_error &) {
			caught++;
		}
	}
	try {
		nested(i);
	} catch (const std::logic_error &) {
		caught++;
	}
}

} // namespace uw

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 300;

	for (int i = 0; i < n; i++)
		uw::round(i);
	std::printf("values %ld caught %ld rethrown %ld dtors %ld\n", uw::values, uw::caught,
		    uw::rethrown, uw::dtors);
	return 0;
}
