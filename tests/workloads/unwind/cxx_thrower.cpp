// SPDX-License-Identifier: GPL-2.0
#include <stdexcept>
#include <string>

#include "cxx_thrower.h"

namespace cxx_thrower {

__attribute__((noinline)) static int check(int i)
{
	if (i % 5 == 0)
		throw std::invalid_argument("five: " + std::to_string(i));
	return i;
}

int lib_throw(int i)
{
	std::string keep(32, 'k');
	return check(i) + static_cast<int>(keep.size());
}

int call_back(int (*f)(int), int i)
{
	try {
		return f(i);
	} catch (const std::out_of_range &) {
		return -1;
	}
}

} // namespace cxx_thrower
