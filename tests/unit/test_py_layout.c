// SPDX-License-Identifier: GPL-2.0
/* The 3.11 layout table against the compiler's own offsetof() over
 * CPython's headers (libpython3.11-dev, internal headers included), when
 * they are installed (the Makefile adds their folder to the include path);
 * without them the test skips, saying so. Python.h comes first, as it
 * asks: it sets feature macros. */
#if __has_include(<internal/pycore_frame.h>)
#define HAVE_HEADERS 1
#define Py_BUILD_CORE 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#include <Python.h>
#include <internal/pycore_frame.h>
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


static void test_python311(void **state)
{
	const struct py_layout *l = py_layout__find(3, 11);

	(void)state;
	assert_non_null(l);
#ifdef HAVE_HEADERS
	assert_int_equal(l->walk.runtime_interp_head, offsetof(_PyRuntimeState, interpreters.head));
	assert_int_equal(l->walk.interp_next, offsetof(PyInterpreterState, next));
	assert_int_equal(l->walk.interp_threads_head, offsetof(PyInterpreterState, threads.head));
	assert_int_equal(l->walk.tstate_next, offsetof(PyThreadState, next));
	assert_int_equal(l->walk.tstate_native_tid, offsetof(PyThreadState, native_thread_id));
	assert_int_equal(l->walk.tstate_cframe, offsetof(PyThreadState, cframe));
	assert_int_equal(l->walk.cframe_current, offsetof(_PyCFrame, current_frame));
	assert_int_equal(l->walk.frame_code, offsetof(_PyInterpreterFrame, f_code));
	assert_int_equal(l->walk.frame_previous, offsetof(_PyInterpreterFrame, previous));
	assert_int_equal(l->walk.frame_prev_instr, offsetof(_PyInterpreterFrame, prev_instr));
	assert_int_equal(l->walk.frame_is_entry, offsetof(_PyInterpreterFrame, is_entry));
	assert_true(offsetof(_PyInterpreterFrame, owner) < PY_FRAME_WINDOW);
	assert_int_equal(l->walk.code_adaptive, offsetof(PyCodeObject, co_code_adaptive));
	assert_int_equal(l->co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	assert_int_equal(l->co_filename, offsetof(PyCodeObject, co_filename));
	assert_int_equal(l->co_name, offsetof(PyCodeObject, co_name));
	assert_int_equal(l->co_qualname, offsetof(PyCodeObject, co_qualname));
	assert_int_equal(l->co_linetable, offsetof(PyCodeObject, co_linetable));
	assert_int_equal(l->str_length, offsetof(PyASCIIObject, length));
	assert_int_equal(l->str_state, offsetof(PyASCIIObject, state));
	assert_int_equal(l->str_ascii_data, sizeof(PyASCIIObject));
	assert_int_equal(l->str_utf8_length, offsetof(PyCompactUnicodeObject, utf8_length));
	assert_int_equal(l->str_utf8, offsetof(PyCompactUnicodeObject, utf8));
	assert_int_equal(l->str_compact_data, sizeof(PyCompactUnicodeObject));
	assert_int_equal(l->bytes_size, offsetof(PyVarObject, ob_size));
	assert_int_equal(l->bytes_data, offsetof(PyBytesObject, ob_sval));
#else
	print_message("SKIP: CPython 3.11's headers are not installed (libpython3.11-dev)\n");
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_python311),
	};

	return cmocka_run_group_tests_name("py_layout", tests, NULL, NULL);
}
