// SPDX-License-Identifier: GPL-2.0
/*
 * flamebpf diff on real captures: no false alarm between captures of the
 * same workload (ten pairs, at the defaults), a real regression found and
 * named (tests/workloads/pipeline.c built as is and with -DREGRESSED), in
 * sampling and in uprobe mode, and the inputs that allow no verdict, one
 * line saying why: bad usage and profiles of different modes exit 2, a
 * profile missing, empty or not a profile 1 (a runtime failure, as in
 * render).
 */
#include "harness.h"

#include <ctype.h>
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
	const char *argv[32] = { h_flamebpf(), "diff" };
	size_t n = 2;

	for (size_t i = 0; args[i] && n < 31; i++)
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

/* The data of an HTML report at path, parsed. */
static struct json_object *page_data(const char *path)
{
	char *page = h_slurp(path), *from = strstr(page, "id=\"flamebpf-data\">"), *to;
	struct json_object *d;

	if (!from || !(to = strstr(from, "\n</script>")))
		fail_msg("'%s' holds no report data", path);
	*to = '\0';
	d = json_tokener_parse(strchr(from, '>') + 1);
	if (!d)
		fail_msg("the data of '%s' is not JSON", path);
	free(page);
	return d;
}

/* Whether some node of the page's tree is named name and coloured rgb. */
static bool page_has_frame(struct json_object *d, const char *name, unsigned int rgb)
{
	struct json_object *nodes = member(d, "nodes"), *funcs = member(d, "funcs");
	struct json_object *strings = member(d, "strings"),
			   *colours = member(member(d, "diff"), "rgb");

	for (size_t i = 0; i < json_object_array_length(nodes) / 2; i++) {
		int fn = json_object_get_int(json_object_array_get_idx(nodes, 2 * i + 1));
		int s = json_object_get_int(json_object_array_get_idx(funcs, 4 * fn));

		if (!strcmp(json_object_get_string(json_object_array_get_idx(strings, s)), name) &&
		    (unsigned int)json_object_get_int(json_object_array_get_idx(colours, i)) == rgb)
			return true;
	}
	return false;
}

/* Every frame of the differential SVG has its colour in the page too:
 * "<title>NAME (base ...)</title><rect ... fill="rgb(R,G,B)"". */
static void expect_svg_colours(const char *svg_path, struct json_object *d)
{
	char *svg = h_slurp(svg_path), *at = svg, name[256];
	unsigned int r, g, b, frames = 0;

	while ((at = strstr(at, "<title>"))) {
		at += 7;
		char *end = strstr(at, " (base"), *fill = strstr(at, "fill=\"rgb(");

		if (!end || !fill || end - at >= (long)sizeof(name) || strchr(at, '<') < end)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(end - at), at);
		assert_int_equal(sscanf(fill, "fill=\"rgb(%u,%u,%u)", &r, &g, &b), 3);
		if (!strcmp(name, "all"))
			continue;
		if (!page_has_frame(d, name, r << 16 | g << 8 | b))
			fail_msg("the SVG's '%s' is rgb(%u,%u,%u); the page has no such frame",
				 name, r, g, b);
		frames++;
	}
	assert_true(frames > 3);
	free(svg);
}

/* -o diff.html -o diff.svg: the same verdict; the page's table is diff's,
 * in its order (regressions first: checksum); its graph is coloured as the
 * SVG's. */
static void test_html_page(void **state)
{
	char base[4096], new[4096], svg[4096], html[4096];
	struct json_object *d, *rows, *table, *json;
	struct h_result r;

	(void)state;
	require_bpf();
	snprintf(base, sizeof(base), "%s", h_path("pipeline-base.folded"));
	snprintf(new, sizeof(new), "%s", h_path("pipeline-new.folded"));
	snprintf(svg, sizeof(svg), "%s", h_path("pipeline-diff.svg"));
	snprintf(html, sizeof(html), "%s", h_path("pipeline-diff.html"));
	sample("pipeline", base);
	sample("regressed/pipeline", new);
	/* both graphs from one run: -o given twice writes each */
	diff(&r, H_ARGV("-o", html, "-o", svg, base, new));
	expect_regression(&r, "sampled, -o html -o svg");
	h_result_free(&r);
	diff(&r, H_ARGV("--top", "0", "--format", "json", base, new));
	json = json_tokener_parse(r.out);
	assert_non_null(json);
	table = member(json, "functions");
	h_result_free(&r);
	d = page_data(html);
	rows = member(member(d, "diff"), "funcs");
	assert_int_equal(json_object_array_length(rows), json_object_array_length(table));
	for (size_t i = 0; i < json_object_array_length(rows); i++)
		assert_string_equal(json_object_get_string(json_object_array_get_idx(
					    json_object_array_get_idx(rows, i), 0)),
				    json_object_get_string(
					    member(json_object_array_get_idx(table, i), "name")));
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
				    json_object_array_get_idx(rows, 0), 0)),
			    "checksum");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
				    json_object_array_get_idx(rows, 0), 5)),
			    "REGRESSION");
	expect_svg_colours(svg, d);
	json_object_put(d);
	json_object_put(json);
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

/* flamebpf diff ARGS...: exit STATUS, nothing on stdout, one line on
 * stderr holding want. */
static void expect_no_verdict_status(int status, const char *want, const char *const args[])
{
	struct h_result r;

	diff(&r, args);
	h_assert_status(&r, status);
	if (!strstr(r.err, want) || h_count_lines(r.err) != 1 || strncmp(r.err, "flamebpf: ", 10))
		fail_msg("expected one line with '%s', got:\n%s", want, r.err);
	assert_string_equal(r.out, "");
	h_result_free(&r);
}

/* Bad usage, or profiles of different modes: exit 2. */
static void expect_no_verdict(const char *want, const char *const args[])
{
	expect_no_verdict_status(2, want, args);
}

/* A profile that cannot be read, or holds none: exit 1, as render's. */
static void expect_failure(const char *want, const char *const args[])
{
	expect_no_verdict_status(1, want, args);
}

/* Two profiles of different modes: the message names each file with its
 * format, and blames a chrome trace's reading only where one was given. */
static void expect_modes(const char *base, const char *new, const char *const want[], bool chrome)
{
	const char *const args[] = { base, new, NULL };
	struct h_result r;

	diff(&r, args);
	h_assert_status(&r, 2);
	print_message("-> %s", r.err);
	for (size_t i = 0; want[i]; i++)
		if (!strstr(r.err, want[i]))
			fail_msg("expected '%s' in:\n%s", want[i], r.err);
	if ((strstr(r.err, "chrome") != NULL) != chrome)
		fail_msg("a chrome trace %s, but:\n%s", chrome ? "given" : "not given", r.err);
	assert_int_equal(h_count_lines(r.err), 1);
	h_result_free(&r);
}

static void test_mixed_modes(void **state)
{
	const char *ok = h_path("ok.folded"), *off = h_path("off.folded");
	const char *chrome = h_path("calls.json");
	char want[3][512];

	(void)state;
	h_write_file(ok, "app;main;a 500\napp;main;b 500\n", 0644);
	h_write_file(off, "app;main;[sleeping] 5000000\napp;main;a;[disk] 3000000\n", 0644);
	h_write_file(chrome,
		     "{\"traceEvents\":[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":2,"
		     "\"pid\":1,\"tid\":1}]}\n",
		     0644);
	snprintf(want[0], sizeof(want[0]), "'%s' (folded) is an off-CPU profile", off);
	snprintf(want[1], sizeof(want[1]), "'%s' (folded) is a sampling profile", ok);
	expect_modes(off, ok, H_ARGV(want[0], want[1], "cannot be compared"), false);
	snprintf(want[0], sizeof(want[0]), "'%s' (chrome JSON) is a uprobe-mode profile", chrome);
	snprintf(want[2], sizeof(want[2]), "'%s' has no \"mode\":\"sample\"", chrome);
	expect_modes(ok, chrome, H_ARGV(want[1], want[0], want[2]), true);
}

/* A pprof file, flamebpf's own output, as NEW: refused as pprof, which
 * flamebpf writes but does not read. */
static void expect_pprof_refused(const char *base)
{
	char pb[4096], want[4200];
	struct h_result r;

	snprintf(pb, sizeof(pb), "%s", h_path("new.pb.gz"));
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "render", base, "-o", pb)), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	snprintf(want, sizeof(want), "'%s' is a pprof profile (gzip'd protobuf)", pb);
	expect_failure(want, H_ARGV(base, pb));
}

static void test_bad_input(void **state)
{
	char ok[4096], empty[4096], zero[4096], garbage[4096], chrome[4096], want[4200];

	(void)state;
	snprintf(ok, sizeof(ok), "%s", h_path("ok.folded"));
	snprintf(empty, sizeof(empty), "%s", h_path("empty.folded"));
	snprintf(zero, sizeof(zero), "%s", h_path("zero.folded"));
	snprintf(garbage, sizeof(garbage), "%s", h_path("garbage.folded"));
	snprintf(chrome, sizeof(chrome), "%s", h_path("calls.json"));
	h_write_file(ok, "app;main;a 500\napp;main;b 500\n", 0644);
	h_write_file(empty, "", 0644);
	h_write_file(zero, "app;main;a 0\n", 0644);
	h_write_file(garbage,
		     "\x7f"
		     "ELF\x02\x01\x01 not a profile\n",
		     0644);
	h_write_file(chrome,
		     "{\"traceEvents\":[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":2,"
		     "\"pid\":1,\"tid\":1}]}\n",
		     0644);
	expect_failure("No such file or directory", H_ARGV(ok, h_path("missing.folded")));
	snprintf(want, sizeof(want), "'%s' is empty: no stacks in it", empty);
	expect_failure(want, H_ARGV(empty, ok));
	expect_failure(want, H_ARGV(ok, empty));
	snprintf(want, sizeof(want), "'%s' holds no stacks", zero);
	expect_failure(want, H_ARGV(ok, zero));
	expect_failure("not a profile", H_ARGV(ok, garbage));
	expect_no_verdict("cannot be compared", H_ARGV(ok, chrome));
	expect_no_verdict("uprobe-mode profile", H_ARGV(chrome, ok));
	expect_pprof_refused(ok);
	expect_no_verdict("bad --threshold", H_ARGV(ok, "--threshold=-1"));
}

/* ---- every option through the command line ---- */

#define NFILES 16

/* Writes TEXT to NAME in the temp dir; the path lasts NFILES calls. */
static const char *profile_file(const char *name, const char *text)
{
	static char paths[NFILES][4096];
	static size_t next;
	char *p = paths[next++ % NFILES];

	snprintf(p, sizeof(paths[0]), "%s", h_path(name));
	h_write_file(p, text, 0644);
	return p;
}

/* Two functions under main, half and half; the same with b at 60%, 57%,
 * and at twice the samples. */
#define BASE   "app;main;a 500\napp;main;b 500\n"
#define GROWN  "app;main;a 400\napp;main;b 600\n"
#define SLIGHT "app;main;a 430\napp;main;b 570\n"
#define TWICE  "app;main;a 1000\napp;main;b 1000\n"

static void expect_status(int want, const char *const args[])
{
	struct h_result r;

	diff(&r, args);
	h_assert_status(&r, want);
	h_result_free(&r);
}

/* flamebpf diff --format json ARGS... exits WANT; the JSON is the caller's. */
static struct json_object *diff_json(int want, const char *const args[])
{
	const char *argv[24] = { "--format", "json" };
	struct json_object *root;
	struct h_result r;
	size_t n = 2;

	for (size_t i = 0; args[i] && n < 23; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	diff(&r, argv);
	h_assert_status(&r, want);
	root = json_tokener_parse(r.out);
	if (!root)
		fail_msg("diff printed no JSON:\n%.2000s", r.out);
	h_result_free(&r);
	return root;
}

static double json_num(struct json_object *root, const char *key)
{
	return json_object_get_double(member(root, key));
}

static size_t json_rows(struct json_object *root)
{
	return json_object_array_length(member(root, "functions"));
}

/* Whether a row of the JSON table is NAME's. */
static bool json_has_row(struct json_object *root, const char *name)
{
	struct json_object *funcs = member(root, "functions");

	for (size_t i = 0; i < json_object_array_length(funcs); i++)
		if (!strcmp(json_object_get_string(
				    member(json_object_array_get_idx(funcs, i), "name")),
			    name))
			return true;
	return false;
}

/* --threshold PCT: b's +10 points fail at 5 (the default) and 9.5%, not at 12. */
static void test_cli_threshold(void **state)
{
	const char *base = profile_file("t-base.folded", BASE);
	const char *grown = profile_file("t-grown.folded", GROWN);
	struct json_object *j;

	(void)state;
	j = diff_json(1, H_ARGV(base, grown));
	assert_true(json_num(j, "threshold") == 5);
	json_object_put(j);
	j = diff_json(0, H_ARGV("--threshold", "12", base, grown));
	assert_true(json_num(j, "threshold") == 12);
	assert_true(json_num(j, "regressions") == 0);
	json_object_put(j);
	j = diff_json(1, H_ARGV("--threshold=9.5%", base, grown));
	assert_true(json_num(j, "threshold") == 9.5);
	json_object_put(j);
	expect_status(0, H_ARGV(base, grown, "--threshold", "10.5"));
}

/* --absolute: the same shares over twice the samples are no change, unless
 * totals are compared: +100%, under a threshold of 150% only. */
static void test_cli_absolute(void **state)
{
	const char *base = profile_file("a-base.folded", BASE);
	const char *twice = profile_file("a-twice.folded", TWICE);
	struct json_object *j;

	(void)state;
	j = diff_json(0, H_ARGV(base, twice));
	assert_string_equal(json_object_get_string(member(j, "compare")), "share");
	json_object_put(j);
	j = diff_json(1, H_ARGV("--absolute", base, twice));
	assert_string_equal(json_object_get_string(member(j, "compare")), "absolute");
	assert_true(json_num(j, "regressions") == 3);
	json_object_put(j);
	expect_status(0, H_ARGV("--absolute", "--threshold", "150", base, twice));
}

/* --min-samples N: x's 15 samples (+15 points) are tested only below 16. */
static void test_cli_min_samples(void **state)
{
	const char *base = profile_file("m-base.folded", "app;main;a 100\n");
	const char *new = profile_file("m-new.folded", "app;main;a 85\napp;main;x 15\n");
	struct json_object *j;

	(void)state;
	j = diff_json(0, H_ARGV(base, new));
	assert_true(json_num(j, "min_samples") == 20);
	json_object_put(j);
	j = diff_json(1, H_ARGV("--min-samples", "5", base, new));
	assert_true(json_num(j, "min_samples") == 5);
	json_object_put(j);
	expect_status(1, H_ARGV("--min-samples=15", base, new));
	expect_status(0, H_ARGV("--min-samples=16", base, new));
}

/* --alpha P: b's +7 points (p 0.00085, 3 functions tested) pass at the
 * default 0.001, fail at 0.01. */
static void test_cli_alpha(void **state)
{
	const char *base = profile_file("p-base.folded", BASE);
	const char *slight = profile_file("p-slight.folded", SLIGHT);
	struct json_object *j;

	(void)state;
	j = diff_json(0, H_ARGV(base, slight));
	assert_true(json_num(j, "alpha") == 0.001);
	json_object_put(j);
	j = diff_json(1, H_ARGV("--alpha", "0.01", base, slight));
	assert_true(json_num(j, "alpha") == 0.01);
	json_object_put(j);
}

/* --top N: 20 rows by default, N, or all with 0; every regression shown. */
static void test_cli_top(void **state)
{
	char text[2048] = "";
	const char *wide, *base, *twice;
	struct json_object *j;
	size_t len = 0;

	(void)state;
	for (int i = 0; i < 25; i++)
		len += snprintf(text + len, sizeof(text) - len, "app;main;f%02d %d\n", i, 40 + i);
	wide = profile_file("top.folded", text);
	base = profile_file("top-base.folded", BASE);
	twice = profile_file("top-twice.folded", TWICE);
	j = diff_json(0, H_ARGV(wide, wide));
	assert_int_equal(json_rows(j), 20);
	assert_true(json_num(j, "functions_total") == 26);
	json_object_put(j);
	j = diff_json(0, H_ARGV("--top", "0", wide, wide));
	assert_int_equal(json_rows(j), 26);
	json_object_put(j);
	j = diff_json(0, H_ARGV("--top=3", wide, wide));
	assert_int_equal(json_rows(j), 3);
	json_object_put(j);
	j = diff_json(1, H_ARGV("--top", "1", "--absolute", base, twice));
	assert_int_equal(json_rows(j), 3);
	json_object_put(j);
}

/* --ignore leaves b out; --fail-on picks who may fail; --format; -o. */
static void test_cli_regex_format_output(void **state)
{
	const char *base = profile_file("r-base.folded", BASE);
	const char *grown = profile_file("r-grown.folded", GROWN);
	char svg[4096];
	struct json_object *j;
	struct h_result r;

	(void)state;
	j = diff_json(0, H_ARGV("--ignore", "^b$", base, grown));
	assert_false(json_has_row(j, "b"));
	assert_true(json_has_row(j, "a"));
	json_object_put(j);
	expect_status(0, H_ARGV("--fail-on", "^(a|main)$", base, grown));
	expect_status(1, H_ARGV("--fail-on", "b", base, grown));
	diff(&r, H_ARGV("--format", "markdown", base, grown));
	h_assert_status(&r, 1);
	assert_true(!strncmp(r.out, "### flamebpf diff: 1 regression", 31));
	assert_non_null(strstr(r.out, "| **REGRESSION** | `b` |"));
	h_result_free(&r);
	diff(&r, H_ARGV("--format=text", base, grown));
	h_assert_status(&r, 1);
	assert_non_null(strstr(r.out, "REGRESSION  b\n"));
	h_result_free(&r);
	snprintf(svg, sizeof(svg), "%s", h_path("r.svg"));
	expect_status(1, H_ARGV("--output", svg, base, grown));
	assert_true(h_exists(svg));
	diff(&r, H_ARGV("--help"));
	h_assert_status(&r, 0);
	assert_true(!strncmp(r.out, "usage: flamebpf diff", 20));
	h_result_free(&r);
}

/* Bad values and usage: exit 2, one line naming the option. */
static void test_cli_bad_values(void **state)
{
	static const struct {
		const char *want, *args[3];
	} bad[] = {
		{ "bad --threshold 'abc'", { "--threshold", "abc" } },
		{ "bad --threshold '-1'", { "--threshold=-1" } },
		{ "bad --threshold 'nan'", { "--threshold", "nan" } },
		{ "bad --threshold '5 pt'", { "--threshold", "5 pt" } },
		{ "option '--threshold' needs a value", { "--threshold" } },
		{ "bad --min-samples '-1'", { "--min-samples", "-1" } },
		{ "bad --min-samples '2.5'", { "--min-samples", "2.5" } },
		{ "bad --min-samples ''", { "--min-samples=" } },
		{ "bad --alpha '2'", { "--alpha", "2" } },
		{ "bad --alpha '0'", { "--alpha", "0" } },
		{ "bad --alpha '1'", { "--alpha", "1" } },
		{ "bad --alpha 'abc'", { "--alpha", "abc" } },
		{ "bad --top '-3'", { "--top", "-3" } },
		{ "bad --top 'x'", { "--top", "x" } },
		{ "bad --fail-on regex '('", { "--fail-on", "(" } },
		{ "bad --ignore regex '['", { "--ignore", "[" } },
		{ "unknown format 'xml'", { "--format", "xml" } },
		{ "'diff.txt' ends in neither .svg nor .html", { "-o", "diff.txt" } },
		{ "'--absolute=1'", { "--absolute=1" } },
		{ "unknown option '--bogus'", { "--bogus" } },
		{ "unknown option '-x'", { "-x" } },
	};
	const char *base = profile_file("b-base.folded", BASE);
	const char *argv[8];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = 0;

		argv[n++] = base;
		argv[n++] = base;
		for (size_t k = 0; k < 3 && bad[i].args[k]; k++)
			argv[n++] = bad[i].args[k];
		argv[n] = NULL;
		expect_no_verdict(bad[i].want, argv);
	}
	expect_no_verdict("two profiles: flamebpf diff [OPTIONS] BASE NEW (1 given)", H_ARGV(base));
	expect_no_verdict("(3 given)", H_ARGV(base, base, base));
}

/* ---- perf script inputs ---- */

/* FOLDED ("comm;outer;...;leaf COUNT" lines) as perf script text: COUNT
 * records of its stack each, in the layout flamebpf and perf write. The
 * periods differ from line to line: diff counts records, not periods. */
static void write_perf(const char *path, const char *folded)
{
	char stack[256], *frames[16], *save;
	unsigned long long count, t = 0, period = 1001001;
	FILE *f = fopen(path, "w");
	size_t n;

	assert_non_null(f);
	for (const char *l = folded; *l; l = strchr(l, '\n') + 1, period *= 3) {
		assert_int_equal(sscanf(l, "%255s %llu", stack, &count), 2);
		n = 0;
		for (char *s = strtok_r(stack, ";", &save); s && n < 16;
		     s = strtok_r(NULL, ";", &save))
			frames[n++] = s;
		for (unsigned long long i = 0; i < count; i++, t += 1001) {
			fprintf(f, "%s  4242/4242  [000]  100.%06llu: %10llu cpu-clock: \n",
				frames[0], t % 1000000, period);
			for (size_t k = n - 1; k > 0; k--)
				fprintf(f, "\t%16zx %s+0x%zx (/usr/bin/%s)\n", 0x401000 + 0x100 * k,
					frames[k], 4 * k, frames[0]);
			fputc('\n', f);
		}
	}
	assert_int_equal(fclose(f), 0);
}

/* The table of flamebpf diff ARGS... from its header on (the lines before
 * name the files), exit WANT; the caller frees it. */
static char *table_of(int want, const char *const args[])
{
	struct h_result r;
	const char *head;
	char *table;

	diff(&r, args);
	h_assert_status(&r, want);
	head = strstr(r.out, "   change ");
	if (!head)
		fail_msg("no table in:\n%s", r.out);
	table = strdup(head);
	assert_non_null(table);
	h_result_free(&r);
	return table;
}

/* Synthetic perf script: diffed alone and against folded, it gives the
 * table the same profiles give as folded files; against a chrome trace
 * (timed calls) it is a profile of another mode: exit 2. */
static void test_perf_script(void **state)
{
	const char *base = profile_file("base.folded", BASE);
	const char *grown = profile_file("grown.folded", GROWN);
	char base_perf[4096], grown_perf[4096], chrome[4096];
	char *want, *got;

	(void)state;
	snprintf(base_perf, sizeof(base_perf), "%s", h_path("base.perf"));
	snprintf(grown_perf, sizeof(grown_perf), "%s", h_path("grown.perf"));
	snprintf(chrome, sizeof(chrome), "%s", h_path("calls.json"));
	write_perf(base_perf, BASE);
	write_perf(grown_perf, GROWN);
	h_write_file(chrome,
		     "{\"traceEvents\":[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":2,"
		     "\"pid\":1,\"tid\":1}]}\n",
		     0644);
	want = table_of(1, H_ARGV(base, grown));
	assert_non_null(strstr(want, "REGRESSION  b\n"));
	got = table_of(1, H_ARGV(base_perf, grown_perf));
	assert_string_equal(got, want);
	free(got);
	got = table_of(1, H_ARGV(base, grown_perf));
	assert_string_equal(got, want);
	free(got);
	got = table_of(1, H_ARGV(base_perf, grown));
	assert_string_equal(got, want);
	free(got);
	free(want);
	expect_status(0, H_ARGV(grown_perf, grown));
	expect_no_verdict("cannot be compared", H_ARGV(base_perf, chrome));
	expect_no_verdict("cannot be compared", H_ARGV(chrome, base_perf));
}

/* flamebpf -F 999 -o P.folded -o P.perf -o P.json -- WORKLOAD SECONDS:
 * one sampled capture in three formats. */
static void capture3(const char *workload, const char *prefix, char out[3][4096])
{
	static const char *const ext[3] = { "folded", "perf", "json" };
	char name[256];
	struct h_folded f;

	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s.%s", prefix, ext[i]);
		snprintf(out[i], 4096, "%s", h_path(name));
	}
	h_run_folded(NULL, 30, out[0], &f,
		     H_ARGV(h_flamebpf(), "-F", "999", "-o", out[0], "-o", out[1], "-o", out[2],
			    "--", h_workload(workload), SECONDS));
	if (f.total < 200)
		fail_msg("'%s' has %llu samples: too few for the test", out[0], f.total);
	h_folded_free(&f);
}

/* Two files of one capture: every function's share the same. */
static void expect_same_profile(const char *a, const char *b)
{
	struct json_object *j = diff_json(0, H_ARGV("--top", "0", a, b));
	struct json_object *funcs = member(j, "functions");

	assert_true(json_object_array_length(funcs) > 5);
	for (size_t i = 0; i < json_object_array_length(funcs); i++) {
		struct json_object *fn = json_object_array_get_idx(funcs, i);

		if (json_object_get_double(member(fn, "change")) != 0)
			fail_msg("'%s' and '%s' of one capture differ: %s", a, b,
				 json_object_to_json_string(fn));
	}
	json_object_put(j);
}

/* Real captures written as perf script: the regression is found between
 * two, and between folded and perf script or a chrome trace; a capture's
 * perf script, chrome trace and folded files are the same profile (the
 * chrome trace's spans read back in samples). */
static void test_perf_script_captured(void **state)
{
	char base[3][4096], new[3][4096];
	struct h_result r;

	(void)state;
	require_bpf();
	capture3("pipeline", "cap-base", base);
	capture3("regressed/pipeline", "cap-new", new);
	diff(&r, H_ARGV(base[1], new[1]));
	expect_regression(&r, "perf script");
	h_result_free(&r);
	diff(&r, H_ARGV(base[0], new[1]));
	expect_regression(&r, "folded against perf script");
	h_result_free(&r);
	diff(&r, H_ARGV(base[1], new[2]));
	expect_regression(&r, "perf script against chrome");
	h_result_free(&r);
	expect_same_profile(base[1], base[0]);
	expect_same_profile(base[2], base[0]);
}

/* ---- the CI example ---- */

#define WORKFLOW  "examples/ci-perf-regression.yml"
#define WF_LINES  64
#define WF_TOKENS 24

/* The lines of TEXT's KEY: values (KEY "run:"), in order: the lines of
 * "KEY: |" blocks and, unless blocks_only, one-line values. Comments and
 * blank lines are left out; TEXT is cut into them. */
static size_t yaml_values(char *text, const char *key, bool blocks_only, char **out)
{
	size_t n = 0, key_indent = 0, klen = strlen(key);
	char *save, *s;
	bool in = false;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		size_t indent = strspn(l, " ");

		s = l + indent;
		if (in && *s && indent <= key_indent)
			in = false;
		if (in) {
			if (*s != '#' && n < WF_LINES)
				out[n++] = s;
			continue;
		}
		if (!strncmp(s, "- ", 2)) {
			s += 2;
			indent += 2;
		}
		if (strncmp(s, key, klen))
			continue;
		s += klen + strspn(s + klen, " ");
		if (!strcmp(s, "|") || !strcmp(s, "|-")) {
			in = true;
			key_indent = indent;
		} else if (*s && !blocks_only && n < WF_LINES) {
			out[n++] = s;
		}
	}
	return n;
}

struct wf_cmd {
	const char *argv[WF_TOKENS + 1];
	char store[WF_TOKENS][4096];
	char out[4096]; /* "> FILE": where stdout goes; "" for nowhere */
	size_t n;
};

static void wf_add(struct wf_cmd *c, const char *arg)
{
	if (c->n >= WF_TOKENS)
		fail_msg("too many words in a flamebpf line of " WORKFLOW);
	snprintf(c->store[c->n], sizeof(c->store[0]), "%s", arg);
	c->argv[c->n] = c->store[c->n];
	c->argv[++c->n] = NULL;
}

/* LINE as this test runs it, when it runs flamebpf: sudo dropped (the
 * tests run as root), file names in the temp dir, the base and new builds
 * of the benchmark played by pipeline and its regressed build. */
static bool wf_command(const char *line, struct wf_cmd *c)
{
	char buf[1024], *save, *tok;

	snprintf(buf, sizeof(buf), "%s", line);
	tok = strtok_r(buf, " \t", &save);
	if (tok && !strcmp(tok, "sudo"))
		tok = strtok_r(NULL, " \t", &save);
	if (!tok || strcmp(tok, "flamebpf"))
		return false;
	if (strpbrk(line, "'\"$|;&<`\\("))
		fail_msg("a flamebpf line this test cannot run as is: %s", line);
	memset(c, 0, sizeof(*c));
	wf_add(c, h_flamebpf());
	while ((tok = strtok_r(NULL, " \t", &save)) && *tok != '#') {
		if (!strcmp(tok, ">")) {
			tok = strtok_r(NULL, " \t", &save);
			if (!tok)
				fail_msg("'%s': '>' and no file", line);
			snprintf(c->out, sizeof(c->out), "%s", h_path(tok));
		} else if (!strcmp(tok, "./base/bench") || !strcmp(tok, "./new/bench")) {
			wf_add(c, h_workload(tok[2] == 'b' ? "pipeline" : "regressed/pipeline"));
			wf_add(c, SECONDS);
		} else if (strchr(tok, '/') || *tok == '>') {
			fail_msg("'%s' in '%s': not a file this test knows", tok, line);
		} else {
			wf_add(c, strchr(tok, '.') && *tok != '-' ? h_path(tok) : tok);
		}
	}
	return true;
}

/* Runs C: a capture exits 0; diff finds the regression (exit 1). */
static void wf_run(const struct wf_cmd *c, const char *line, size_t *captures, size_t *diffs)
{
	bool is_diff = c->n > 1 && !strcmp(c->argv[1], "diff");
	struct h_result r;

	assert_int_equal(h_run(&r, 30, c->argv), 0);
	if (r.status != (is_diff ? 1 : 0)) {
		h_dump(&r, line);
		fail_msg("'%s' exited %d", line, r.status);
	}
	if (*c->out)
		h_write_file(c->out, r.out, 0644);
	h_result_free(&r);
	*(is_diff ? diffs : captures) += 1;
}

/* Installing flamebpf: tools/deps.sh apt-gets, so it runs as root before
 * any make of flamebpf that does not. */
static void wf_check_install(char **lines, size_t n)
{
	bool deps_as_root = false;

	for (size_t i = 0; i < n; i++) {
		bool sudo = !strncmp(lines[i], "sudo ", 5);

		if (strstr(lines[i], "tools/deps.sh"))
			deps_as_root = deps_as_root || sudo;
		if (strstr(lines[i], "make -C flamebpf") && !sudo && !deps_as_root)
			fail_msg("'%s' runs tools/deps.sh (apt-get) without root", lines[i]);
	}
}

/* Every flamebpf line of the example workflow runs, in order, on real
 * captures of pipeline and its regressed build; the diff finds checksum;
 * the files the artifact keeps are all written. */
static void test_ci_workflow(void **state)
{
	char *yml = h_slurp(WORKFLOW), *paths = h_slurp(WORKFLOW), *md;
	char *lines[WF_LINES], *keep[WF_LINES];
	size_t n, nkeep, captures = 0, diffs = 0;
	static struct wf_cmd c;

	(void)state;
	require_bpf();
	assert_non_null(yml);
	assert_non_null(paths);
	n = yaml_values(yml, "run:", false, lines);
	wf_check_install(lines, n);
	for (size_t i = 0; i < n; i++)
		if (wf_command(lines[i], &c))
			wf_run(&c, lines[i], &captures, &diffs);
	if (captures != 2 || diffs != 1)
		fail_msg(WORKFLOW ": %zu captures and %zu diffs, expected 2 and 1", captures,
			 diffs);
	md = h_slurp(h_path("diff.md"));
	assert_non_null(md);
	assert_non_null(strstr(md, "| **REGRESSION** | `checksum` |"));
	/* what the workflow greps to tell a regression from a failure (exit 1 too) */
	if (strncmp(md, "### flamebpf diff: ", 19) || !isdigit((unsigned char)md[19]))
		fail_msg("diff.md does not start as '### flamebpf diff: N regression':\n%.300s",
			 md);
	free(md);
	nkeep = yaml_values(paths, "path:", true, keep);
	assert_true(nkeep >= 2);
	for (size_t i = 0; i < nkeep; i++)
		if (!h_exists(h_path(keep[i])))
			fail_msg(WORKFLOW " uploads '%s', which no step wrote", keep[i]);
	free(yml);
	free(paths);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_no_false_alarm, h_test_teardown),
		cmocka_unit_test_teardown(test_regression_sampled, h_test_teardown),
		cmocka_unit_test_teardown(test_html_page, h_test_teardown),
		cmocka_unit_test_teardown(test_regression_traced, h_test_teardown),
		cmocka_unit_test_teardown(test_bad_input, h_test_teardown),
		cmocka_unit_test_teardown(test_mixed_modes, h_test_teardown),
		cmocka_unit_test_teardown(test_cli_threshold, h_test_teardown),
		cmocka_unit_test_teardown(test_cli_absolute, h_test_teardown),
		cmocka_unit_test_teardown(test_cli_min_samples, h_test_teardown),
		cmocka_unit_test_teardown(test_cli_alpha, h_test_teardown),
		cmocka_unit_test_teardown(test_cli_top, h_test_teardown),
		cmocka_unit_test_teardown(test_cli_regex_format_output, h_test_teardown),
		cmocka_unit_test_teardown(test_cli_bad_values, h_test_teardown),
		cmocka_unit_test_teardown(test_perf_script, h_test_teardown),
		cmocka_unit_test_teardown(test_perf_script_captured, h_test_teardown),
		cmocka_unit_test_teardown(test_ci_workflow, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("diff", tests, h_group_setup, h_group_teardown);
}
