// SPDX-License-Identifier: GPL-2.0
/* py_merge: which native frames of the evaluation loop give way to which
 * Python frames. Frames are numbers: natives 1.., eval loop 100+, Python
 * 200+. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "symbols/py_merge.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check(const uint32_t *native, size_t nn, const uint32_t *py, const bool *entry,
		  size_t np, const uint32_t *want, size_t nwant)
{
	bool is_eval[64];
	uint32_t out[128];
	int n;

	for (size_t i = 0; i < nn; i++)
		is_eval[i] = native[i] >= 100 && native[i] < 200;
	n = py_merge(native, is_eval, nn, py, entry, np, out, N(out));
	assert_int_equal(n, (int)nwant);
	assert_memory_equal(out, want, nwant * sizeof(*want));
}

/* One C call of the loop runs <module>, main and compute (3.11: Python
 * calls Python without a new C call). */
static void test_one_call(void **state)
{
	const uint32_t native[] = { 1, 2, 100, 3, 4 }, py[] = { 201, 202, 203 };
	const bool entry[] = { true, false, false };
	const uint32_t want[] = { 1, 2, 201, 202, 203, 3, 4 };

	(void)state;
	check(native, N(native), py, entry, N(py), want, N(want));
}

/* A C extension calling back into Python: its frames stay between the two
 * calls of the loop, each with its own run of Python frames. */
static void test_callback(void **state)
{
	const uint32_t native[] = { 1, 100, 5, 6, 101, 7 }, py[] = { 201, 202, 203, 204 };
	const bool entry[] = { true, false, true, false };
	const uint32_t want[] = { 1, 201, 202, 5, 6, 203, 204, 7 };

	(void)state;
	check(native, N(native), py, entry, N(py), want, N(want));
}

/* A call of the loop that has yet to link its frame: the leaf call stays
 * as it is, the runs go to the calls from the root. */
static void test_more_calls(void **state)
{
	const uint32_t native[] = { 1, 100, 5, 101 }, py[] = { 201, 202 };
	const bool entry[] = { true, false };
	const uint32_t want[] = { 1, 201, 202, 5, 101 };

	(void)state;
	check(native, N(native), py, entry, N(py), want, N(want));
}

/* A native stack cut short at the root: runs match from the leaf, the
 * extra ones going to the root-most call. */
static void test_more_runs(void **state)
{
	const uint32_t native[] = { 5, 101, 7 }, py[] = { 201, 202, 203 };
	const bool entry[] = { true, true, true };
	const uint32_t want[] = { 5, 201, 202, 203, 7 };
	const uint32_t native2[] = { 100, 6, 101 };
	const uint32_t want2[] = { 201, 202, 6, 203 };

	(void)state;
	check(native, N(native), py, entry, N(py), want, N(want));
	check(native2, N(native2), py, entry, N(py), want2, N(want2));
}

/* No call of the loop in the native stack: the Python frames at the root. */
static void test_no_call(void **state)
{
	const uint32_t native[] = { 8, 9 }, py[] = { 201, 202 };
	const bool entry[] = { true, false };
	const uint32_t want[] = { 201, 202, 8, 9 };

	(void)state;
	check(native, N(native), py, entry, N(py), want, N(want));
}

/* No Python frames: the native stack as it is. */
static void test_no_python(void **state)
{
	const uint32_t native[] = { 1, 100, 2 };
	const uint32_t want[] = { 1, 100, 2 };

	(void)state;
	check(native, N(native), NULL, NULL, 0, want, N(want));
}

static void test_no_space(void **state)
{
	const uint32_t native[] = { 1, 100 }, py[] = { 201, 202, 203 };
	const bool entry[] = { true, false, false }, is_eval[] = { false, true };
	uint32_t out[3];

	(void)state;
	assert_int_equal(py_merge(native, is_eval, 2, py, entry, 3, out, N(out)), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_call),   cmocka_unit_test(test_callback),
		cmocka_unit_test(test_more_calls), cmocka_unit_test(test_more_runs),
		cmocka_unit_test(test_no_call),	   cmocka_unit_test(test_no_python),
		cmocka_unit_test(test_no_space),
	};

	return cmocka_run_group_tests_name("py_merge", tests, NULL, NULL);
}
