/* SPDX-License-Identifier: GPL-2.0 */
/* libcxx_thrower.so: exceptions across a shared library boundary. */
#ifndef FLAMEBPF_CXX_THROWER_H
#define FLAMEBPF_CXX_THROWER_H

namespace cxx_thrower {

/* Throws std::invalid_argument when i is a multiple of 5. */
int lib_throw(int i);

/* Calls f(i), catching what it throws (then -1). */
int call_back(int (*f)(int), int i);

} // namespace cxx_thrower

#endif
