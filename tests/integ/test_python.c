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
#include "py_busy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	struct pb_truth t;

	(void)state;
	require_bpf();
	require_python();
	pb_run_attached(PYTHON, out, &r, &f, &t);
	pb_check_profile(&f, &r, &t, "python3.11");
	h_folded_free(&f);
	h_result_free(&r);
}

static void test_command(void **state)
{
	const char *out = h_path("py_command.folded");
	struct h_result r;
	struct h_folded f;
	struct pb_truth t;

	(void)state;
	require_bpf();
	require_python();
	/* Twice in CI one function had no frame of its name (0.0%, with all
	 * samples carrying Python frames), never in 11 runs by hand: taken for
	 * a code object freed in start-up and its address reused by that
	 * function's, which kept the old name (now checked as records come).
	 * A miss is shown whole and run once more; a second one fails. */
	pb_run_command(PYTHON, "4", out, &r, &f, &t);
	pb_check_profile(&f, &r, &t, "python3.11");
	h_folded_free(&f);
	h_result_free(&r);
}

/* Each thread's samples carry its own function: the walk finds the
 * sampled thread's state among the interpreter's by native thread id. */
static void test_threads(void **state)
{
	const char *out = h_path("py_threads.folded");
	unsigned long long own = 0, all = 0;
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	require_python();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "499", "--tids", "-o", out, "--", PYTHON,
			    "tests/workloads/py_threads.py", "2"));
	for (size_t i = 0; i < f.n; i++) {
		const char *stack = f.lines[i].stack, *slash = strchr(stack, '/');
		char want[64], line[64];
		long tid = slash ? strtol(slash + 1, NULL, 10) : 0;
		const char *at = strstr(r.out, "thread ");

		/* the threads' own lines: "thread TID spin_K" */
		for (; at; at = strstr(at + 1, "thread ")) {
			if (sscanf(at, "thread %*d %63s", want) == 1 &&
			    snprintf(line, sizeof(line), "thread %ld %s", tid, want) > 0 &&
			    !strncmp(at, line, strlen(line)))
				break;
		}
		if (!at || !pb_find_frame(stack, "spin ("))
			continue; /* the main thread, or outside the loop */
		all += f.lines[i].count;
		strcat(want, " (");
		if (pb_find_frame(stack, want))
			own += f.lines[i].count;
		else
			print_message("not its own function (%s): %s\n", want, stack);
	}
	print_message("%llu samples of the threads in spin, %.1f%% under their own function\n", all,
		      pb_pct(own, all));
	if (all < 300 || own != all) {
		h_dump(&r, "flamebpf");
		fail_msg("threads' samples under another thread's function");
	}
	h_folded_free(&f);
	h_result_free(&r);
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
	nap = h_sum(&f, pb_under_func, "nap (");
	print_message("%.1f%% of %.2f s off the CPU under nap\n", pb_pct(nap, f.total),
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
