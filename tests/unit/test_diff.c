// SPDX-License-Identifier: GPL-2.0
/* Unit tests of flamebpf diff: the statistics (src/profile/stats.c), the
 * comparison (src/profile/diff.c) on synthetic profiles with known changes, the
 * table writers (src/formats/out_diff.c: JSON read back by json-c), the
 * differential flame graph (src/formats/out_svg.c: xmllint, colours) and the exit
 * status of the subcommand (src/cli/cmd_diff.c) on files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cmd_diff.h"
#include "formats/out_diff.h"
#include "formats/out_svg.h"
#include "profile/diff.h"
#include "profile/profile.h"
#include "profile/stats.h"
#include "util.h"

/* ---- building profiles ---- */

static struct profile *new_profile(enum profile_unit unit)
{
	struct profile *p = profile__new(unit);

	assert_non_null(p);
	return p;
}

/* "main;a;b_[k]" -> frame ids (a "_[k]" suffix makes a kernel frame). */
static uint32_t path_ids(struct profile *p, const char *path, uint32_t *ids)
{
	char buf[256], *save, *tok;
	uint32_t n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		size_t len = strlen(tok);
		bool kernel = len > 4 && !strcmp(tok + len - 4, "_[k]");

		if (kernel)
			tok[len - 4] = '\0';
		assert_int_equal(profile__findnew_frame(p, tok, kernel ? "[kernel]" : "app",
							kernel ? FRAME_KERNEL : FRAME_USER,
							&ids[n++]),
				 0);
	}
	return n;
}

static const struct stack_owner who = { 1, 1, "app", "app" };

/* Sampling: weight samples on path. */
static void add(struct profile *p, const char *path, uint64_t weight)
{
	uint32_t ids[16], n = path_ids(p, path, ids);

	assert_int_equal(profile__add_stack(p, &who, ids, n, weight), 0);
}

/* Uprobe mode: a call of path's leaf lasting dur (all its own time), with
 * its event when events is set. */
static void call(struct profile *p, const char *path, uint64_t dur, bool events)
{
	struct profile_event ev = { .dur = dur };
	uint32_t ids[16], n = path_ids(p, path, ids);

	assert_int_equal(profile__add_stack_count(p, &who, ids, n, dur, 1), 0);
	if (events)
		assert_int_equal(profile__add_event(p, &who, ids, n, &ev), 0);
}

/* main;a wa, main;b wb */
static struct profile *two(uint64_t wa, uint64_t wb)
{
	struct profile *p = new_profile(UNIT_SAMPLES);

	add(p, "main;a", wa);
	add(p, "main;b", wb);
	return p;
}

static struct diff_opts defaults(void)
{
	return (struct diff_opts){ .threshold = 5, .alpha = 0.01, .min_samples = 20 };
}

static const struct diff_func *row(const struct diff_result *r, const char *name)
{
	for (size_t i = 0; i < r->nfuncs; i++)
		if (!strcmp(r->funcs[i].name, name))
			return &r->funcs[i];
	return NULL;
}

static void compare(const struct profile *base, const struct profile *new,
		    const struct diff_opts *o, struct diff_result *r)
{
	assert_int_equal(diff__compare(base, new, o, r), 0);
}

/* ---- statistics ---- */

static void test_stats(void **state)
{
	uint64_t a[] = { 5, 3, 1, 4, 2 }, b[] = { 10, 6, 8, 7, 9 }, c[] = { 7, 7, 7 };

	(void)state;
	assert_true(fabs(stats__norm_sf(0) - 0.5) < 1e-12);
	assert_true(fabs(stats__norm_sf(1.959964) - 0.025) < 1e-6);
	/* 50 of 100 against 70 of 100: z = 0.2 / sqrt(0.6 * 0.4 * 0.02) = 2.887 */
	assert_true(fabs(stats__prop_greater(50, 100, 70, 100) - 0.001946) < 2e-5);
	assert_true(stats__prop_greater(70, 100, 50, 100) > 0.99);
	assert_true(stats__prop_greater(0, 100, 0, 100) == 1);
	assert_true(stats__prop_greater(1, 0, 1, 10) == 1);
	/* 100 against 144: (44 - 1) / sqrt(244) = 2.753 */
	assert_true(fabs(stats__poisson_greater(100, 144) - 0.002954) < 2e-5);
	/* every b above every a: U = 25, z = (25 - 12.5 - 0.5) / sqrt(25 * 11 / 12) */
	assert_true(fabs(stats__mwu_greater(a, 5, b, 5) - 0.006093) < 2e-5);
	assert_true(stats__mwu_greater(b, 5, a, 5) > 0.99);
	assert_true(stats__mwu_greater(c, 3, c, 3) == 1); /* all tied */
	assert_true(stats__mwu_greater(a, 0, b, 5) == 1);
	assert_true(stats__mean_greater(1000, 100, 1000, 100) == 0.5);
	assert_true(stats__mean_greater(1000, 100, 2000, 100) < 1e-5);
}

/* ---- the comparison ---- */

/* --alloc: bytes in 4 KiB quanta, not each byte a sample. main;a makes
 * 40 KiB in 10 allocations, main;b wb bytes in one. */
static struct profile *memory(uint64_t wb, const char *event)
{
	struct profile *p = new_profile(UNIT_SAMPLES);
	struct profile_meta m = { .event = event, .period = 1 };
	uint32_t ids[16], n;

	m.alloc = strcmp(event, "bytes allocated") ? PROFILE_ALLOC_NONE : PROFILE_ALLOC_TOTAL;
	assert_int_equal(profile__set_meta(p, &m), 0);
	n = path_ids(p, "main;a", ids);
	assert_int_equal(profile__add_stack_count(p, &who, ids, n, 40960, 10), 0);
	n = path_ids(p, "main;b", ids);
	assert_int_equal(profile__add_stack_count(p, &who, ids, n, wb, 1), 0);
	return p;
}

static void test_memory(void **state)
{
	struct profile *base = memory(40960, "bytes allocated"),
		       *same = memory(40960, "bytes-allocated");
	struct profile *grown = memory(409600, "bytes-allocated"),
		       *tiny = memory(41000, "bytes-allocated");
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	assert_int_equal(diff__mode(base), DIFF_MEMORY);
	assert_int_equal(diff__mode(same), DIFF_MEMORY); /* perf script's name */
	compare(base, same, &o, &r);
	assert_int_equal(r.quantum, DIFF_MEMORY_QUANTUM);
	assert_int_equal(r.count[0], 20); /* 80 KiB in quanta */
	assert_int_equal(r.seen[0], 11);  /* allocations */
	assert_int_equal(r.nregressions, 0);
	assert_int_equal(row(&r, "b")->status, DIFF_FEW);
	diff__free(&r);
	/* 40 more bytes: a byte is no sample, nothing to test */
	compare(base, tiny, &o, &r);
	assert_int_equal(r.nregressions, 0);
	diff__free(&r);
	/* b's one allocation ten times larger: 50% of the bytes to 91% */
	o.min_samples = 5;
	compare(base, grown, &o, &r);
	assert_int_equal(r.nregressions, 1);
	assert_string_equal(r.funcs[0].name, "b");
	assert_string_equal(diff__status_name(DIFF_FEW, &r), "little memory");
	diff__free(&r);
	profile__free(base);
	profile__free(same);
	profile__free(grown);
	profile__free(tiny);
}

static void test_regression_first(void **state)
{
	struct profile *base = two(500, 500), *new = two(700, 300);
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	compare(base, new, &o, &r);
	assert_int_equal(r.nregressions, 1);
	assert_string_equal(r.funcs[0].name, "a");
	assert_int_equal(r.funcs[0].status, DIFF_REGRESSION);
	assert_true(fabs(r.funcs[0].change - 20) < 1e-9);
	assert_true(fabs(r.funcs[0].base.incl_pct - 50) < 1e-9);
	assert_true(fabs(r.funcs[0].new.incl_pct - 70) < 1e-9);
	assert_true(r.funcs[0].p < 1e-10);
	assert_int_equal(row(&r, "b")->status, DIFF_SHRANK);
	assert_int_equal(row(&r, "main")->status, DIFF_NOISE); /* 100% in both */
	assert_int_equal(r.ntested, 3);
	assert_int_equal(r.weight[0], 1000);
	assert_int_equal(r.count[1], 1000);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

static void test_identical(void **state)
{
	struct profile *base = two(600, 400), *new = two(600, 400);
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	compare(base, new, &o, &r);
	assert_int_equal(r.nregressions, 0);
	for (size_t i = 0; i < r.nfuncs; i++) {
		assert_int_equal(r.funcs[i].status, DIFF_NOISE);
		assert_true(r.funcs[i].change == 0);
	}
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

/* 3 points on 10,000 samples: significant, but under the threshold. */
static void test_below_threshold(void **state)
{
	struct profile *base = two(5000, 5000), *new = two(5300, 4700);
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	compare(base, new, &o, &r);
	assert_int_equal(r.nregressions, 0);
	assert_int_equal(row(&r, "a")->status, DIFF_GREW);
	assert_true(row(&r, "a")->p < 0.001);
	diff__free(&r);
	o.threshold = 2.5;
	compare(base, new, &o, &r);
	assert_int_equal(r.nregressions, 1);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

/* 40 points on 10 samples: not tested at the default minimum, and within
 * noise when tested. */
static void test_few_samples(void **state)
{
	struct profile *base = two(5, 5), *new = two(9, 1);
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	compare(base, new, &o, &r);
	assert_int_equal(r.nregressions, 0);
	assert_int_equal(r.ntested, 0);
	assert_int_equal(row(&r, "a")->status, DIFF_FEW);
	assert_true(row(&r, "a")->change > 39);
	diff__free(&r);
	o.min_samples = 0;
	compare(base, new, &o, &r);
	assert_int_equal(r.nregressions, 0);
	assert_int_equal(row(&r, "a")->status, DIFF_NOISE);
	assert_true(row(&r, "a")->p > 0.01 / 3);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

/* A function recurring in a stack counts that stack once. */
static void test_recursion_once(void **state)
{
	struct profile *base = new_profile(UNIT_SAMPLES), *new = new_profile(UNIT_SAMPLES);
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	add(base, "main;f;f;f", 100);
	add(base, "main;g", 100);
	add(new, "main;f;f", 150);
	add(new, "main;g", 50);
	compare(base, new, &o, &r);
	assert_int_equal(row(&r, "f")->base.incl, 100);
	assert_true(fabs(row(&r, "f")->base.incl_pct - 50) < 1e-9);
	assert_true(fabs(row(&r, "f")->new.self_pct - 75) < 1e-9);
	assert_string_equal(r.funcs[0].name, "f");
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

static void test_ignore_and_fail_on(void **state)
{
	struct profile *base = new_profile(UNIT_SAMPLES), *new = new_profile(UNIT_SAMPLES);
	struct diff_opts o = defaults();
	struct diff_result r;
	regex_t only_c, not_a;

	(void)state;
	add(base, "main;a", 300);
	add(base, "main;c", 300);
	add(base, "main;d", 400);
	add(new, "main;a", 400);
	add(new, "main;c", 400);
	add(new, "main;d", 200);
	assert_int_equal(regcomp(&only_c, "^c$", REG_EXTENDED | REG_NOSUB), 0);
	assert_int_equal(regcomp(&not_a, "^a", REG_EXTENDED | REG_NOSUB), 0);
	compare(base, new, &o, &r);
	assert_int_equal(r.nregressions, 2);
	diff__free(&r);
	o.fail_on = &only_c;
	compare(base, new, &o, &r);
	assert_int_equal(r.nregressions, 1);
	assert_string_equal(r.funcs[0].name, "c");
	assert_int_equal(row(&r, "a")->status, DIFF_GREW);
	assert_false(row(&r, "a")->may_fail);
	diff__free(&r);
	o.fail_on = NULL;
	o.ignore = &not_a;
	compare(base, new, &o, &r);
	assert_null(row(&r, "a"));
	assert_int_equal(r.nregressions, 1);
	assert_int_equal(r.nfuncs, 3); /* main, c, d */
	diff__free(&r);
	regfree(&only_c);
	regfree(&not_a);
	profile__free(base);
	profile__free(new);
}

/* Totals, not shares: b alone grows 60%, and a function new to the
 * profile grows without bound. */
static void test_absolute(void **state)
{
	struct profile *base = two(500, 500), *new = two(500, 800);
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	add(new, "main;c", 100);
	o.absolute = true;
	compare(base, new, &o, &r);
	assert_int_equal(r.nregressions, 3); /* b, c, and main (1000 -> 1400) */
	assert_string_equal(r.funcs[0].name, "c");
	assert_true(isinf(r.funcs[0].change));
	assert_true(fabs(row(&r, "b")->change - 60) < 1e-9);
	assert_int_equal(row(&r, "a")->status, DIFF_NOISE);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

static void test_kernel_names(void **state)
{
	struct profile *base = new_profile(UNIT_SAMPLES), *new = new_profile(UNIT_SAMPLES);
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	add(base, "main;read;vfs_read_[k]", 100);
	add(new, "main;read;vfs_read_[k]", 100);
	add(new, "main;read", 100);
	compare(base, new, &o, &r);
	assert_non_null(row(&r, "vfs_read_[k]"));
	assert_null(row(&r, "vfs_read"));
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

static void test_units_differ(void **state)
{
	struct profile *base = two(5, 5), *new = new_profile(UNIT_NANOSECONDS);
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	call(new, "main;a", 1000, false);
	assert_int_equal(diff__compare(base, new, &o, &r), -EINVAL);
	profile__free(base);
	profile__free(new);
}

/* Uprobe mode: n calls of f and of g, f's lasting f_ns (+ jitter). */
static struct profile *calls(uint64_t nf, uint64_t f_ns, uint64_t ng, bool events)
{
	struct profile *p = new_profile(UNIT_NANOSECONDS);

	for (uint64_t i = 0; i < nf; i++)
		call(p, "main;f", f_ns + i % 7 * 10, events);
	for (uint64_t i = 0; i < ng; i++)
		call(p, "main;g", 1000 + i % 5 * 10, events);
	return p;
}

static void expect_calls_verdict(struct profile *base, struct profile *new, size_t want)
{
	struct diff_opts o = defaults();
	struct diff_result r;

	compare(base, new, &o, &r);
	assert_int_equal(r.unit, UNIT_NANOSECONDS);
	assert_int_equal(r.nregressions, want);
	if (want)
		assert_string_equal(r.funcs[0].name, "f");
	assert_int_equal(row(&r, "f")->new.n, profile__total_count(new) - row(&r, "g")->new.n);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

static void test_calls_per_call(void **state)
{
	struct diff_opts o = defaults();
	struct diff_result r;
	struct profile *base = calls(200, 1000, 200, true), *new = calls(200, 3000, 200, true);

	(void)state;
	compare(base, new, &o, &r);
	assert_true(r.per_event);
	assert_non_null(strstr(r.test, "Mann-Whitney"));
	diff__free(&r);
	expect_calls_verdict(base, new, 1); /* slower calls */
	expect_calls_verdict(calls(200, 1000, 200, true), calls(200, 1000, 200, true), 0);
	expect_calls_verdict(calls(200, 1000, 200, true), calls(400, 1000, 200, true), 1);
	/* too few calls to tell */
	expect_calls_verdict(calls(10, 1000, 10, true), calls(10, 3000, 10, true), 0);
}

static void test_calls_aggregated(void **state)
{
	struct diff_opts o = defaults();
	struct diff_result r;
	struct profile *base = calls(200, 1000, 200, false), *new = calls(200, 3000, 200, false);

	(void)state;
	compare(base, new, &o, &r);
	assert_false(r.per_event);
	assert_non_null(strstr(r.test, "coefficient of variation"));
	diff__free(&r);
	expect_calls_verdict(base, new, 1);
	expect_calls_verdict(calls(200, 1000, 200, false), calls(200, 1000, 200, false), 0);
}

/* ---- the table ---- */

static char *table(const struct diff_result *r, const struct diff_opts *o, enum diff_format fmt,
		   size_t top)
{
	struct diff_report rep = { r, o, "base.folded", "new|odd`.folded", top };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(diff_out__write(fmt, &rep, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The header names what was counted: a counted event's events, a memory
 * profile's bytes and allocations. */
static void test_units_named(void **state)
{
	struct profile *base = two(600, 400), *new = two(600, 400);
	struct profile *mb = memory(40960, "bytes-allocated"),
		       *mn = memory(40960, "bytes-allocated");
	struct profile_meta m = { .event = "page-faults", .period = 1 };
	struct diff_opts o = defaults();
	struct diff_result r;
	char *text;

	(void)state;
	assert_int_equal(profile__set_meta(base, &m), 0);
	compare(base, new, &o, &r);
	text = table(&r, &o, DIFF_TEXT, 0);
	assert_non_null(strstr(text, "base.folded: 1,000 page-faults\n"));
	free(text);
	diff__free(&r);
	compare(mb, mn, &o, &r);
	text = table(&r, &o, DIFF_TEXT, 0);
	assert_non_null(strstr(text, "base.folded: 81,920 bytes in 11 allocations\n"));
	assert_non_null(strstr(text, "quanta of 4096 bytes"));
	free(text);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
	profile__free(mb);
	profile__free(mn);
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

static void test_json(void **state)
{
	struct profile *base = two(500, 500), *new = two(700, 300);
	struct diff_opts o = defaults();
	struct json_object *root, *funcs, *first;
	struct diff_result r;
	char *text;

	(void)state;
	add(new, "main;we\"ird\x01\xff", 30);
	compare(base, new, &o, &r);
	text = table(&r, &o, DIFF_JSON, 0);
	root = json_tokener_parse(text);
	if (!root)
		fail_msg("not JSON:\n%s", text);
	assert_int_equal(json_object_get_int(member(root, "regressions")), 1);
	assert_int_equal(json_object_get_int(member(root, "tested")), 4);
	assert_string_equal(json_object_get_string(member(member(root, "new"), "file")),
			    "new|odd`.folded");
	funcs = member(root, "functions");
	assert_int_equal(json_object_array_length(funcs), r.nfuncs);
	first = json_object_array_get_idx(funcs, 0);
	assert_string_equal(json_object_get_string(member(first, "name")), "a");
	assert_string_equal(json_object_get_string(member(first, "verdict")), "regression");
	assert_true(fabs(json_object_get_double(member(first, "change")) - 17.96) < 0.01);
	assert_int_equal(json_object_get_int(member(member(first, "base"), "samples")), 500);
	assert_non_null(strstr(text, "we\\\"ird\\u0001\xef\xbf\xbd"));
	json_object_put(root);
	free(text);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

static void test_text_and_markdown(void **state)
{
	struct profile *base = two(500, 500), *new = two(700, 300);
	struct diff_opts o = defaults();
	struct diff_result r;
	char *text;

	(void)state;
	add(base, "main;x|y", 100);
	add(new, "main;x|y", 100);
	compare(base, new, &o, &r);
	text = table(&r, &o, DIFF_TEXT, 2);
	assert_non_null(strstr(text, "+18.2 pt       45.5%       63.6%"));
	assert_non_null(strstr(text, "REGRESSION  a\n"));
	assert_non_null(strstr(text, "(2 of 4 functions shown; --top 0 shows all)"));
	assert_non_null(strstr(text, "\n1 regression: a (+18.2 pt)\n"));
	free(text);
	text = table(&r, &o, DIFF_MARKDOWN, 0);
	assert_true(!strncmp(text, "### flamebpf diff: 1 regression\n", 32));
	assert_non_null(strstr(text, "| **REGRESSION** | `a` |\n"));
	assert_non_null(strstr(text, "`x\\|y`"));
	assert_non_null(strstr(text, "`new\\|odd'.folded`"));
	free(text);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

/* ---- the differential flame graph ---- */

static void expect_wellformed(const char *svg)
{
	char path[] = "/tmp/test_diff.XXXXXX.svg", cmd[128];
	int fd = mkstemps(path, 4);

	if (access("/usr/bin/xmllint", X_OK))
		fail_msg("xmllint is not installed: apt-get install libxml2-utils");
	assert_true(fd >= 0);
	assert_int_equal(write(fd, svg, strlen(svg)), (ssize_t)strlen(svg));
	close(fd);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

struct rgb {
	unsigned int r, g, b;
};

/* The fill of the one frame whose title starts with "name (". */
static struct rgb fill_of(const char *svg, const char *name, char *title, size_t len)
{
	char want[64];
	const char *at, *rect;
	struct rgb c;

	snprintf(want, sizeof(want), "<title>%s (", name);
	at = strstr(svg, want);
	if (!at || strstr(at + 1, want))
		fail_msg("expected one frame '%s'", name);
	at = strchr(at, '>') + 1;
	snprintf(title, len, "%.*s", (int)(strchr(at, '<') - at), at);
	rect = strstr(at, "fill=\"rgb(");
	assert_non_null(rect);
	assert_int_equal(sscanf(rect, "fill=\"rgb(%u,%u,%u)\"", &c.r, &c.g, &c.b), 3);
	return c;
}

static char *draw_diff(const struct profile *base, const struct profile *new)
{
	struct write_opts wo = { .root = ROOT_COMM };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(svg__write_diff(base, new, &wo, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_svg_colours(void **state)
{
	struct profile *base = two(500, 500), *new = two(600, 300);
	char *svg, title[256];
	struct rgb a, b, c, m;

	(void)state;
	add(base, "main;b;deep", 100);
	add(new, "main;b;deep", 100);
	add(new, "main;c", 100);
	svg = draw_diff(base, new);
	expect_wellformed(svg);
	a = fill_of(svg, "a", title, sizeof(title));
	assert_true(a.r > a.g && a.r > a.b && a.g == a.b); /* grew: red */
	assert_string_equal(title,
			    "a (base 500 samples 45.45%, new 600 samples 54.55%, +9.09 points)");
	b = fill_of(svg, "b", title, sizeof(title));
	assert_true(b.b > b.r && b.r == b.g); /* shrank: blue */
	c = fill_of(svg, "c", title, sizeof(title));
	assert_true(c.r == 255 && c.g < 50); /* not in the base: full red */
	assert_string_equal(title, "c (base: none, new 100 samples 9.09%, +9.09 points)");
	m = fill_of(svg, "main", title, sizeof(title));
	assert_true(m.r == m.g && m.g == m.b); /* unchanged: grey */
	/* deep: 9.09% in both */
	m = fill_of(svg, "deep", title, sizeof(title));
	assert_true(m.r == m.g && m.g == m.b);
	assert_non_null(strstr(svg, "Differential Flame Graph"));
	free(svg);
	profile__free(base);
	profile__free(new);
}

/* The shade follows the size of the change: the largest is the deepest. */
static void test_svg_saturation(void **state)
{
	struct profile *base = new_profile(UNIT_SAMPLES), *new = new_profile(UNIT_SAMPLES);
	char *svg, title[256];
	struct rgb big, small;

	(void)state;
	add(base, "main;big", 300);
	add(base, "main;small", 300);
	add(base, "main;rest", 400);
	add(new, "main;big", 500);
	add(new, "main;small", 330);
	add(new, "main;rest", 170);
	svg = draw_diff(base, new);
	big = fill_of(svg, "big", title, sizeof(title));
	small = fill_of(svg, "small", title, sizeof(title));
	assert_true(big.g < small.g);
	assert_true(small.r > small.g);
	free(svg);
	profile__free(base);
	profile__free(new);
}

/* ---- the subcommand ---- */

static char *temp_with(const char *text, const char *suffix)
{
	char *path = malloc(64);
	int fd;

	assert_non_null(path);
	snprintf(path, 64, "/tmp/test_diff.XXXXXX%s", suffix);
	fd = mkstemps(path, strlen(suffix));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* diff__main with standard output and error to /dev/null. */
static int run_diff(const char *a1, const char *a2, const char *a3, const char *a4)
{
	char *argv[] = { "diff", (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL };
	int argc = 1, out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY), ret;

	while (argv[argc])
		argc++;
	fflush(stdout);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	ret = diff__main(argc, argv);
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(out);
	close(err);
	close(null);
	return ret;
}

static const char chrome_trace[] =
	"{\"traceEvents\":[{\"name\":\"f\",\"ph\":\"X\",\"ts\":1,\"dur\":5,\"pid\":1,"
	"\"tid\":1}]}\n";

static void test_exit_status(void **state)
{
	char *base = temp_with("app;main;a 500\napp;main;b 500\n", ".folded");
	char *same = temp_with("app;main;a 510\napp;main;b 490\n", ".folded");
	char *worse = temp_with("app;main;a 700\napp;main;b 300\n", ".folded");
	char *empty = temp_with("", ".folded"), *garbage = temp_with("\x7f"
								     "ELF\x01\x02",
								     ".bin");
	char *chrome = temp_with(chrome_trace, ".json"), svg[] = "/tmp/test_diff.XXXXXX.svg";

	(void)state;
	close(mkstemps(svg, 4));
	assert_int_equal(run_diff(base, same, NULL, NULL), 0);
	assert_int_equal(run_diff(base, worse, NULL, NULL), 1);
	assert_int_equal(run_diff("--fail-on=^b$", base, worse, NULL), 0);
	assert_int_equal(run_diff("--ignore=^a$", base, worse, NULL), 0);
	assert_int_equal(run_diff("--threshold", "25", base, worse), 0);
	assert_int_equal(run_diff("--format=json", "-o", svg, base), 2); /* one file */
	assert_int_equal(run_diff("-o", svg, base, worse), 1);
	assert_true(u_self_exe() && access(svg, R_OK) == 0);
	/* a profile that cannot be read, or holds none: a runtime failure, as in render */
	assert_int_equal(run_diff(base, "/nonexistent/x.folded", NULL, NULL), 1);
	assert_int_equal(run_diff(empty, base, NULL, NULL), 1);
	assert_int_equal(run_diff(base, empty, NULL, NULL), 1);
	assert_int_equal(run_diff(base, garbage, NULL, NULL), 1);
	assert_int_equal(run_diff(base, chrome, NULL, NULL), 2); /* samples vs calls */
	assert_int_equal(run_diff("--threshold=x", base, worse, NULL), 2);
	assert_int_equal(run_diff("--fail-on=(", base, worse, NULL), 2);
	assert_int_equal(run_diff("-o", "table.md", base, worse), 2);
	assert_int_equal(run_diff("--bogus", base, worse, NULL), 2);
	assert_int_equal(run_diff("--help", NULL, NULL, NULL), 0);
	for (char **p = (char *[]){ base, same, worse, empty, garbage, chrome, svg, NULL }; *p; p++)
		unlink(*p);
	free(base);
	free(same);
	free(worse);
	free(empty);
	free(garbage);
	free(chrome);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_regression_first),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_units_named),
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_below_threshold),
		cmocka_unit_test(test_few_samples),
		cmocka_unit_test(test_recursion_once),
		cmocka_unit_test(test_ignore_and_fail_on),
		cmocka_unit_test(test_absolute),
		cmocka_unit_test(test_kernel_names),
		cmocka_unit_test(test_units_differ),
		cmocka_unit_test(test_calls_per_call),
		cmocka_unit_test(test_calls_aggregated),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text_and_markdown),
		cmocka_unit_test(test_svg_colours),
		cmocka_unit_test(test_svg_saturation),
		cmocka_unit_test(test_exit_status),
	};

	return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
