// SPDX-License-Identifier: GPL-2.0
/*
 * --heatmap: the subsecond-offset heatmap as an SVG. A command that sleeps
 * 1.3 s and then spins 0.5 s is drawn where it ran: its samples in the
 * second column, from the fourth 100 ms row on. render draws the heatmap of
 * a perf script file; what has no times, or no SVG to draw, is refused.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS 4096

struct cell {
	double from, to;
	unsigned long long n;
};

/* The cells of the heatmap at PATH, from their titles ("1.300-1.400 s: 24
 * samples"); returns how many. */
static size_t load_cells(const char *path, struct cell *cells)
{
	char *svg = h_slurp(path), *at;
	size_t n = 0;

	assert_non_null(svg);
	if (!strstr(svg, "<svg") || !strstr(svg, "</svg>"))
		fail_msg("'%s' is not a whole SVG", path);
	for (at = svg; (at = strstr(at, "<title>")) && n < MAX_CELLS; at++) {
		struct cell *c = &cells[n];

		if (sscanf(at, "<title>%lf-%lf s: %llu sample", &c->from, &c->to, &c->n) == 3)
			n++;
	}
	free(svg);
	return n;
}

static void test_capture(void **state)
{
	const char *out = h_path("heat.svg");
	static struct cell cells[MAX_CELLS];
	unsigned long long all = 0, spinning = 0, middle[3] = { 0 };
	struct h_result r;
	size_t n;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-F", "499", "--heatmap", "--heatmap-rows",
				      "10", "-o", out, "--", "sh", "-c",
				      "sleep 1.3; exec \"$0\" 0.5", h_workload("cpu_tree"))),
			 0);
	h_assert_status(&r, 0);
	n = load_cells(out, cells);
	for (size_t i = 0; i < n; i++) {
		double mid = (cells[i].from + cells[i].to) / 2;

		assert_true(cells[i].to - cells[i].from > 0.099 &&
			    cells[i].to - cells[i].from < 0.101);
		all += cells[i].n;
		spinning += mid > 1.3 && mid < 2.1 ? cells[i].n : 0;
		for (int k = 0; k < 3; k++)
			middle[k] += mid > 1.4 + k * 0.1 && mid < 1.5 + k * 0.1 ? cells[i].n : 0;
		print_message("%.1f-%.1f s: %llu samples\n", cells[i].from, cells[i].to,
			      cells[i].n);
	}
	/* cpu_tree ran from about 1.3 s to 1.8 s (later on a loaded machine) */
	if (!all || spinning < all * 0.9 || !middle[0] || !middle[1] || !middle[2])
		fail_msg("%llu of %llu samples from 1.3 to 2.1 s, 1.4-1.7 s: %llu, %llu, %llu",
			 spinning, all, middle[0], middle[1], middle[2]);
	h_result_free(&r);
}

static void test_render(void **state)
{
	const char *out = h_path("heat.svg");
	static struct cell cells[MAX_CELLS];
	unsigned long long all = 0;
	struct h_result r;
	size_t n;

	(void)state;
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "render", "--heatmap",
				      "tests/data/perf-real-cpuclock.perf", "-o", out)),
			 0);
	h_assert_status(&r, 0);
	n = load_cells(out, cells);
	for (size_t i = 0; i < n; i++)
		all += cells[i].n;
	/* every record of the file, in 20 ms cells */
	assert_int_equal(all, 48);
	assert_true(n >= 2);
	assert_true(cells[0].to - cells[0].from > 0.0199 && cells[0].to - cells[0].from < 0.0201);
	h_result_free(&r);
}

static void test_refused(void **state)
{
	struct h_result r;

	(void)state;
	assert_int_equal(
		h_run(&r, 30,
		      H_ARGV(h_flamebpf(), "render", "--heatmap",
			     "tests/data/perf-real-cpuclock.folded", "-o", h_path("h.svg"))),
		0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "no times: the --heatmap output needs"));
	assert_false(h_exists(h_path("h.svg")));
	h_result_free(&r);
	assert_int_equal(
		h_run(&r, 30,
		      H_ARGV(h_flamebpf(), "render", "--heatmap",
			     "tests/data/perf-real-cpuclock.perf", "-o", h_path("h.folded"))),
		0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "--heatmap draws an SVG: give -o FILE.svg"));
	h_result_free(&r);
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "-F", "99", "--heatmap-rows", "0", "-o",
				      h_path("h.svg"), "--", "true")),
			 0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "invalid --heatmap-rows '0'"));
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_capture, h_test_teardown),
		cmocka_unit_test_teardown(test_render, h_test_teardown),
		cmocka_unit_test_teardown(test_refused, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("heatmap", tests, h_group_setup, h_group_teardown);
}
