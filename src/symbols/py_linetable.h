/* CPython 3.11's location table (co_linetable, Objects/locations.md):
 * which source line each instruction of a code object came from. */
#ifndef FLAMEBPF_PY_LINETABLE_H
#define FLAMEBPF_PY_LINETABLE_H

#include <stddef.h>
#include <stdint.h>

/* The line of the instruction at code unit lasti of a code object whose
 * first line is firstlineno and whose table is t (len bytes). An index
 * before the first instruction (-1: a frame not started), past the table
 * or without a location gives firstlineno. */
int py_linetable__line(const uint8_t *t, size_t len, int firstlineno, int lasti);

#endif
