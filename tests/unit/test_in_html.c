// SPDX-License-Identifier: GPL-2.0
/* Unit tests of src/formats/in_html.c: an HTML report read back gives the
 * profile it was written from (its folded output byte for byte, with and
 * without ids, its events' times and durations, its unit and metadata), the
 * format is told from the content, and a page that is no report, or a
 * damaged one, fails with one line that names the file and what is wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/out_folded.h"
#include "formats/out_html.h"
#include "formats/reader.h"
#include "formats/sink.h"
#include "profile/profile.h"

#define MS 1000000ULL /* ns */

/* ---- profiles ---- */

static uint32_t frame(struct profile *p, const char *name, enum frame_kind kind)
{
	uint32_t id;

	assert_int_equal(profile__findnew_frame(p, name, kind == FRAME_KERNEL ? "[kernel]" : "app",
						kind, &id),
			 0);
	return id;
}

static void add(struct profile *p, const struct stack_owner *who, const uint32_t *frames,
		uint32_t n, uint64_t weight, uint64_t ts)
{
	struct profile_event ev = { .ts = ts, .dur = p && profile__unit(p) ? weight : 0 };

	assert_int_equal(profile__add_stack(p, who, frames, n, weight), 0);
	assert_int_equal(profile__add_event(p, who, frames, n, &ev), 0);
}

/* Samples of two processes, one without a pid, one that exec'd (a thread
 * of two names), user and kernel frames, a name that folded output must
 * clean. */
static struct profile *samples(void)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct stack_owner a = { 10, 10, "app", "app" }, b = { 10, 11, "app", "worker" },
			   c = { PROFILE_PID_UNKNOWN, 7, "sh", "sh" }, d = { 10, 10, "new", "new" };
	uint32_t m = frame(p, "main", FRAME_USER), w = frame(p, "a;b", FRAME_USER);
	uint32_t k = frame(p, "ksys_read", FRAME_KERNEL), r = frame(p, "read", FRAME_USER);
	uint32_t s1[] = { m, w }, s2[] = { m, r, k }, s3[] = { m };
	struct profile_meta meta = { .cmdline = "flamebpf -F 99",
				     .event = "cpu-clock",
				     .kernel = "6.1",
				     .host = "box",
				     .losses = "",
				     .freq = 99,
				     .ncpus = 2,
				     .secs = 1.5 };

	assert_int_equal(profile__set_meta(p, &meta), 0);
	add(p, &a, s1, 2, 1, 5000 * MS);
	add(p, &b, s2, 3, 1, 5010 * MS);
	add(p, &a, s1, 2, 1, 5020 * MS);
	add(p, &c, s3, 1, 1, 6400 * MS + 7);
	add(p, &d, s1, 2, 1, 6500 * MS);
	return p;
}

/* Traced calls, in ns: the mode and unit come back from the page, and the
 * calls' arguments and returns, past 2^53 too, a missing return too. */
static struct profile *calls(void)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct stack_owner a = { 10, 10, "app", "app" };
	uint32_t f = frame(p, "f", FRAME_USER), g = frame(p, "g", FRAME_USER);
	uint32_t s1[] = { f }, s2[] = { f, g };
	struct profile_meta meta = {
		.cmdline = "flamebpf -f f", .event = "", .kernel = "", .host = "", .losses = ""
	};

	struct profile_event ev[] = {
		{ .ts = 1000 * MS,
		  .dur = 30 * MS,
		  .args = { 1, 2, 3 },
		  .ret = 0xfffffffffffffffeULL },
		{ .ts = 1005 * MS,
		  .dur = 10 * MS,
		  .args = { 1ULL << 53, (1ULL << 53) + 1, 0 },
		  .flags = PROFILE_EVENT_UNFINISHED },
	};

	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_stack(p, &a, s1, 1, 30 * MS), 0);
	assert_int_equal(profile__add_event(p, &a, s1, 1, &ev[0]), 0);
	assert_int_equal(profile__add_stack(p, &a, s2, 2, 10 * MS), 0);
	assert_int_equal(profile__add_event(p, &a, s2, 2, &ev[1]), 0);
	return p;
}

/* ---- files ---- */

static void temp_path(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/flamebpf-test-in-html-%d-%s", P_tmpdir, (int)getpid(), name);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *page_of(const struct profile *p)
{
	struct write_opts o = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(html__write(p, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static char *folded_of(const struct profile *p, enum root_style root)
{
	struct write_opts o = { .root = root };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(folded__write(p, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The profile of a page, read from a file as render reads it. */
static int load(const char *page, struct profile **out, char *err)
{
	const struct reader_opts o = { .keep_events = true, .keep_ids = true };
	struct reader_stats st;
	enum in_format f = IN_FOLDED;
	char path[256];
	int ret;

	temp_path(path, sizeof(path), "page.html");
	put_file(path, page);
	ret = reader__load(path, &o, out, &f, &st, err);
	assert_int_equal(f, IN_HTML);
	unlink(path);
	return ret;
}

/* ---- round trips ---- */

static void round_trip(struct profile *p)
{
	char *page = page_of(p), err[READER_ERR_LEN] = "";
	struct profile *q = NULL;

	assert_int_equal(load(page, &q, err), 0);
	for (int root = ROOT_COMM; root <= ROOT_TID; root++) {
		char *want = folded_of(p, root), *got = folded_of(q, root);

		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	assert_int_equal(profile__unit(q), profile__unit(p));
	assert_int_equal(profile__nr_events(q), profile__nr_events(p));
	assert_string_equal(profile__meta(q)->cmdline, profile__meta(p)->cmdline);
	assert_string_equal(profile__meta(q)->host, profile__meta(p)->host);
	assert_int_equal(profile__meta(q)->freq, profile__meta(p)->freq);
	free(page);
	profile__free(q);
	profile__free(p);
}

static void test_samples_round_trip(void **state)
{
	(void)state;
	round_trip(samples());
}

static void test_calls_round_trip(void **state)
{
	(void)state;
	round_trip(calls());
}

/* Events come back in time order with their times, durations, arguments
 * and returns. */
static void test_events(void **state)
{
	struct profile *p = calls(), *q = NULL;
	char *page = page_of(p), err[READER_ERR_LEN] = "";

	(void)state;
	assert_int_equal(load(page, &q, err), 0);
	assert_int_equal(profile__nr_events(q), 2);
	assert_int_equal(profile__event(q, 0)->ts, 1000 * MS);
	assert_int_equal(profile__event(q, 0)->dur, 30 * MS);
	assert_int_equal(profile__event(q, 1)->ts, 1005 * MS);
	assert_int_equal(profile__stack(q, profile__event(q, 1)->stack)->nframes, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct profile_event *want = profile__event(p, i),
					   *got = profile__event(q, i);

		assert_memory_equal(got->args, want->args, sizeof(got->args));
		assert_int_equal(got->ret, want->ret);
		assert_int_equal(got->flags, want->flags);
	}
	free(page);
	profile__free(p);
	profile__free(q);
}

static void test_detect(void **state)
{
	enum in_format f = IN_FOLDED;

	(void)state;
	assert_int_equal(reader__detect("<!DOCTYPE html>\n<html>\n", 23, &f), 0);
	assert_int_equal(f, IN_HTML);
	f = IN_FOLDED;
	assert_int_equal(reader__detect("\n  <HTML lang=en>\n", 18, &f), 0);
	assert_int_equal(f, IN_HTML);
	assert_int_equal(reader__detect("<b>x</b>;main 3\n", 16, &f), 0);
	assert_int_equal(f, IN_FOLDED);
}

/* ---- damaged pages ---- */

/* The page with from replaced by to (once). */
static char *edited(const char *page, const char *from, const char *to)
{
	const char *at = strstr(page, from);
	char *out;

	if (!at)
		fail_msg("'%s' is not in the page", from);
	out = malloc(strlen(page) - strlen(from) + strlen(to) + 1);
	assert_non_null(out);
	sprintf(out, "%.*s%s%s", (int)(at - page), page, to, at + strlen(from));
	return out;
}

static void expect_error(const char *page, const char *why)
{
	char err[READER_ERR_LEN] = "";
	struct profile *q = NULL;
	int ret = load(page, &q, err);

	assert_int_equal(ret, -EINVAL);
	assert_null(q);
	if (!strstr(err, why) || !strstr(err, "page.html'") || strchr(err, '\n'))
		fail_msg("error '%s', not '%s'", err, why);
}

static void test_damaged(void **state)
{
	static const char *const cases[][3] = {
		{ "\"version\":1", "\"version\":9", "of version 9; this flamebpf reads 1" },
		{ "\"nodes\":[-1,", "\"nodes\":[0,", "bad report data: nodes row 0" },
		{ "\"stacks\":[", "\"stacks\":[99,0,1,1,", "bad report data: stacks row 0" },
		{ "\"stacks\":[", "\"stacks\":[0,", "the 'stacks' table is cut short" },
		{ "\"threads\":[", "\"threads\":[1,1,999,0,", "bad report data: threads row 0" },
		{ "\"strings\":[", "\"strings\":[7,", "bad report data: strings row 0" },
		{ "\"funcs\":[", "\"funcs\":[0,0,2,0,", "a process's name inside a stack" },
		{ "\"dt\":[", "\"dt\":[1,", "the events' 'dt' column is not" },
		{ "\"meta\":{", "\"meta\":{{", "not JSON" },
		{ "\"strings\"", "\"no-strings\"", "no 'strings' table" },
	};
	static const char *const call_cases[][3] = {
		{ "\"args\":[1,", "\"args\":[-1,", "events.args row 0: not an unsigned integer" },
		{ "\"args\":[1,", "\"args\":[\"0xz\",", "events.args row 0: not an unsigned" },
		{ "null]", "\"\"]", "events.args row 1: not an unsigned integer" },
		{ "\"args\":[1,", "\"args\":[", "the events' 'args' column is not 8 long" },
	};
	struct profile *p = samples(), *c = calls();
	char *page = page_of(p), *call_page = page_of(c);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *bad = edited(page, cases[i][0], cases[i][1]);

		expect_error(bad, cases[i][2]);
		free(bad);
	}
	for (size_t i = 0; i < sizeof(call_cases) / sizeof(call_cases[0]); i++) {
		char *bad = edited(call_page, call_cases[i][0], call_cases[i][1]);

		expect_error(bad, call_cases[i][2]);
		free(bad);
	}
	free(call_page);
	profile__free(c);
	/* the data cut short, with and without its end tag */
	*strstr(strstr(page, "\"stacks\""), ",") = '\0';
	expect_error(page, "the report's data is cut short (no end of its element)");
	strcat(page, "\n</script>\n");
	expect_error(page, "the report's data is cut short");
	free(page);
	profile__free(p);
}

/* A probe's hits (-f usdt:): instant events whose arguments, past 2^53
 * too, signed and strings too, come back as they went (events.hits); a
 * damaged one is named. */
static void test_hits(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES), *q = NULL;
	struct stack_owner a = { 10, 10, "app", "app" };
	uint32_t s1[] = { frame(p, "main", FRAME_USER), frame(p, "[work:tick]", FRAME_USER) };
	struct profile_meta meta = {
		.cmdline = "flamebpf -f usdt:", .event = "", .kernel = "", .host = "", .losses = ""
	};
	struct profile_event ev[] = {
		{ .ts = 1000 * MS, .dur = 1000, .args = { 7, 0, 1 }, .flags = PROFILE_EVENT_INSTANT },
		{ .ts = 1001 * MS,
		  .dur = 1000,
		  .args = { UINT64_MAX, (1ULL << 53) + 1, 0 },
		  .flags = PROFILE_EVENT_INSTANT },
		{ .ts = 1002 * MS,
		  .dur = 1000,
		  .args = { (uint64_t)-5, 0, 0 },
		  .flags = PROFILE_EVENT_INSTANT | PROFILE_EVENT_ARG_SIGNED(0) },
	};
	char *page, *bad, err[READER_ERR_LEN] = "";

	(void)state;
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_stack(p, &a, s1, 2, 3), 0);
	assert_int_equal(profile__set_event_str(p, &ev[2], 2, "GET </script>"), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(profile__add_event(p, &a, s1, 2, &ev[i]), 0);
	page = page_of(p);
	assert_non_null(strstr(page, "\"hits\":[7,0,1,\"0xffffffffffffffff\""));
	assert_non_null(strstr(page, ",-5,0,{\"s\":\"GET \\u003c/script\\u003e\"}]"));
	assert_int_equal(load(page, &q, err), 0);
	assert_int_equal(profile__nr_events(q), 3);
	for (size_t i = 0; i < 3; i++) {
		const struct profile_event *e = profile__event(q, i);

		assert_int_equal(e->flags, ev[i].flags);
		for (int k = 0; k < PROFILE_NARGS; k++)
			if (e->flags & PROFILE_EVENT_ARG_STR(k))
				assert_string_equal(profile__event_str(q, e, k),
						    profile__event_str(p, &ev[i], k));
			else
				assert_true(e->args[k] == ev[i].args[k]);
	}
	bad = edited(page, "\"hits\":[7,", "\"hits\":[true,");
	expect_error(bad, "events.hits row 0: not a number or {\"s\":string}");
	free(bad);
	bad = edited(page, "\"hits\":[7,", "\"hits\":[{\"t\":1},");
	expect_error(bad, "events.hits row 0: not a number or {\"s\":string}");
	free(bad);
	bad = edited(page, "\"hits\":[7,0,1,", "\"hits\":[7,0,");
	expect_error(bad, "the events' 'hits' column is not 9 long");
	free(bad);
	free(page);
	profile__free(p);
	profile__free(q);
}

static void test_not_a_report(void **state)
{
	(void)state;
	expect_error("<!DOCTYPE html>\n<html><body><script>var x;</script></body></html>\n",
		     "no flamebpf data in it (an HTML page, but not a flamebpf report)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_round_trip),
		cmocka_unit_test(test_calls_round_trip),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_hits),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_not_a_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
