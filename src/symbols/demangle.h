/* C++ (Itanium ABI) and Rust (legacy and v0) symbol names, demangled the way
 * perf shows them. */
#ifndef FLAMEBPF_DEMANGLE_H
#define FLAMEBPF_DEMANGLE_H

#include <stdbool.h>

/* Whether name has the form of a mangled C++ or Rust name ("_Z...", "_R...");
 * a C name never does, so callers can skip demangle() cheaply. */
bool demangle__is_mangled(const char *name);

/* The demangled name, C++ with its parameter list ("ns::f(int) const"), Rust
 * without its "::h<hash>" suffix. Returns a malloc'd string, or NULL when name
 * is not mangled (or is malformed, or memory ran out). */
char *demangle(const char *name);

/* The same without C++ parameter lists, qualifiers and clone suffixes
 * ("ns::f"), for matching against names as users write them. */
char *demangle__short(const char *name);

#endif
