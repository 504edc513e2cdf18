// SPDX-License-Identifier: GPL-2.0
/*
 * Python frames in CPU samples of Debian's python3.11, unmodified:
 * tests/workloads/py_busy.py spends known shares of its CPU in parse,
 * compute (through the recursive fib) and encode (in zlib), measured by
 * itself. Attached with -p and started as COMMAND, its samples must carry
 * Python frames ("compute (FILE:LINE)") in place of the evaluation loop's,
 * nested as the program called them, with zlib's native frames under
 * encode, in shares within 10% of the truth. And each thread of
 * tests/workloads/py_threads.py under its own function, and time off the
 * CPU (--off-cpu) under the function that slept.
 */
#include "py_workloads.h"

#include <unistd.h>

#define PYTHON "/usr/bin/python3.11"

static void require_python(void)
{
	if (access(PYTHON, X_OK)) {
		print_message("SKIP: Debian's python3.11 is not installed\n");
		skip();
	}
}

static void test_attached(void **state)
{
	const char *out = h_path("py_attached.folded");
	struct h_result r;
	struct h_folded f;
	struct pw_truth t;

	(void)state;
	require_bpf();
	require_python();
	pw_run_attached(PYTHON, out, &r, &f, &t);
	pw_check_profile(&f, &r, &t, "python3.11");
	h_folded_free(&f);
	h_result_free(&r);
}

static void test_command(void **state)
{
	const char *out = h_path("py_command.folded");
	struct h_result r;
	struct h_folded f;
	struct pw_truth t;

	(void)state;
	require_bpf();
	require_python();
	/* Twice in CI one function had no frame of its name (0.0%, with all
	 * samples carrying Python frames), never in 11 runs by hand: taken for
	 * a code object freed in start-up and its address reused by that
	 * function's, which kept the old name (now checked as records come).
	 * A miss is shown whole and run once more; a second one fails. */
	pw_run_command(PYTHON, "4", out, &r, &f, &t);
	pw_check_profile(&f, &r, &t, "python3.11");
	h_folded_free(&f);
	h_result_free(&r);
}

/* Each thread's samples carry its own function: the walk finds the
 * sampled thread's state among the interpreter's by native thread id. */
static void test_threads(void **state)
{
	(void)state;
	require_bpf();
	require_python();
	pw_check_threads(PYTHON);
}

/* --off-cpu: time blocked carries the Python frames where it blocked. */
static void test_offcpu(void **state)
{
	const char *out = h_path("py_nap.folded");
	unsigned long long nap;
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	require_python();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--off-cpu", "-o", out, "--", PYTHON,
			    "tests/workloads/py_nap.py", "2"));
	nap = h_sum(&f, pw_under_func, "nap (");
	print_message("%.1f%% of %.2f s off the CPU under nap\n", pw_pct(nap, f.total),
		      f.total / 1e9);
	/* nap sleeps about 1.3 s of the 2: the rest is startup and exit */
	if (nap * 100 < f.total * 80) {
		h_folded_dump(&f, 20);
		fail_msg("blocked time is not under nap");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_attached, h_test_teardown),
		cmocka_unit_test_teardown(test_command, h_test_teardown),
		cmocka_unit_test_teardown(test_threads, h_test_teardown),
		cmocka_unit_test_teardown(test_offcpu, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("python", tests, h_group_setup, h_group_teardown);
}
