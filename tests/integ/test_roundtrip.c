// SPDX-License-Identifier: GPL-2.0
/*
 * One capture written in several formats at once (-o repeated), then read
 * back with `flamebpf render`: the perf script, Chrome JSON and HTML report
 * of a capture rendered to folded are its direct folded output, byte for
 * byte, and folded rendered to folded is itself.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The files at a and b hold the same bytes. */
static void expect_same_file(const char *a, const char *b)
{
	char *x = h_slurp(a), *y = h_slurp(b);

	if (strcmp(x, y))
		fail_msg("'%s' and '%s' differ:\n--- %s\n%.2000s\n--- %s\n%.2000s", a, b, a, x, b,
			 y);
	free(x);
	free(y);
}

/* flamebpf render IN -o OUT [OPTION], which must succeed. */
static void render_with(const char *in, const char *out, const char *option)
{
	struct h_result r;

	assert_int_equal(h_run(&r, 60,
			       option ? H_ARGV(h_flamebpf(), "render", in, "-o", out, option)
				      : H_ARGV(h_flamebpf(), "render", in, "-o", out)),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
}

static void render(const char *in, const char *out)
{
	render_with(in, out, NULL);
}

/* Sampling: perf script and folded from one capture of cpu_tree. */
static void test_sample_perf_to_folded(void **state)
{
	const char *folded = h_path("s.folded"), *perf = h_path("s.perf"), *html = h_path("s.html"),
		   *back = h_path("s_back.folded"), *again = h_path("s_again.folded"),
		   *from_html = h_path("s_html.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-F", "999", "-o", folded, "-o", perf, "-o",
				      html, "--", h_workload("cpu_tree"), "1")),
			 0);
	h_assert_status(&r, 0);
	if (!strstr(r.err, "lost: nothing"))
		fail_msg("the capture lost something, so its outputs may differ:\n%s", r.err);
	h_result_free(&r);
	render(perf, back);
	expect_same_file(folded, back);
	render(folded, again);
	expect_same_file(folded, again);
	render(html, from_html);
	expect_same_file(folded, from_html);
}

/* Uprobe mode: Chrome JSON (a call per event) and folded (self time per
 * path, summed in the kernel) from one capture of tracee. */
static void test_trace_chrome_to_folded(void **state)
{
	const char *folded = h_path("t.folded"), *json = h_path("t.json"), *html = h_path("t.html"),
		   *back = h_path("t_back.folded"), *from_html = h_path("t_html.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(
		h_run(&r, 60,
		      H_ARGV(h_flamebpf(), "-f", "^(outer|inner)$", "-o", folded, "-o", json, "-o",
			     html, "--", h_workload("tracee"), "nest", "2", "3", "5")),
		0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	render(json, back);
	expect_same_file(folded, back);
	render(html, from_html);
	expect_same_file(folded, from_html);
}

/* Uprobe mode's perf script, a record per call of either function, all
 * of one event (it was an event per function, "uprobe:outer", of which a
 * reader keeps the first: render dropped every other function's calls),
 * rendered by their periods (each call's self time) is the folded output. */
static void test_trace_perf_to_folded(void **state)
{
	const char *folded = h_path("tp.folded"), *perf = h_path("tp.perf"),
		   *back = h_path("tp_back.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-f", "^(outer|inner)$", "-o", folded, "-o",
				      perf, "--", h_workload("tracee"), "nest", "2", "3", "5")),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	render_with(perf, back, "--period");
	expect_same_file(folded, back);
}

/* System-wide, roots COMM-PID: the HTML report of every process while
 * cpu_tree runs, rendered with --pids, is the capture's folded output; and
 * the page rendered to a page again still is. */
static void test_system_html_to_folded(void **state)
{
	const char *folded = h_path("a.folded"), *html = h_path("a.html"),
		   *back = h_path("a_back.folded"), *again = h_path("a_again.html"),
		   *twice = h_path("a_twice.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-F", "999", "-a", "--pids", "-o", folded, "-o",
				      html, "--", h_workload("cpu_tree"), "0.5")),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	render_with(html, back, "--pids");
	expect_same_file(folded, back);
	render(html, again);
	render_with(again, twice, "--pids");
	expect_same_file(folded, twice);
}

/* Several outputs: --format is for one, and stdout takes one. */
static void test_outputs_usage(void **state)
{
	struct h_result r;

	(void)state;
	assert_int_equal(h_run(&r, 10,
			       H_ARGV(h_flamebpf(), "-F", "99", "-o", h_path("a.svg"), "-o",
				      h_path("b.json"), "--format", "perf", "--", "true")),
			 0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "--format"));
	h_result_free(&r);
	assert_int_equal(
		h_run(&r, 10, H_ARGV(h_flamebpf(), "-F", "99", "-o", "-", "-o", "-", "--", "true")),
		0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "standard output"));
	h_result_free(&r);
	assert_false(h_exists(h_path("a.svg")));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sample_perf_to_folded, h_test_teardown),
		cmocka_unit_test_teardown(test_trace_chrome_to_folded, h_test_teardown),
		cmocka_unit_test_teardown(test_trace_perf_to_folded, h_test_teardown),
		cmocka_unit_test_teardown(test_system_html_to_folded, h_test_teardown),
		cmocka_unit_test_teardown(test_outputs_usage, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("roundtrip", tests, h_group_setup, h_group_teardown);
}
