// SPDX-License-Identifier: GPL-2.0
/* The 3.10 layout table against the compiler's own offsetof() over
 * CPython 3.10's headers, where an interpreter installed them (the
 * Makefile looks in pyenv's versions); without them the test skips,
 * saying so. 3.10 differs: frames are PyFrameObject, threads are known
 * by pthread_self(), code objects have no qualname, and line tables are
 * pairs (py_linetable__line_pairs, checked here on a table of 3.10's). */
#include "py_headers.h"

#include "symbols/py_linetable.h"

static void test_python310(void **state)
{
	const struct py_layout *l = py_layout__find(3, 10);

	(void)state;
	assert_non_null(l);
	assert_int_equal(l->walk.flags, PY_WALK_FRAMEOBJ | PY_WALK_PTHREAD);
	assert_true(l->pair_lines);
	assert_int_equal(l->co_qualname, 0);
#if defined(HAVE_HEADERS) && PY_MINOR_VERSION == 10
	assert_int_equal(l->walk.runtime_interp_head, offsetof(_PyRuntimeState, interpreters.head));
	assert_int_equal(l->walk.interp_threads_head, offsetof(PyInterpreterState, tstate_head));
	assert_int_equal(l->walk.tstate_next, offsetof(PyThreadState, next));
	assert_int_equal(l->walk.tstate_native_tid, offsetof(PyThreadState, thread_id));
	assert_int_equal(l->walk.tstate_frame, offsetof(PyThreadState, frame));
	assert_int_equal(l->walk.frame_code, offsetof(PyFrameObject, f_code));
	assert_int_equal(l->walk.frame_previous, offsetof(PyFrameObject, f_back));
	assert_int_equal(l->walk.frame_instr, offsetof(PyFrameObject, f_lasti));
	assert_true(offsetof(PyFrameObject, f_lasti) + sizeof(int) <= PY_FRAMEOBJ_WINDOW);
	check_object_offsets(l);
#else
	print_message("SKIP: CPython 3.10's headers are not installed (pyenv's 3.10)\n");
	skip();
#endif
}

/* python3.10's table of
 *                        # line 1
 *     def f(x):          # 2
 *         y = x + 1      # 3
 *                        # 4
 *         return (y,     # 5
 *                 x)     # 6
 * with what its co_lines() says: code unit -> line; and a range without a
 * line (-128) giving the first. */
static void test_line_pairs(void **state)
{
	static const uint8_t table[] = { 8, 1, 2, 2, 2, 1, 4, 255 }, none[] = { 2, 1, 2, 0x80 };
	static const int want[][2] = { { -1, 2 }, { 0, 3 }, { 3, 3 }, { 4, 5 },
				       { 5, 6 },  { 6, 5 }, { 7, 5 }, { 8, 2 } };

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(py_linetable__line_pairs(table, sizeof(table), 2, want[i][0]),
				 want[i][1]);
	assert_int_equal(py_linetable__line_pairs(none, sizeof(none), 2, 0), 3);
	assert_int_equal(py_linetable__line_pairs(none, sizeof(none), 2, 1), 2);
	assert_int_equal(py_linetable__line_pairs(NULL, 0, 7, 3), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_python310),
		cmocka_unit_test(test_line_pairs),
	};

	return cmocka_run_group_tests_name("py_layout310", tests, NULL, NULL);
}
