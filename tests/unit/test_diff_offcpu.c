// SPDX-License-Identifier: GPL-2.0
/* Unit tests of flamebpf diff on time off the CPU (--off-cpu) and wall time
 * (--wall): the mode of a profile and the refusal to mix two, the quantum
 * that counts time without its blocks, the per-block test where events
 * give each block, and the table's words (src/profile/diff.c,
 * src/profile/diff_mode.c, src/formats/out_diff.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "formats/out_diff.h"
#include "profile/diff.h"
#include "profile/profile.h"

#define MS 1000000ULL

static const struct stack_owner who = { 1, 1, "app", "app" };

/* An empty profile of time off the CPU (event PROFILE_EVENT_OFFCPU or
 * PROFILE_EVENT_WALL). */
static struct profile *timed(const char *event)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct profile_meta m = { .cmdline = "", .event = event, .kernel = "", .losses = "" };

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	return p;
}

static uint32_t path_ids(struct profile *p, const char *path, uint32_t *ids)
{
	char buf[256], *save, *tok;
	uint32_t n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
		assert_int_equal(profile__findnew_frame(p, tok, "", FRAME_USER, &ids[n++]), 0);
	return n;
}

/* A block (or a sample) of path lasting ns; an event too when events. */
static void block(struct profile *p, const char *path, uint64_t ns, bool events)
{
	struct profile_event ev = { .dur = ns };
	uint32_t ids[16], n = path_ids(p, path, ids);

	assert_int_equal(profile__add_stack_count(p, &who, ids, n, ns, events), 0);
	if (events)
		assert_int_equal(profile__add_event(p, &who, ids, n, &ev), 0);
}

/* offcpu's shape, ROUNDS rounds: wait_a 20 ms, wait_b B ms, wait_c 15 ms,
 * the helper's read 40 ms; each block a little longer or shorter. */
static struct profile *rounds(int n, uint64_t b_ms, bool events)
{
	struct profile *p = timed(PROFILE_EVENT_OFFCPU);

	for (int i = 0; i < n; i++) {
		uint64_t jitter = (uint64_t)(i % 5) * 20000;

		block(p, "main;wait_a;[sleeping]", 20 * MS + jitter, events);
		block(p, "main;wait_b;[sleeping]", b_ms * MS + jitter, events);
		block(p, "main;wait_c;[sleeping]", 15 * MS + jitter, events);
		block(p, "helper;read;[sleeping]", 40 * MS + jitter, events);
	}
	return p;
}

static struct diff_opts defaults(void)
{
	return (struct diff_opts){ .threshold = 5, .alpha = 0.001, .min_samples = 20 };
}

static const struct diff_func *row(const struct diff_result *r, const char *name)
{
	for (size_t i = 0; i < r->nfuncs; i++)
		if (!strcmp(r->funcs[i].name, name))
			return &r->funcs[i];
	fail_msg("no row '%s'", name);
	return NULL;
}

/* ---- modes ---- */

static void test_modes(void **state)
{
	struct profile *samples = profile__new(UNIT_SAMPLES),
		       *calls = profile__new(UNIT_NANOSECONDS);
	struct profile *off = timed(PROFILE_EVENT_OFFCPU), *wall = timed(PROFILE_EVENT_WALL);
	struct profile *const all[] = { samples, calls, off, wall };
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	assert_int_equal(diff__mode(samples), DIFF_SAMPLES);
	assert_int_equal(diff__mode(calls), DIFF_CALLS);
	assert_int_equal(diff__mode(off), DIFF_OFFCPU);
	assert_int_equal(diff__mode(wall), DIFF_WALL);
	assert_string_equal(diff__mode_name(DIFF_OFFCPU), "an off-CPU profile (time off the CPU)");
	for (size_t i = 0; i < 4; i++) {
		block(all[i], "main;a;[sleeping]", 5, false);
		for (size_t j = 0; j < 4; j++)
			if (i != j)
				assert_int_equal(diff__compare(all[i], all[j], &o, &r), -EINVAL);
	}
	for (size_t i = 0; i < 4; i++)
		profile__free(all[i]);
}

/* 1 ms; --wall's sampling period when longer (99 Hz), from the weights of
 * its stateless stacks or from the frequency the profile gives. */
static void test_quantum(void **state)
{
	struct profile *off = rounds(2, 60, false), *w99 = timed(PROFILE_EVENT_WALL);
	struct profile *w999 = timed(PROFILE_EVENT_WALL);
	struct profile_meta m = *profile__meta(w999);

	(void)state;
	assert_int_equal(diff__quantum(off, off), MS);
	block(w99, "main;compute", 3 * 10101010, false);
	block(w99, "main;spin", 2 * 10101010, false);
	block(w99, "main;wait;[sleeping]", 20 * MS + 17, false);
	assert_int_equal(diff__quantum(w99, w99), 10101010);
	block(w999, "main;compute", 1001001, false);
	assert_int_equal(diff__quantum(w999, w99), 10101010);
	m.freq = 99;
	assert_int_equal(profile__set_meta(w999, &m), 0);
	assert_int_equal(diff__quantum(w999, w999), 10101010);
	profile__free(off);
	profile__free(w99);
	profile__free(w999);
}

/* ---- the tests ---- */

/* A regression is found when wait_b's blocks last 120 ms instead of 60,
 * per block or in quanta, wait_b first; never between two profiles of one
 * build. */
static void expect_verdict(bool events, uint64_t b_ms, size_t want)
{
	struct profile *base = rounds(25, 60, events), *new = rounds(25, b_ms, events);
	struct diff_opts o = defaults();
	struct diff_result r;

	assert_int_equal(diff__compare(base, new, &o, &r), 0);
	assert_int_equal(r.mode, DIFF_OFFCPU);
	assert_int_equal(r.per_event, events);
	assert_int_equal(r.quantum, events ? 0 : MS);
	assert_non_null(strstr(r.test, events ? "Mann-Whitney" : "quanta"));
	assert_int_equal(r.nregressions, want);
	if (want)
		assert_string_equal(r.funcs[0].name, "wait_b");
	/* blocks holding it, or its time in quanta */
	assert_int_equal(row(&r, "wait_b")->base.n, events ? 25 : 25 * 60 + 1);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
}

static void test_per_block(void **state)
{
	(void)state;
	expect_verdict(true, 60, 0);
	expect_verdict(true, 120, 1);
}

static void test_quanta(void **state)
{
	(void)state;
	expect_verdict(false, 60, 0);
	/* main's share grows with it, from 70% to 79%: by its time, a regression too */
	expect_verdict(false, 120, 2);
}

/* Few blocks cannot tell, however much longer; a sample's duration is its
 * period and is not compared, only counted. */
static void test_few_blocks_and_samples(void **state)
{
	struct profile *base = rounds(5, 60, true), *new = rounds(5, 120, true);
	struct profile *wb = timed(PROFILE_EVENT_WALL), *wn = timed(PROFILE_EVENT_WALL);
	struct diff_opts o = defaults();
	struct diff_result r;

	(void)state;
	assert_int_equal(diff__compare(base, new, &o, &r), 0);
	assert_int_equal(r.nregressions, 0);
	assert_string_equal(diff__status_name(row(&r, "wait_b")->status, &r), "few blocks");
	diff__free(&r);
	for (int i = 0; i < 100; i++) {
		block(wb, "main;compute", 1000000 + i, true);
		block(wn, "main;compute", 1000000 - i, true);
		block(wb, "main;wait;[sleeping]", 20 * MS, true);
		block(wn, "main;wait;[sleeping]", 20 * MS, true);
	}
	assert_int_equal(diff__compare(wb, wn, &o, &r), 0);
	assert_int_equal(r.mode, DIFF_WALL);
	assert_true(row(&r, "compute")->p > 0.1);
	assert_string_equal(diff__obs_name(&r), "blocks and samples");
	diff__free(&r);
	profile__free(base);
	profile__free(new);
	profile__free(wb);
	profile__free(wn);
}

/* ---- the table ---- */

static char *table(const struct diff_result *r, enum diff_format fmt)
{
	struct diff_opts o = defaults();
	struct diff_report rep = { r, &o, "base.json", "new.json", 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(diff_out__write(fmt, &rep, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

/* Time with its unit and the blocks where known; never calls, nor samples
 * for ns. */
static void test_labels(void **state)
{
	struct profile *base = rounds(25, 60, true), *new = rounds(25, 120, true);
	struct profile *fb = rounds(25, 60, false);
	struct diff_opts o = defaults();
	struct json_object *root;
	struct diff_result r;
	char *text;

	(void)state;
	assert_int_equal(diff__compare(base, new, &o, &r), 0);
	text = table(&r, DIFF_TEXT);
	assert_non_null(strstr(text, "base  base.json: 3.38 s off the CPU in 100 blocks\n"));
	assert_non_null(strstr(text, "fewer than 20 blocks in both"));
	assert_null(strstr(text, "calls"));
	assert_null(strstr(text, "samples"));
	free(text);
	text = table(&r, DIFF_MARKDOWN);
	assert_non_null(strstr(text, "3.38 s off the CPU in 100 blocks"));
	free(text);
	text = table(&r, DIFF_JSON);
	root = json_tokener_parse(text);
	assert_non_null(root);
	assert_string_equal(json_object_get_string(member(root, "mode")), "off-cpu");
	assert_int_equal(json_object_get_int(member(member(root, "base"), "blocks")), 100);
	assert_int_equal(json_object_get_int(member(member(root, "base"), "seen")), 100);
	json_object_put(root);
	free(text);
	diff__free(&r);
	assert_int_equal(diff__compare(fb, new, &o, &r), 0);
	text = table(&r, DIFF_TEXT);
	assert_non_null(strstr(text, "base  base.json: 3.38 s off the CPU\n"));
	assert_non_null(strstr(text, "fewer than 20 quanta of 1.00 ms in both"));
	free(text);
	text = table(&r, DIFF_JSON);
	assert_non_null(strstr(text, "\"quantum_ns\":1000000,"));
	assert_non_null(strstr(text, "\"seen\":null"));
	free(text);
	diff__free(&r);
	profile__free(base);
	profile__free(new);
	profile__free(fb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_quantum),
		cmocka_unit_test(test_per_block),
		cmocka_unit_test(test_quanta),
		cmocka_unit_test(test_few_blocks_and_samples),
		cmocka_unit_test(test_labels),
	};

	return cmocka_run_group_tests_name("diff_offcpu", tests, NULL, NULL);
}
