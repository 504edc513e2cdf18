/* SPDX-License-Identifier: GPL-2.0 */
/* CPython's headers, internal ones included, for the layout tests
 * (test_py_layout*.c: each is compiled with one version's include folder,
 * which the Makefile adds where that version is installed; HAVE_HEADERS
 * then), and the checks with offsetof() of the fields every version lays
 * out the same way. Included first: Python.h asks to come before any
 * other header (it sets feature macros). */
#ifndef FLAMEBPF_UNIT_PY_HEADERS_H
#define FLAMEBPF_UNIT_PY_HEADERS_H

#if __has_include(<internal/pycore_runtime.h>)
#define HAVE_HEADERS  1
#define Py_BUILD_CORE 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#include <Python.h>
#if __has_include(<internal/pycore_frame.h>)
#include <internal/pycore_frame.h>
#else
#include <frameobject.h> /* before 3.11 */
#endif
#include <internal/pycore_interp.h>
#include <internal/pycore_runtime.h>
#pragma GCC diagnostic pop
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "symbols/py_layout.h"

#ifdef HAVE_HEADERS
/* The code object's name, file and lines, strings and bytes: the same
 * fields in every version (3.11 added co_qualname). */
static inline void check_object_offsets(const struct py_layout *l)
{
	assert_int_equal(l->co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	assert_int_equal(l->co_filename, offsetof(PyCodeObject, co_filename));
	assert_int_equal(l->co_name, offsetof(PyCodeObject, co_name));
	assert_int_equal(l->co_linetable, offsetof(PyCodeObject, co_linetable));
	assert_int_equal(l->str_length, offsetof(PyASCIIObject, length));
	assert_int_equal(l->str_state, offsetof(PyASCIIObject, state));
	assert_int_equal(l->str_ascii_data, sizeof(PyASCIIObject));
	assert_int_equal(l->str_utf8_length, offsetof(PyCompactUnicodeObject, utf8_length));
	assert_int_equal(l->str_utf8, offsetof(PyCompactUnicodeObject, utf8));
	assert_int_equal(l->str_compact_data, sizeof(PyCompactUnicodeObject));
	assert_int_equal(l->bytes_size, offsetof(PyVarObject, ob_size));
	assert_int_equal(l->bytes_data, offsetof(PyBytesObject, ob_sval));
}
#endif

#if defined(HAVE_HEADERS) && PY_MINOR_VERSION >= 11
/* 3.11 on: the thread list, the frame chain's link, the code's
 * instructions and qualname, and the above; the thread's frame, the
 * frame's code, instruction and entry mark differ by version (each test
 * checks its own). */
static inline void check_common_offsets(const struct py_layout *l)
{
	assert_int_equal(l->walk.runtime_interp_head, offsetof(_PyRuntimeState, interpreters.head));
	assert_int_equal(l->walk.interp_next, offsetof(PyInterpreterState, next));
	assert_int_equal(l->walk.interp_threads_head, offsetof(PyInterpreterState, threads.head));
	assert_int_equal(l->walk.tstate_next, offsetof(PyThreadState, next));
	assert_int_equal(l->walk.tstate_native_tid, offsetof(PyThreadState, native_thread_id));
	assert_int_equal(l->walk.tstate_datastack, offsetof(PyThreadState, datastack_chunk));
	assert_int_equal(offsetof(PyThreadState, datastack_top),
			 offsetof(PyThreadState, datastack_chunk) + 8);
	assert_int_equal(l->walk.frame_previous, offsetof(_PyInterpreterFrame, previous));
	assert_true(offsetof(_PyInterpreterFrame, owner) < PY_FRAME_WINDOW);
	assert_int_equal(l->walk.code_adaptive, offsetof(PyCodeObject, co_code_adaptive));
	assert_int_equal(l->co_qualname, offsetof(PyCodeObject, co_qualname));
	check_object_offsets(l);
}
#endif

#endif
