// SPDX-License-Identifier: GPL-2.0
/* The 3.12 layout table against the compiler's own offsetof() over
 * CPython 3.12's headers (internal ones included), where an interpreter
 * installed them (the Makefile looks in pyenv's versions); without them
 * the test skips, saying so. */
#include "py_headers.h"

static void test_python312(void **state)
{
	const struct py_layout *l = py_layout__find(3, 12);

	(void)state;
	assert_non_null(l);
	assert_int_equal(l->walk.flags, PY_WALK_CFRAME | PY_WALK_SHIM);
#if defined(HAVE_HEADERS) && PY_MINOR_VERSION == 12
	check_common_offsets(l);
	assert_int_equal(l->walk.tstate_frame, offsetof(PyThreadState, cframe));
	assert_int_equal(l->walk.cframe_current, offsetof(_PyCFrame, current_frame));
	assert_int_equal(l->walk.frame_code, offsetof(_PyInterpreterFrame, f_code));
	assert_int_equal(l->walk.frame_instr, offsetof(_PyInterpreterFrame, prev_instr));
	assert_int_equal(l->walk.frame_entry, offsetof(_PyInterpreterFrame, owner));
	assert_int_equal(FRAME_OWNED_BY_CSTACK, PY_OWNED_BY_CSTACK);
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
