// SPDX-License-Identifier: GPL-2.0
/*
 * flamebpf diff on real captures: no false alarm between captures of the
 * same workload (ten pairs, at the defaults), a real regression found and
 * named (tests/workloads/pipeline.c built as is and with -DREGRESSED), in
 * sampling and in uprobe mode, and the inputs that allow no verdict
 * (exit 2, one line saying why).
 */
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define PAIRS	     10
#define SECONDS	     "0.8"
#define UPROBE_FUNCS "^(step|parse|transform|checksum)$"

/* flamebpf -F 999 -o OUT -- WORKLOAD SECONDS: a folded capture. */
static void sample(const char *workload, const char *out)
{
	const char *const argv[] = { h_flamebpf(),	   "-F",    "999", "-o", out, "--",
				     h_workload(workload), SECONDS, NULL };
	struct h_folded f;

	h_run_folded(NULL, 30, out, &f, argv);
	if (f.total < 200)
		fail_msg("'%s' has %llu samples: too few for the test", out, f.total);
	h_folded_free(&f);
}

/* flamebpf diff ARGS...; the result is R's to free. */
static void diff(struct h_result *r, const char *const args[])
{
	const char *argv[16] = { h_flamebpf(), "diff" };
	size_t n = 2;

	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	assert_int_equal(h_run(r, 30, argv), 0);
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no \"%s\" in %.500s", key, json_object_to_json_string(o));
	return v;
}

struct noise {
	double change, p;
	char change_fn[128], p_fn[128];
};

/* The largest change and the smallest p-value among the functions tested. */
static void note_extremes(const char *json, struct noise *n)
{
	struct json_object *root = json_tokener_parse(json), *funcs, *fn, *p;

	if (!root)
		fail_msg("diff printed no JSON:\n%.2000s", json);
	funcs = member(root, "functions");
	for (size_t i = 0; i < json_object_array_length(funcs); i++) {
		fn = json_object_array_get_idx(funcs, i);
		p = member(fn, "p");
		if (json_object_is_type(p, json_type_null))
			continue; /* too few samples: not tested */
		if (fabs(json_object_get_double(member(fn, "change"))) > fabs(n->change)) {
			n->change = json_object_get_double(member(fn, "change"));
			snprintf(n->change_fn, sizeof(n->change_fn), "%s",
				 json_object_get_string(member(fn, "name")));
		}
		if (json_object_get_double(p) < n->p) {
			n->p = json_object_get_double(p);
			snprintf(n->p_fn, sizeof(n->p_fn), "%s",
				 json_object_get_string(member(fn, "name")));
		}
	}
	json_object_put(root);
}

/* Ten pairs of captures of the same workload: all exit 0 at the defaults.
 * cpu_tree's round lasts 1.5 sampling periods; the sampler's jittered
 * period keeps it from being sampled at the same phases (see
 * test_sample_tree's test_not_phase_locked). */
static void test_no_false_alarm(void **state)
{
	struct noise n = { 0, 1, "", "" };
	char a[4096], b[4096];
	struct h_result r;

	(void)state;
	require_bpf();
	for (int i = 0; i < PAIRS; i++) {
		snprintf(a, sizeof(a), "%s", h_path("same-a.folded"));
		snprintf(b, sizeof(b), "%s", h_path("same-b.folded"));
		sample("cpu_tree", a);
		sample("cpu_tree", b);
		diff(&r, H_ARGV("--format", "json", a, b));
		h_assert_status(&r, 0);
		note_extremes(r.out, &n);
		h_result_free(&r);
	}
	print_message("%d pairs of cpu_tree captures: largest change %+.2f points (%s), smallest "
		      "p-value %.3g (%s); none a regression\n",
		      PAIRS, n.change, n.change_fn, n.p, n.p_fn);
}

static void expect_regression(const struct h_result *r, const char *what)
{
	static const char want[] = "REGRESSION  checksum";
	const char *row = strstr(r->out, "   function\n");
	size_t len;

	h_assert_status(r, 1);
	if (!strstr(r->err, "flamebpf: regression: 'checksum' inclusive share"))
		fail_msg("%s: stderr does not name checksum:\n%s", what, r->err);
	/* the first row of the table is checksum's */
	assert_non_null(row);
	row = strchr(row, '\n') + 1;
	len = strcspn(row, "\n");
	if (len < sizeof(want) || strncmp(row + len - (sizeof(want) - 1), want, sizeof(want) - 1))
		fail_msg("%s: checksum is not first:\n%s", what, r->out);
	print_message("%s: %.*s\n", what, (int)strcspn(r->err, "\n"), r->err);
}

/* checksum() does three times the work in the new build: exit 1, named. */
static void test_regression_sampled(void **state)
{
	char base[4096], new[4096], svg[4096], cmd[8192];
	struct h_result r;

	(void)state;
	require_bpf();
	snprintf(base, sizeof(base), "%s", h_path("pipeline-base.folded"));
	snprintf(new, sizeof(new), "%s", h_path("pipeline-new.folded"));
	snprintf(svg, sizeof(svg), "%s", h_path("pipeline-diff.svg"));
	sample("pipeline", base);
	sample("regressed/pipeline", new);
	diff(&r, H_ARGV("-o", svg, base, new));
	expect_regression(&r, "sampled");
	h_result_free(&r);
	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", svg);
	assert_int_equal(system(cmd), 0);
	/* only a function that did not change may fail the job: none does */
	diff(&r, H_ARGV("--fail-on", "^(parse|step)$", base, new));
	h_assert_status(&r, 0);
	h_result_free(&r);
}

/* flamebpf -f ... -o OUT.json -- WORKLOAD SECONDS: every call, timed. */
static void trace(const char *workload, const char *out)
{
	const char *const argv[] = { h_flamebpf(),	   "-f",  UPROBE_FUNCS, "-o", out, "--",
				     h_workload(workload), "0.5", NULL };
	struct h_result r;

	assert_int_equal(h_run(&r, 30, argv), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
}

/* Uprobe mode: per-call durations of the same build do not alarm; the
 * slower checksum() does. */
static void test_regression_traced(void **state)
{
	char base[4096], same[4096], new[4096];
	struct h_result r;

	(void)state;
	require_bpf();
	snprintf(base, sizeof(base), "%s", h_path("traced-base.json"));
	snprintf(same, sizeof(same), "%s", h_path("traced-same.json"));
	snprintf(new, sizeof(new), "%s", h_path("traced-new.json"));
	trace("pipeline", base);
	trace("pipeline", same);
	trace("regressed/pipeline", new);
	diff(&r, H_ARGV(base, same));
	h_assert_status(&r, 0);
	assert_non_null(strstr(r.out, "Mann-Whitney U"));
	h_result_free(&r);
	diff(&r, H_ARGV(base, new));
	expect_regression(&r, "traced");
	h_result_free(&r);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Exit 2 and one line on stderr holding want. */
static void expect_no_verdict(const char *a, const char *b, const char *want)
{
	struct h_result r;

	diff(&r, H_ARGV(a, b));
	h_assert_status(&r, 2);
	if (!strstr(r.err, want) || h_count_lines(r.err) != 1 || strncmp(r.err, "flamebpf: ", 10))
		fail_msg("expected one line with '%s', got:\n%s", want, r.err);
	assert_string_equal(r.out, "");
	h_result_free(&r);
}

static void test_bad_input(void **state)
{
	char ok[4096], empty[4096], garbage[4096], chrome[4096];

	(void)state;
	snprintf(ok, sizeof(ok), "%s", h_path("ok.folded"));
	snprintf(empty, sizeof(empty), "%s", h_path("empty.folded"));
	snprintf(garbage, sizeof(garbage), "%s", h_path("garbage.folded"));
	snprintf(chrome, sizeof(chrome), "%s", h_path("calls.json"));
	write_file(ok, "app;main;a 500\napp;main;b 500\n");
	write_file(empty, "");
	write_file(garbage, "\x7f"
			    "ELF\x02\x01\x01 not a profile\n");
	write_file(chrome, "{\"traceEvents\":[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":2,"
			   "\"pid\":1,\"tid\":1}]}\n");
	expect_no_verdict(ok, h_path("missing.folded"), "No such file or directory");
	expect_no_verdict(empty, ok, "empty");
	expect_no_verdict(ok, garbage, "not a profile");
	expect_no_verdict(ok, chrome, "cannot be compared");
	expect_no_verdict(chrome, ok, "uprobe-mode profile");
	expect_no_verdict(ok, "--threshold=-1", "bad --threshold");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_no_false_alarm, h_test_teardown),
		cmocka_unit_test_teardown(test_regression_sampled, h_test_teardown),
		cmocka_unit_test_teardown(test_regression_traced, h_test_teardown),
		cmocka_unit_test_teardown(test_bad_input, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("diff", tests, h_group_setup, h_group_teardown);
}
