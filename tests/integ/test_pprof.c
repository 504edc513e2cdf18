// SPDX-License-Identifier: GPL-2.0
/*
 * pprof output read by its reference consumer, `go tool pprof`: a sampled
 * run of tests/workloads/cpu_tree (known call tree and work ratio) and a
 * uprobe run of tests/workloads/tracee (known wall times). Skips when Go is
 * not installed; Go runs offline with its caches in the test's temp dir.
 */
#include "harness.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000.0 /* ns */

/* One row of `pprof -top -unit=ms`: values in ms, shares in percent. */
struct top_row {
	double flat, flat_pct, cum, cum_pct;
	char name[256];
};

struct top {
	char type[64]; /* "Type: cpu" */
	double total;  /* "... of TOTAL total", in the unit shown */
	struct top_row rows[64];
	size_t n;
	char *text;
};

/* A "flat flat% sum% cum cum% NAME" row; false for any other line. */
static bool parse_row(const char *line, struct top_row *r)
{
	double v[5];
	char *end;

	for (int i = 0; i < 5; i++) {
		v[i] = strtod(line, &end);
		if (end == line || (*end != ' ' && !strchr("m%", *end)))
			return false;
		line = end + strcspn(end, " ");
		line += strspn(line, " ");
	}
	r->flat = v[0];
	r->flat_pct = v[1];
	r->cum = v[3];
	r->cum_pct = v[4];
	snprintf(r->name, sizeof(r->name), "%.*s", (int)strcspn(line, "\n"), line);
	return r->name[0] != '\0';
}

/* The header lines and rows of the report in t->text. */
static void parse_top(struct top *t)
{
	char *of;

	for (const char *line = t->text; line && *line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (!strncmp(line, "Type: ", 6))
			sscanf(line + 6, "%63s", t->type);
		of = strstr(line, "% of ");
		if (!strncmp(line, "Showing nodes", 13) && of)
			t->total = strtod(of + 5, NULL);
		if (t->n < 64 && parse_row(line + strspn(line, " "), &t->rows[t->n]))
			t->n++;
	}
	if (!t->type[0] || !t->n)
		fail_msg("go tool pprof printed no report:\n%s", t->text);
}

/* `go tool pprof -top -unit=ms FILE`, which must exit 0, parsed into t. */
static void pprof_top(const char *file, struct top *t)
{
	memset(t, 0, sizeof(*t));
	t->text = h_pprof_top(file, NULL, "ms", false);
	parse_top(t);
}

/* LO <= GOT <= HI, or the test fails naming WHAT. */
static void expect_between(const char *what, double got, double lo, double hi)
{
	print_message("%s: %.2f, expected %.2f to %.2f\n", what, got, lo, hi);
	if (got < lo || got > hi)
		fail_msg("%s is %.2f, not within %.2f to %.2f", what, got, lo, hi);
}

static const struct top_row *row(const struct top *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].name, name))
			return &t->rows[i];
	fail_msg("no row '%s' in the report:\n%s", name, t->text);
	return NULL;
}

/* Sampled cpu_tree: burn has nearly all the CPU, tree_a twice tree_b's. */
static void test_sampling_top(void **state)
{
	const char *out = h_path("tree.pb.gz");
	struct h_summary sum;
	struct h_result r;
	struct top t;

	(void)state;
	require_bpf();
	h_require_go();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "--sample", "999hz", "-o", out, "--",
				      h_workload("cpu_tree"), "2")),
			 0);
	h_assert_status(&r, 0);
	assert_true(h_parse_summary(r.err, &sum));
	pprof_top(out, &t);
	print_message("%s", t.text);
	assert_string_equal(t.type, "cpu");
	assert_string_equal(t.rows[0].name, "burn");
	expect_between("burn's flat %", t.rows[0].flat_pct, 80, 100);
	/* every sample is in the file, as 1.001001 ms of CPU at 999 Hz */
	expect_between("total ms", t.total, sum.samples * 1.001001 * 0.999,
		       sum.samples * 1.001001 * 1.001);
	expect_between("tree_a / tree_b %", row(&t, "tree_a")->cum * 100 / row(&t, "tree_b")->cum,
		       150, 270);
	expect_between("main's cum %", row(&t, "main")->cum_pct, 80, 100);
	h_result_free(&r);
	free(t.text);
}

/* -e page-faults: the faults are the default sample type, touch_pages has
 * the 5000 the workload makes. */
static void test_event_top(void **state)
{
	const char *out = h_path("faults.pb.gz");
	struct h_result r;
	struct top t;

	(void)state;
	require_bpf();
	h_require_go();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-e", "page-faults", "-o", out, "--",
				      h_workload("events"), "faults", "5000")),
			 0);
	h_assert_status(&r, 0);
	pprof_top(out, &t);
	print_message("%s", t.text);
	assert_string_equal(t.type, "page-faults");
	assert_string_equal(t.rows[0].name, "touch_pages");
	expect_between("touch_pages' faults", t.rows[0].flat, 5000, 5050);
	h_result_free(&r);
	free(t.text);
}

/* tracee nest 2 3 10 traced: inner's 30 ms of wall time are the most self
 * time, outer's 50 ms include them. */
static void test_uprobe_top(void **state)
{
	const char *out = h_path("nest.pb.gz");
	long long outer, inner;
	struct h_result r;
	struct top t;

	(void)state;
	require_bpf();
	h_require_go();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-f", "^(outer|inner)$", "-o", out, "--",
				      h_workload("tracee"), "nest", "2", "3", "10")),
			 0);
	h_assert_status(&r, 0);
	h_expect_calls(&r, 20);
	h_nest_times(r.out, &outer, &inner);
	pprof_top(out, &t);
	print_message("%s", t.text);
	assert_string_equal(t.type, "wall");
	assert_string_equal(t.rows[0].name, "inner");
	expect_between("inner's flat ms", t.rows[0].flat, inner / MS * 0.9, inner / MS * 1.1);
	expect_between("outer's cum ms", row(&t, "outer")->cum, outer / MS * 0.9, outer / MS * 1.1);
	expect_between("outer's flat ms", row(&t, "outer")->flat, 20 * 0.95, outer / MS);
	h_result_free(&r);
	free(t.text);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sampling_top, h_test_teardown),
		cmocka_unit_test_teardown(test_uprobe_top, h_test_teardown),
		cmocka_unit_test_teardown(test_event_top, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("pprof", tests, h_group_setup, h_group_teardown);
}
