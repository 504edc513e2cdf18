// SPDX-License-Identifier: GPL-2.0
/* The 3.11 layout table against the compiler's own offsetof() over
 * CPython's headers (libpython3.11-dev, internal headers included), when
 * they are installed (the Makefile adds their folder to the include path);
 * without them the test skips, saying so. */
#include "py_headers.h"

static void test_python311(void **state)
{
	const struct py_layout *l = py_layout__find(3, 11);

	(void)state;
	assert_non_null(l);
#ifdef HAVE_HEADERS
	check_common_offsets(l);
	assert_int_equal(l->walk.flags, PY_WALK_CFRAME);
	assert_int_equal(l->walk.tstate_frame, offsetof(PyThreadState, cframe));
	assert_int_equal(l->walk.cframe_current, offsetof(_PyCFrame, current_frame));
	assert_int_equal(l->walk.frame_code, offsetof(_PyInterpreterFrame, f_code));
	assert_int_equal(l->walk.frame_instr, offsetof(_PyInterpreterFrame, prev_instr));
	assert_int_equal(l->walk.frame_entry, offsetof(_PyInterpreterFrame, is_entry));
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
