// SPDX-License-Identifier: GPL-2.0
/*
 * The fallbacks for older kernels, forced on this one: classic uprobes
 * (before 6.6; FLAMEBPF_CLASSIC_UPROBES=1) and uprobe_multi without sessions
 * (6.6 to 6.12; FLAMEBPF_NO_UPROBE_SESSIONS=1): the same nesting, exact
 * counts, and C++ exceptions through traced frames unharmed.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int classic_setup(void **state)
{
	setenv("FLAMEBPF_CLASSIC_UPROBES", "1", 1);
	return h_group_setup(state);
}

static int classic_teardown(void **state)
{
	unsetenv("FLAMEBPF_CLASSIC_UPROBES");
	return h_group_teardown(state);
}

/* h_run_folded, for a run that must say it used classic uprobes. */
static void run_traced(struct h_result *r, struct h_folded *f, const char *out,
		       const char *const argv[])
{
	h_run_folded(r, 60, out, f, argv);
	h_expect_classic(r);
}

static void test_exact_count(void **state)
{
	const char *out = h_path("classic.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	run_traced(&r, &f, out,
		   H_ARGV(h_flamebpf(), "-f", "^count_me$", "-o", out, "--", h_workload("tracee"),
			  "count", "3000"));
	h_expect_calls(&r, 3000);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.lines[0].stack, "tracee;count_me");
	assert_true(h_has_line(r.err, "flamebpf: lost: nothing"));
	h_folded_free(&f);
	h_result_free(&r);
}

static void test_nesting(void **state)
{
	const char *out = h_path("classic-nest.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	run_traced(&r, &f, out,
		   H_ARGV(h_flamebpf(), "-f", "^(outer|inner)$", "-o", out, "--",
			  h_workload("tracee"), "nest", "1", "1", "20"));
	assert_int_equal(f.n, 2);
	assert_string_equal(f.lines[0].stack, "tracee;outer");
	assert_string_equal(f.lines[1].stack, "tracee;outer;inner");
	h_folded_free(&f);
	h_result_free(&r);
}

/* The checksum line of throws is the same traced and untraced. */
static void test_cxx_exceptions(void **state)
{
	const char *out = h_path("classic-throws.folded");
	struct h_folded f;
	struct h_result r, plain;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&plain, 60, H_ARGV(h_workload("throws"), "30")), 0);
	h_assert_status(&plain, 0);
	run_traced(&r, &f, out,
		   H_ARGV(h_flamebpf(), "-f", "throws:.", "-o", out, "--", h_workload("throws"),
			  "30"));
	assert_non_null(strstr(plain.out, "checksum "));
	assert_true(strncmp(plain.out, r.out, strcspn(plain.out, "\n")) == 0);
	assert_true(f.total > 0);
	h_folded_free(&f);
	h_result_free(&r);
	h_result_free(&plain);
}

/* Plain uprobe_multi entry and return links, without uprobe sessions (the
 * kernels from 6.6 to 6.12): the same counts and nesting. */
static void test_without_sessions(void **state)
{
	const char *out = h_path("nosession.folded");
	struct h_trace_summary s;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	unsetenv("FLAMEBPF_CLASSIC_UPROBES");
	setenv("FLAMEBPF_NO_UPROBE_SESSIONS", "1", 1);
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-v", "-f", "^(outer|inner)$", "-o", out, "--",
				      h_workload("tracee"), "nest", "1", "1", "20")),
			 0);
	unsetenv("FLAMEBPF_NO_UPROBE_SESSIONS");
	setenv("FLAMEBPF_CLASSIC_UPROBES", "1", 1);
	h_assert_status(&r, 0);
	assert_non_null(strstr(r.err, "flamebpf: uprobe_multi;"));
	assert_true(h_parse_trace_summary(r.err, &s));
	assert_int_equal(s.calls, 40);
	h_folded_must_load(out, &f);
	assert_int_equal(f.n, 2);
	assert_string_equal(f.lines[0].stack, "tracee;outer");
	assert_string_equal(f.lines[1].stack, "tracee;outer;inner");
	assert_true(h_has_line(r.err, "flamebpf: lost: nothing"));
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_exact_count, h_test_teardown),
		cmocka_unit_test_teardown(test_nesting, h_test_teardown),
		cmocka_unit_test_teardown(test_cxx_exceptions, h_test_teardown),
		cmocka_unit_test_teardown(test_without_sessions, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("trace_classic", tests, classic_setup, classic_teardown);
}
