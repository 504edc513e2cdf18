// SPDX-License-Identifier: GPL-2.0
/*
 * -f and C++ exceptions: the calls an exception leaves end when it is
 * caught, at libstdc++'s catch probe. throw_timing (g++ -O2): K times,
 * catcher() calls middle() calls thrower(), which sleeps THROW_MS and
 * throws; catcher() catches and sleeps CATCH_MS before it returns, with no
 * traced call in between. Inferred from the stack pointer at the next
 * traced event (catcher's return), thrower and middle would last
 * THROW_MS + CATCH_MS; ended at the catch, THROW_MS.
 */
#include "harness.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K	 3
#define THROW_MS 50
#define CATCH_MS 100
#define MS	 1000.0 /* Chrome's microseconds */
/* a loaded machine wakes a sleeper late by a few ms; the other way of
 * ending the calls is CATCH_MS off */
#define SLACK_MS 30

#define FUNCS "^(thrower|middle|catcher)\\("

struct calls {
	size_t n;
	double start[K], dur[K];
};

/* The calls of thrower, middle, catcher (and libstdc++'s
 * __cxa_begin_catch) in a Chrome trace, in order. */
struct trace {
	struct calls thrower, middle, catcher, begin_catch;
};

static struct calls *calls_of(struct trace *t, const char *name)
{
	if (!strncmp(name, "thrower(", 8))
		return &t->thrower;
	if (!strncmp(name, "middle(", 7))
		return &t->middle;
	if (!strcmp(name, "__cxa_begin_catch"))
		return &t->begin_catch;
	return strncmp(name, "catcher(", 8) ? NULL : &t->catcher;
}

static double num(json_object *e, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(e, key, &v))
		fail_msg("an event without \"%s\"", key);
	return json_object_get_double(v);
}

static void load_trace(const char *path, struct trace *t)
{
	json_object *doc = json_object_from_file(path), *evs, *v;

	memset(t, 0, sizeof(*t));
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "traceEvents", &evs));
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		json_object *e = json_object_array_get_idx(evs, i);
		struct calls *c;

		if (!json_object_object_get_ex(e, "ph", &v) ||
		    strcmp(json_object_get_string(v), "X"))
			continue;
		assert_true(json_object_object_get_ex(e, "name", &v));
		c = calls_of(t, json_object_get_string(v));
		if (!c)
			fail_msg("a call of '%s', not traced", json_object_get_string(v));
		if (c->n == K)
			fail_msg("more than %d calls of '%s'", K, json_object_get_string(v));
		c->start[c->n] = num(e, "ts");
		c->dur[c->n++] = num(e, "dur");
	}
	json_object_put(doc);
}

/* Runs workload under flamebpf -f FUNCS (and -f more, if not NULL) into a
 * Chrome trace at out, with env (if not NULL) set to 1 in its environment. */
static void run_with(const char *workload, const char *more, const char *out, const char *env,
		     struct trace *t, struct h_result *r)
{
	const char *argv[16] = { h_flamebpf(), "-f", "throw_timing:" FUNCS, "--format", "chrome",
				 "-o",	       out };
	size_t n = 7;
	char k[16], throw_ms[16], catch_ms[16], caught[32];

	snprintf(k, sizeof(k), "%d", K);
	snprintf(throw_ms, sizeof(throw_ms), "%d", THROW_MS);
	snprintf(catch_ms, sizeof(catch_ms), "%d", CATCH_MS);
	snprintf(caught, sizeof(caught), "caught %d", K);
	if (env)
		assert_int_equal(setenv(env, "1", 1), 0);
	if (more) {
		argv[n++] = "-f";
		argv[n++] = more;
	}
	memcpy(&argv[n], H_ARGV("--", workload, k, throw_ms, catch_ms), 6 * sizeof(*argv));
	assert_int_equal(h_run(r, 60, argv), 0);
	if (env)
		unsetenv(env);
	if (r->status || !h_has_line(r->out, caught)) {
		h_dump(r, "flamebpf");
		fail_msg("the traced run failed (status %d)", r->status);
	}
	load_trace(out, t);
	/* exact counts: one call of each per exception */
	assert_int_equal(t->thrower.n, K);
	assert_int_equal(t->middle.n, K);
	assert_int_equal(t->catcher.n, K);
}

static void run(const char *workload, const char *out, const char *env, struct trace *t,
		struct h_result *r)
{
	run_with(workload, NULL, out, env, t, r);
}

static void expect_within(const char *what, size_t i, double ms, double lo, double hi)
{
	print_message("%s #%zu: %.2f ms\n", what, i, ms);
	if (ms < lo || ms > hi)
		fail_msg("%s #%zu lasted %.2f ms, not within [%.0f, %.0f] ms", what, i, ms, lo, hi);
}

/* Each call lasted want_ms (and at most SLACK_MS more). */
static void expect_durations(const struct calls *c, const char *what, double want_ms)
{
	for (size_t i = 0; i < c->n; i++)
		expect_within(what, i, c->dur[i] / MS, want_ms, want_ms + SLACK_MS);
}

/* thrower and middle end at the catch, THROW_MS in; catcher CATCH_MS later. */
static void expect_ended_at_catch(const struct trace *t)
{
	expect_durations(&t->thrower, "thrower", THROW_MS);
	expect_durations(&t->middle, "middle", THROW_MS);
	expect_durations(&t->catcher, "catcher", THROW_MS + CATCH_MS);
	for (size_t i = 0; i < K; i++) {
		double thrower_end = t->thrower.start[i] + t->thrower.dur[i],
		       middle_end = t->middle.start[i] + t->middle.dur[i],
		       catcher_end = t->catcher.start[i] + t->catcher.dur[i];

		/* the same instant: one catch ended both */
		assert_true(fabs(middle_end - thrower_end) < 0.01);
		assert_true(catcher_end - middle_end >= CATCH_MS * MS);
	}
}

static void expect_summary(const struct h_result *r)
{
	char want[160];

	snprintf(want, sizeof(want),
		 "flamebpf: exceptions: %d thrown, %d caught, %d calls they left ended at the "
		 "catch (libstdc++'s probes)",
		 K, K, 2 * K);
	if (!h_has_line(r->err, want)) {
		h_dump(r, "flamebpf");
		fail_msg("no line '%s'", want);
	}
	assert_int_equal(h_unfinished(r->err), 0);
}

/* libstdc++.so.6's catch probe ends thrower and middle at the catch. */
static void test_catch_shared(void **state)
{
	struct h_result r;
	struct trace t;

	(void)state;
	require_bpf();
	run(h_workload("throw_timing"), h_path("catch.json"), NULL, &t, &r);
	expect_ended_at_catch(&t);
	expect_summary(&r);
	h_result_free(&r);
}

/* The same with libstdc++ linked into the program: its probes are there. */
static void test_catch_static(void **state)
{
	struct h_result r;
	struct trace t;

	(void)state;
	require_bpf();
	run(h_workload("static/throw_timing"), h_path("static.json"), NULL, &t, &r);
	expect_ended_at_catch(&t);
	expect_summary(&r);
	h_result_free(&r);
}

/*
 * __cxa_begin_catch traced too: its frame sits in the slot the catch probe
 * unwinds to, and stays, to end at its return (no return unmatched). Its
 * entry ends thrower and middle first, by their stack pointer, at the same
 * instant: counted as calls without a return.
 */
static void test_catch_traced_itself(void **state)
{
	struct h_result r;
	struct trace t;

	(void)state;
	require_bpf();
	run_with(h_workload("throw_timing"), "libstdc++:^__cxa_begin_catch$", h_path("begin.json"),
		 NULL, &t, &r);
	expect_ended_at_catch(&t);
	assert_int_equal(t.begin_catch.n, K);
	for (size_t i = 0; i < K; i++) {
		double thrower_end = t.thrower.start[i] + t.thrower.dur[i];

		expect_within("__cxa_begin_catch", i, t.begin_catch.dur[i] / MS, 0, 5);
		assert_true(t.begin_catch.start[i] >= thrower_end - 0.01);
		assert_true(t.begin_catch.start[i] - thrower_end < 5 * MS);
	}
	if (strstr(r.err, "returns of calls that began before")) {
		h_dump(&r, "flamebpf");
		fail_msg("__cxa_begin_catch's frame was unwound at its own catch probe");
	}
	assert_int_equal(h_unfinished(r.err), 2 * K);
	h_result_free(&r);
}

/* Kernels without uprobe_multi: one classic uprobe per probe site. */
static void test_catch_classic(void **state)
{
	struct h_result r;
	struct trace t;

	(void)state;
	require_bpf();
	run(h_workload("throw_timing"), h_path("classic.json"), "FLAMEBPF_CLASSIC_UPROBES", &t, &r);
	expect_ended_at_catch(&t);
	expect_summary(&r);
	h_result_free(&r);
}

/* Without the catch probe (the fallback, and what the tests above tell
 * apart): thrower and middle end at catcher's return, inferred from the
 * stack pointer, CATCH_MS late. */
static void test_no_catch_probe(void **state)
{
	struct h_result r;
	struct trace t;

	(void)state;
	require_bpf();
	run(h_workload("throw_timing"), h_path("nocatch.json"), "FLAMEBPF_NO_CATCH_PROBES", &t, &r);
	expect_durations(&t.thrower, "thrower", THROW_MS + CATCH_MS);
	expect_durations(&t.middle, "middle", THROW_MS + CATCH_MS);
	expect_durations(&t.catcher, "catcher", THROW_MS + CATCH_MS);
	assert_null(strstr(r.err, "exceptions:"));
	assert_int_equal(h_unfinished(r.err), 2 * K);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_catch_shared, h_test_teardown),
		cmocka_unit_test_teardown(test_catch_static, h_test_teardown),
		cmocka_unit_test_teardown(test_catch_traced_itself, h_test_teardown),
		cmocka_unit_test_teardown(test_catch_classic, h_test_teardown),
		cmocka_unit_test_teardown(test_no_catch_probe, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("trace_catch", tests, h_group_setup, h_group_teardown);
}
