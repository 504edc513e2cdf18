// SPDX-License-Identifier: GPL-2.0
/*
 * The status line: on a terminal (a pty from script(1)), a "\r"-refreshed
 * line with the elapsed time and the samples; never when stderr is a file.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

static void test_status_on_tty(void **state)
{
	const char *out = h_path("tty.folded");
	char cmd[4096];
	struct h_result r;

	(void)state;
	require_bpf();
	snprintf(cmd, sizeof(cmd), "%s --sample 99 -d 1.2 -o %s -- %s 3", h_flamebpf(), out,
		 h_workload("cpu_tree"));
	assert_int_equal(h_run(&r, 30, H_ARGV("script", "-qfec", cmd, "/dev/null")), 0);
	h_assert_status(&r, 0);
	if (!strstr(r.out, "\rflamebpf: ") || !strstr(r.out, " samples (Ctrl-C to stop)")) {
		h_dump(&r, "script");
		fail_msg("no status line on the terminal");
	}
	/* the summary still follows, on a clean line */
	assert_non_null(strstr(r.out, "flamebpf: lost: nothing"));
	h_result_free(&r);
}

static void test_no_status_in_files(void **state)
{
	const char *out = h_path("file.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "--sample", "99", "-d", "1", "-o", out, "--",
				      h_workload("cpu_tree"), "3")),
			 0);
	h_assert_status(&r, 0);
	assert_null(strchr(r.err, '\r'));
	assert_null(strstr(r.err, "Ctrl-C"));
	assert_non_null(strstr(r.err, "flamebpf: lost: nothing"));
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_status_on_tty, h_test_teardown),
		cmocka_unit_test_teardown(test_no_status_in_files, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("progress", tests, h_group_setup, h_group_teardown);
}
