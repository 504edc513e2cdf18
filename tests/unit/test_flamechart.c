// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "formats/out_folded.h"

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

static void add(struct profile *p, uint32_t tid, const char *const *names, uint32_t n, uint64_t ts,
		uint64_t dur)
{
	struct stack_owner who = { 7, tid, "app", "app" };
	struct profile_event ev = { .ts = ts, .dur = dur };
	uint32_t frames[8];

	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(profile__findnew_frame(p, names[i], "app", FRAME_USER, &frames[i]),
				 0);
	assert_int_equal(profile__add_event(p, &who, frames, n, &ev), 0);
}

static char *render(const struct profile *p, enum root_style root)
{
	struct write_opts o = { root };
	struct out out = {};

	out.f = open_memstream(&out.buf, &out.len);
	assert_non_null(out.f);
	assert_int_equal(folded__write_flamechart(p, &o, out.f), 0);
	fclose(out.f);
	return out.buf;
}

static void expect_chart(const struct profile *p, enum root_style root, const char *want)
{
	char *text = render(p, root);

	assert_string_equal(text, want);
	free(text);
}

/* main [0,100): a [10,40) with b [20,30) inside, then a again [50,60). Events
 * arrive in completion order, as the tracer sends them. */
static void test_nested_segments(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	const char *m[] = { "main" }, *ma[] = { "main", "a" }, *mab[] = { "main", "a", "b" };

	(void)state;
	add(p, 7, mab, 3, 20, 10);
	add(p, 7, ma, 2, 10, 30);
	add(p, 7, ma, 2, 50, 10);
	add(p, 7, m, 1, 0, 100);
	expect_chart(p, ROOT_COMM,
		     "app;main 10\n"
		     "app;main;a 10\n"
		     "app;main;a;b 10\n"
		     "app;main;a 10\n"
		     "app;main 10\n"
		     "app;main;a 10\n"
		     "app;main 40\n");
	profile__free(p);
}

/* Threads one after the other, each in time order; no merging. */
static void test_threads_and_repeats(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	const char *f[] = { "f" };

	(void)state;
	add(p, 9, f, 1, 5, 3);
	add(p, 8, f, 1, 100, 2);
	add(p, 8, f, 1, 0, 1);
	add(p, 9, f, 1, 1, 2);
	expect_chart(p, ROOT_TID,
		     "app-7/8;f 1\n"
		     "app-7/8;f 2\n"
		     "app-7/9;f 2\n"
		     "app-7/9;f 3\n");
	profile__free(p);
}

/* A child starting with its parent: the parent has no segment before it. */
static void test_same_start(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	const char *a[] = { "a" }, *ab[] = { "a", "b" };

	(void)state;
	add(p, 1, ab, 2, 0, 4);
	add(p, 1, a, 1, 0, 6);
	expect_chart(p, ROOT_COMM, "app;a;b 4\napp;a 2\n");
	profile__free(p);
}

static void test_no_events(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct write_opts o = { ROOT_COMM };

	(void)state;
	assert_int_equal(folded__write_flamechart(p, &o, stdout), -ENODATA);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_segments),
		cmocka_unit_test(test_threads_and_repeats),
		cmocka_unit_test(test_same_start),
		cmocka_unit_test(test_no_events),
	};

	return cmocka_run_group_tests_name("flamechart", tests, NULL, NULL);
}
