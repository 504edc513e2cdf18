// SPDX-License-Identifier: GPL-2.0
/*
 * flamebpf diff of --off-cpu and --wall captures, in every format diff
 * reads (folded, chrome JSON, perf script), with known truth: the offcpu
 * workload waits 20 ms (wait_a), 60 ms (wait_b) and 15 ms (wait_c) a
 * round; its "regressed" build is the same run with wait_b at 120 ms
 * (offcpu ROUNDS 120), which takes wait_b from 30% to 37% of the time off
 * the CPU. Two captures of one build never fail; the regressed one fails,
 * with wait_b named; the table speaks of time, never of calls or samples;
 * an off-CPU capture against a sampled or a wall one is no verdict.
 *
 * The workload runs at a real-time priority (chrt -f): on this shared
 * machine other tests' threads would otherwise preempt it, and the time
 * it waits for a CPU ([preempted], under compute) is wall time that one
 * capture has and the other not (seen: +8 points of [preempted] between
 * two captures of one build at a load of 9 on 2 CPUs), which diff rightly
 * reports but which is no change of the code.
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define ROUNDS	   "20"
#define REGRESSED  "120" /* wait_b's ms in the regressed build (60 in the base) */
#define NFORMATS   3
#define NCAPTURES  3
#define BASE_RUN   0
#define SAME_RUN   1
#define NEW_RUN	   2
#define PATH_LEN   4096
#define REPORT_LEN 512

static const char *const ext[NFORMATS] = { "folded", "json", "perf" };

struct captures {
	char path[NCAPTURES][NFORMATS][PATH_LEN]; /* run, format */
};

/* flamebpf MODE... -o P.folded -o P.json -o P.perf -- offcpu ROUNDS [WAIT_B]:
 * one capture in the three formats diff reads. */
static void capture(const char *const mode[], const char *prefix, const char *wait_b,
		    char out[NFORMATS][PATH_LEN])
{
	const char *argv[24];
	char name[256];
	struct h_folded f;
	size_t n = 0;

	argv[n++] = h_flamebpf();
	for (size_t i = 0; mode[i]; i++)
		argv[n++] = mode[i];
	for (int i = 0; i < NFORMATS; i++) {
		snprintf(name, sizeof(name), "%s.%s", prefix, ext[i]);
		snprintf(out[i], PATH_LEN, "%s", h_path(name));
		argv[n++] = "-o";
		argv[n++] = out[i];
	}
	argv[n++] = "--";
	argv[n++] = "chrt";
	argv[n++] = "-f";
	argv[n++] = "10";
	argv[n++] = h_workload("offcpu");
	argv[n++] = ROUNDS;
	if (wait_b)
		argv[n++] = wait_b;
	argv[n] = NULL;
	h_run_folded(NULL, 60, out[0], &f, argv);
	h_folded_free(&f);
}

/* The base, a second capture of the base, and the regressed build. */
static void capture_runs(const char *const mode[], const char *name, struct captures *c)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "%s-base", name);
	capture(mode, prefix, NULL, c->path[BASE_RUN]);
	snprintf(prefix, sizeof(prefix), "%s-same", name);
	capture(mode, prefix, NULL, c->path[SAME_RUN]);
	snprintf(prefix, sizeof(prefix), "%s-new", name);
	capture(mode, prefix, REGRESSED, c->path[NEW_RUN]);
}

/* flamebpf diff ARGS...; the result is R's to free. */
static void diff(struct h_result *r, const char *const args[])
{
	const char *argv[16] = { h_flamebpf(), "diff" };
	size_t n = 2;

	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	assert_int_equal(h_run(r, 60, argv), 0);
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no \"%s\" in %.500s", key, json_object_to_json_string(o));
	return v;
}

struct row {
	char name[128];
	double change, p;
};

/* From the JSON table, in the mode it says: its first row, and the
 * largest change and smallest p-value among the functions tested. */
static void rows_of(const char *json, const char *mode, struct row *first, struct row *largest,
		    struct row *smallest)
{
	struct json_object *root = json_tokener_parse(json), *funcs, *fn, *p;

	if (!root)
		fail_msg("diff printed no JSON:\n%.2000s", json);
	assert_string_equal(json_object_get_string(member(root, "mode")), mode);
	assert_string_equal(json_object_get_string(member(root, "unit")), "nanoseconds");
	funcs = member(root, "functions");
	*largest = (struct row){ "", 0, 1 };
	*smallest = *largest;
	for (size_t i = 0; i < json_object_array_length(funcs); i++) {
		struct row r;

		fn = json_object_array_get_idx(funcs, i);
		p = member(fn, "p");
		snprintf(r.name, sizeof(r.name), "%s", json_object_get_string(member(fn, "name")));
		r.change = json_object_get_double(member(fn, "change"));
		r.p = json_object_is_type(p, json_type_null) ? 1 : json_object_get_double(p);
		if (!i)
			*first = r;
		if (json_object_is_type(p, json_type_null))
			continue; /* not tested */
		if (fabs(r.change) > fabs(largest->change))
			*largest = r;
		if (r.p < smallest->p)
			*smallest = r;
	}
	json_object_put(root);
}

/* The text table speaks of time: WHAT ("off the CPU", "of wall time") on
 * both profile lines, and never of calls, nor of samples for ns. */
static void expect_time_labels(const char *out, const char *what)
{
	const char *test = strstr(out, "\ntest  ");

	if (!strstr(out, what) || !test)
		fail_msg("no '%s' in the table:\n%.1500s", what, out);
	if (strstr(out, " calls") || strstr(out, "few samples") || strstr(out, "samples\n"))
		fail_msg("the table speaks of calls or samples:\n%.1500s", out);
}

/* Base against the second capture: exit 0; against the regressed one:
 * exit 1, wait_b first and named on stderr. */
static void check_format(const struct captures *c, int fmt, const char *mode, const char *what,
			 char report[REPORT_LEN])
{
	const char *base = c->path[BASE_RUN][fmt];
	struct row first, largest, smallest, reg, unused;
	char svg[PATH_LEN + 16];
	struct h_result r;

	diff(&r, H_ARGV(base, c->path[SAME_RUN][fmt]));
	h_assert_status(&r, 0);
	expect_time_labels(r.out, what);
	h_result_free(&r);
	diff(&r, H_ARGV("--format", "json", base, c->path[SAME_RUN][fmt]));
	h_assert_status(&r, 0);
	rows_of(r.out, mode, &first, &largest, &smallest);
	h_result_free(&r);
	snprintf(svg, sizeof(svg), "%s-%s.svg", base, ext[fmt]);
	diff(&r, H_ARGV("-o", svg, base, c->path[NEW_RUN][fmt]));
	h_assert_status(&r, 1);
	expect_time_labels(r.out, what);
	if (!strstr(r.err, "flamebpf: regression: 'wait_b' inclusive share"))
		fail_msg("%s: stderr does not name wait_b:\n%s", ext[fmt], r.err);
	h_result_free(&r);
	diff(&r, H_ARGV("--format", "json", base, c->path[NEW_RUN][fmt]));
	h_assert_status(&r, 1);
	rows_of(r.out, mode, &reg, &unused, &unused);
	assert_string_equal(reg.name, "wait_b");
	h_result_free(&r);
	snprintf(report, REPORT_LEN,
		 "%s: same build: largest change %+.2f pt (%s), smallest p %.2g (%s); regressed: "
		 "wait_b %+.1f pt, p %.2g",
		 ext[fmt], largest.change, largest.name, smallest.p, smallest.name, reg.change,
		 reg.p);
}

/* The differential flame graph says what it measures, in time. */
static void check_svg(const char *path, const char *title)
{
	char *svg = h_slurp(path);

	assert_non_null(svg);
	if (!strstr(svg, title) || strstr(svg, " samples "))
		fail_msg("'%s' has no '%s' or speaks of samples", path, title);
	free(svg);
}

static void check_runs(const struct captures *c, const char *mode, const char *what,
		       const char *svg_title)
{
	char report[NFORMATS][REPORT_LEN], svg[PATH_LEN + 16];

	for (int fmt = 0; fmt < NFORMATS; fmt++)
		check_format(c, fmt, mode, what, report[fmt]);
	for (int fmt = 0; fmt < NFORMATS; fmt++)
		print_message("%s\n", report[fmt]);
	snprintf(svg, sizeof(svg), "%s-folded.svg", c->path[BASE_RUN][0]);
	check_svg(svg, svg_title);
}

static struct captures offcpu_runs, wall_runs;

static void test_offcpu(void **state)
{
	(void)state;
	require_bpf();
	capture_runs(H_ARGV("--off-cpu"), "off", &offcpu_runs);
	check_runs(&offcpu_runs, "off-cpu", "off the CPU",
		   "Differential Flame Graph: time off the CPU");
}

static void test_wall(void **state)
{
	(void)state;
	require_bpf();
	capture_runs(H_ARGV("--wall", "-F", "999"), "wall", &wall_runs);
	check_runs(&wall_runs, "wall", "of wall time",
		   "Differential Flame Graph: wall time, on and off the CPU");
}

/* flamebpf diff ARGS...: exit 2, nothing on stdout, one line on stderr
 * holding both wants. */
static void expect_no_verdict(const char *want, const char *want2, const char *const args[])
{
	struct h_result r;

	diff(&r, args);
	h_assert_status(&r, 2);
	if (!strstr(r.err, want) || !strstr(r.err, want2) || h_count_lines(r.err) != 1)
		fail_msg("expected one line with '%s' and '%s', got:\n%s", want, want2, r.err);
	assert_string_equal(r.out, "");
	h_result_free(&r);
}

/* An off-CPU capture against a sampled one, or a wall one, in any format:
 * exit 2, the line naming both modes. */
static void test_modes_mixed(void **state)
{
	char sampled[NFORMATS][PATH_LEN];
	const char *off = offcpu_runs.path[BASE_RUN][0], *wall = wall_runs.path[BASE_RUN][0];

	(void)state;
	require_bpf();
	if (!*off || !*wall)
		fail_msg("test_offcpu and test_wall run first");
	capture(H_ARGV("-F", "999"), "sampled", NULL, sampled);
	expect_no_verdict("an off-CPU profile", "a sampling profile", H_ARGV(off, sampled[0]));
	expect_no_verdict("a sampling profile", "an off-CPU profile",
			  H_ARGV(sampled[2], offcpu_runs.path[NEW_RUN][2]));
	expect_no_verdict("an off-CPU profile", "a wall-clock profile",
			  H_ARGV(offcpu_runs.path[BASE_RUN][1], wall));
	expect_no_verdict("a wall-clock profile", "a sampling profile",
			  H_ARGV(wall_runs.path[BASE_RUN][2], sampled[0]));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_offcpu, h_test_teardown),
		cmocka_unit_test_teardown(test_wall, h_test_teardown),
		cmocka_unit_test_teardown(test_modes_mixed, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("diff_offcpu", tests, h_group_setup, h_group_teardown);
}
