/* CPython's line tables (co_linetable): which source line each
 * instruction of a code object came from, in 3.11's location table
 * (Objects/locations.md) or 3.10's address and line pairs
 * (Objects/lnotab_notes.txt). */
#ifndef FLAMEBPF_PY_LINETABLE_H
#define FLAMEBPF_PY_LINETABLE_H

#include <stddef.h>
#include <stdint.h>

/* The line of the instruction at code unit lasti of a code object whose
 * first line is firstlineno and whose table is t (len bytes). An index
 * before the first instruction (-1: a frame not started), past the table
 * or without a location gives firstlineno. */
int py_linetable__line(const uint8_t *t, size_t len, int firstlineno, int lasti);

/* The same from 3.10's table: pairs of an unsigned byte (the range's
 * length in bytes of code) and a signed one (its line's delta from the
 * last; -128: the range has no line). */
int py_linetable__line_pairs(const uint8_t *t, size_t len, int firstlineno, int lasti);

#endif
