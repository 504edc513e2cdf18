// SPDX-License-Identifier: GPL-2.0
/* The 3.12 layout table against the compiler's own offsetof() over
 * CPython 3.12's headers (internal ones included), where an interpreter
 * installed them (the Makefile looks in pyenv's versions); without them
 * the test skips, saying so. Python.h comes first, as it asks. */
#if __has_include(<internal/pycore_frame.h>)
#define HAVE_HEADERS  1
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

static void test_python312(void **state)
{
	const struct py_layout *l = py_layout__find(3, 12);

	(void)state;
	assert_non_null(l);
	assert_int_equal(l->walk.flags, PY_WALK_CFRAME | PY_WALK_SHIM);
#if defined(HAVE_HEADERS) && PY_MINOR_VERSION == 12
	assert_int_equal(l->walk.runtime_interp_head, offsetof(_PyRuntimeState, interpreters.head));
	assert_int_equal(l->walk.interp_threads_head, offsetof(PyInterpreterState, threads.head));
	assert_int_equal(l->walk.tstate_next, offsetof(PyThreadState, next));
	assert_int_equal(l->walk.tstate_native_tid, offsetof(PyThreadState, native_thread_id));
	assert_int_equal(l->walk.tstate_frame, offsetof(PyThreadState, cframe));
	assert_int_equal(l->walk.cframe_current, offsetof(_PyCFrame, current_frame));
	assert_int_equal(l->walk.frame_code, offsetof(_PyInterpreterFrame, f_code));
	assert_int_equal(l->walk.frame_previous, offsetof(_PyInterpreterFrame, previous));
	assert_int_equal(l->walk.frame_instr, offsetof(_PyInterpreterFrame, prev_instr));
	assert_int_equal(l->walk.frame_entry, offsetof(_PyInterpreterFrame, owner));
	assert_int_equal(FRAME_OWNED_BY_CSTACK, PY_OWNED_BY_CSTACK);
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
	print_message("SKIP: CPython 3.12's headers are not installed (pyenv's 3.12)\n");
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_python312),
	};

	return cmocka_run_group_tests_name("py_layout312", tests, NULL, NULL);
}
