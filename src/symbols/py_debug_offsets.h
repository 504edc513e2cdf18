/* The layout a CPython publishes of itself: since 3.13 its _PyRuntime
 * begins with _Py_DebugOffsets (the cookie "xdebugpy", its version, then
 * the offsets of the fields debuggers and profilers read), so a build of
 * its own (another compiler, a patch release, a distribution's changes)
 * is read right without a table. */
#ifndef FLAMEBPF_PY_DEBUG_OFFSETS_H
#define FLAMEBPF_PY_DEBUG_OFFSETS_H

#include <stddef.h>

#include "py_layout.h"

/* The bytes of _PyRuntime's start that hold 3.13's _Py_DebugOffsets. */
#define PY_DEBUG_OFFSETS_SIZE (73 * 8)

/* The layout in the _Py_DebugOffsets at buf (len bytes from _PyRuntime's
 * start) into *out, its major.minor included. Returns 0; -ENOENT when buf
 * has no cookie (before 3.13: the table's); -EPROTONOSUPPORT, with
 * out->major and out->minor set, for a version whose _Py_DebugOffsets is
 * laid out otherwise than 3.13's, or offsets the walk cannot take. */
int py_debug_offsets__layout(const void *buf, size_t len, struct py_layout *out);

/* The layout the CPython file open on fd (python3.N or libpython3.N)
 * publishes in the initial value of its _PyRuntime, as a process starts
 * with it: what py_debug_offsets__layout returns, or -ENOENT without the
 * symbol or the cookie, -errno when the file cannot be read. */
int py_debug_offsets__of_file(int fd, struct py_layout *out);

#endif
