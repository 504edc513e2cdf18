// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe mode per call: --flamechart (calls in time order, thread by
 * thread), Chrome JSON events with arguments and return values, and
 * --full-stack. Tests of features not there yet skip and say which.
 */
#include "harness.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000.0 /* ns */

/*
 * Runs flamebpf with ARGV, which must exit 0; skips the test when flamebpf
 * refused the option of FEATURE as not (yet) there.
 */
static void run_feature(struct h_result *r, double timeout, const char *feature,
			const char *const argv[])
{
	assert_int_equal(h_run(r, timeout, argv), 0);
	if (r->status == 2) {
		print_message("SKIP: %s is missing (flamebpf said: %.*s)\n", feature,
			      (int)strcspn(r->err, "\n"), r->err);
		h_result_free(r);
		skip();
	}
	h_assert_status(r, 0);
}

/* ---- --flamechart ---- */

/*
 * outer 2 ms, inner 3 ms, 5 times: outer, outer;inner, outer's tail, in
 * turn; inner's lines add up to inner's calls and all lines to outer's, as
 * tracee measured them around the calls.
 */
static void test_flamechart_order(void **state)
{
	const char *out = h_path("chart.folded");
	static const char *const want[3] = { "tracee;outer", "tracee;outer;inner", "tracee;outer" };
	unsigned long long inner_sum = 0;
	long long outer, inner;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	run_feature(&r, 30, "--flamechart in uprobe mode",
		    H_ARGV(h_flamebpf(), "--flamechart", "-f", "^(outer|inner)$", "-o", out, "--",
			   h_workload("tracee"), "nest", "2", "3", "5"));
	h_nest_times(r.out, &outer, &inner);
	h_flamechart_must_load(out, &f);
	if (f.n != 15) {
		h_folded_dump(&f, 30);
		fail_msg("%zu lines, expected 15: 5 calls of outer in 3 stretches each", f.n);
	}
	for (size_t i = 0; i < f.n; i++) {
		const struct h_line *l = &f.lines[i];
		/* busy loops take at least that long; the tail is short */
		bool ok = i % 3 == 0   ? l->count >= 1.95 * MS
			  : i % 3 == 1 ? l->count >= 2.95 * MS
				       : l->count < 1 * MS;

		if (strcmp(l->stack, want[i % 3]) || !ok) {
			h_folded_dump(&f, 30);
			fail_msg("line %zu is '%s %llu', expected '%s' and %s", i + 1, l->stack,
				 l->count, want[i % 3],
				 i % 3 == 0   ? ">= 1.95 ms"
				 : i % 3 == 1 ? ">= 2.95 ms"
					      : "< 1 ms");
		}
		inner_sum += i % 3 == 1 ? l->count : 0;
	}
	print_message("inner %.2f ms (measured %.2f), all %.2f ms (outer measured %.2f)\n",
		      inner_sum / MS, inner / MS, f.total / MS, outer / MS);
	assert_in_range(inner_sum, inner * 0.9, inner * 1.1);
	assert_in_range(f.total, outer * 0.9, outer * 1.1);
	h_folded_free(&f);
	h_result_free(&r);
}

/* fib(4) calls in time order: the depth of each self-time stretch. */
static void test_flamechart_recursion(void **state)
{
	static const size_t want[] = { 1, 2, 3, 4, 3, 4, 3, 2, 3, 2, 1, 2, 3, 2, 3, 2, 1 };
	const size_t n = sizeof(want) / sizeof(want[0]);
	const char *out = h_path("chart-fib.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	run_feature(&r, 30, "--flamechart in uprobe mode",
		    H_ARGV(h_flamebpf(), "--flamechart", "-f", "^fib$", "-o", out, "--",
			   h_workload("tracee"), "fib", "4"));
	h_expect_calls(&r, 9);
	h_flamechart_must_load(out, &f);
	for (size_t i = 0; i < f.n && i < n; i++) {
		if (h_depth(f.lines[i].stack) == want[i] &&
		    !strncmp(f.lines[i].stack, "tracee;fib", 10))
			continue;
		h_folded_dump(&f, 30);
		fail_msg("line %zu: depth %zu, expected %zu", i + 1, h_depth(f.lines[i].stack),
			 want[i]);
	}
	if (f.n != n) {
		h_folded_dump(&f, 30);
		fail_msg("%zu lines, expected %zu", f.n, n);
	}
	h_folded_free(&f);
	h_result_free(&r);
}

struct thread_calls {
	long tid;
	size_t me, other;
	const char *last;
};

/* 4 threads call count_me and count_other in turn, 2000 times each: exactly
 * that many calls per thread, in that order. */
static void test_flamechart_thread_counts(void **state)
{
	const char *out = h_path("chart-threads.folded");
	struct thread_calls t[4] = {};
	struct h_folded f;
	struct h_result r;
	size_t nt = 0;

	(void)state;
	require_bpf();
	run_feature(&r, 60, "--flamechart in uprobe mode",
		    H_ARGV(h_flamebpf(), "--flamechart", "--tids", "-f", "^count_(me|other)$", "-o",
			   out, "--", h_workload("tracee"), "threads", "4", "2000"));
	h_expect_calls(&r, 2 * 4 * 2000);
	h_flamechart_must_load(out, &f);
	for (size_t i = 0; i < f.n; i++) {
		const char *stack = f.lines[i].stack, *leaf = strchr(stack, ';');
		char root[128], comm[64];
		struct thread_calls *c;
		long pid, tid;

		h_root(stack, root, sizeof(root));
		if (h_root_ids(root, comm, sizeof(comm), &pid, &tid) || !tid || !leaf)
			fail_msg("line %zu: '%s' is not 'tracee-PID/TID;...'", i + 1, stack);
		/* a thread's lines are together: a new tid starts a new thread */
		if (!nt || t[nt - 1].tid != tid) {
			for (size_t j = 0; j < nt; j++)
				if (t[j].tid == tid)
					fail_msg("line %zu: thread %ld's lines are apart", i + 1,
						 tid);
			if (nt == 4)
				fail_msg("line %zu: a fifth thread", i + 1);
			t[nt++].tid = tid;
		}
		c = &t[nt - 1];
		if (c->last && !strcmp(c->last, leaf))
			fail_msg("line %zu: '%s' twice in a row", i + 1, stack);
		c->last = leaf;
		c->me += !strcmp(leaf, ";count_me");
		c->other += !strcmp(leaf, ";count_other");
	}
	for (size_t j = 0; j < 4; j++) {
		print_message("thread %ld: %zu count_me, %zu count_other\n", t[j].tid, t[j].me,
			      t[j].other);
		if (t[j].me != 2000 || t[j].other != 2000)
			fail_msg("thread %ld: %zu and %zu calls, expected 2000 of each", t[j].tid,
				 t[j].me, t[j].other);
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/* ---- a small strict JSON reader, for the Chrome trace ---- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype type;
	double num;
	char *str;	  /* J_STR */
	char **keys;	  /* J_OBJ */
	struct jv **kids; /* J_ARR, J_OBJ */
	size_t n;
};

struct jparser {
	const char *s;
	const char *err;
};

static struct jv *jparse_value(struct jparser *p, int depth);

static void jskip(struct jparser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static struct jv *jnew(enum jtype type)
{
	struct jv *v = calloc(1, sizeof(*v));

	if (!v)
		fail_msg("out of memory");
	v->type = type;
	return v;
}

static void jfree(struct jv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		jfree(v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->str);
	free(v);
}

static char *jparse_string(struct jparser *p)
{
	size_t len = 0, cap = 64;
	char *out = malloc(cap);

	if (!out || *p->s++ != '"')
		return free(out), p->err = "expected a string", NULL;
	while (*p->s != '"') {
		unsigned char c = *p->s++;

		if (c < 0x20) /* control bytes (and the end of the text) must be escaped */
			return free(out), p->err = "control byte in a string", NULL;
		if (c == '\\') {
			c = *p->s++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++)
					if (!isxdigit((unsigned char)*p->s++))
						return free(out), p->err = "bad \\u escape", NULL;
				c = '?';
			} else if (!strchr("\"\\/bfnrt", c)) {
				return free(out), p->err = "bad escape", NULL;
			}
		}
		if (len + 2 > cap && !(out = realloc(out, cap *= 2)))
			fail_msg("out of memory");
		out[len++] = c;
	}
	p->s++;
	out[len] = '\0';
	return out;
}

static void jpush(struct jv *v, char *key, struct jv *kid)
{
	v->kids = realloc(v->kids, (v->n + 1) * sizeof(*v->kids));
	if (v->type == J_OBJ)
		v->keys = realloc(v->keys, (v->n + 1) * sizeof(*v->keys));
	if (!v->kids || (v->type == J_OBJ && !v->keys))
		fail_msg("out of memory");
	if (v->keys)
		v->keys[v->n] = key;
	v->kids[v->n++] = kid;
}

/* An array or object: its members up to CLOSE. */
static struct jv *jparse_members(struct jparser *p, enum jtype type, char close, int depth)
{
	struct jv *v = jnew(type);

	p->s++;
	jskip(p);
	if (*p->s == close)
		return p->s++, v;
	for (;;) {
		char *key = NULL;
		struct jv *kid;

		jskip(p);
		if (type == J_OBJ) {
			if (!(key = jparse_string(p)))
				return jfree(v), NULL;
			jskip(p);
			if (*p->s++ != ':')
				return free(key), jfree(v), p->err = "expected ':'", NULL;
		}
		if (!(kid = jparse_value(p, depth + 1)))
			return free(key), jfree(v), NULL;
		jpush(v, key, kid);
		jskip(p);
		if (*p->s == close)
			return p->s++, v;
		if (*p->s++ != ',')
			return jfree(v), p->err = "expected ',' or the end", NULL;
	}
}

static struct jv *jparse_value(struct jparser *p, int depth)
{
	struct jv *v;
	char *end;

	jskip(p);
	if (depth > 64)
		return p->err = "nested too deep", NULL;
	if (*p->s == '{' || *p->s == '[')
		return jparse_members(p, *p->s == '{' ? J_OBJ : J_ARR, *p->s == '{' ? '}' : ']',
				      depth);
	if (*p->s == '"') {
		char *s = jparse_string(p);

		if (!s)
			return NULL;
		v = jnew(J_STR);
		v->str = s;
		return v;
	}
	for (const char *const *w = (const char *const[]){ "true", "false", "null", NULL }; *w;
	     w++) {
		if (strncmp(p->s, *w, strlen(*w)))
			continue;
		p->s += strlen(*w);
		v = jnew(**w == 'n' ? J_NULL : J_BOOL);
		v->num = **w == 't';
		return v;
	}
	if (*p->s != '-' && !isdigit((unsigned char)*p->s))
		return p->err = "not a JSON value", NULL;
	v = jnew(J_NUM);
	v->num = strtod(p->s, &end);
	if (end == p->s || !isfinite(v->num))
		return jfree(v), p->err = "bad number", NULL;
	p->s = end;
	return v;
}

/* Parses all of TEXT, failing the test when it is not one JSON value. */
static struct jv *jparse_must(const char *text)
{
	struct jparser p = { text, NULL };
	struct jv *v = jparse_value(&p, 0);

	if (v) {
		jskip(&p);
		if (*p.s)
			p.err = "text after the value";
	}
	if (p.err || !v)
		fail_msg("not valid JSON at byte %zu: %s", (size_t)(p.s - text),
			 p.err ? p.err : "?");
	return v;
}

static const struct jv *jget(const struct jv *obj, const char *key)
{
	if (!obj || obj->type != J_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return obj->kids[i];
	return NULL;
}

static const char *jstr(const struct jv *obj, const char *key)
{
	const struct jv *v = jget(obj, key);

	return v && v->type == J_STR ? v->str : NULL;
}

static bool jnum(const struct jv *obj, const char *key, double *out)
{
	const struct jv *v = jget(obj, key);

	if (!v || v->type != J_NUM)
		return false;
	*out = v->num;
	return true;
}

/* ---- Chrome trace events ---- */

struct xev {
	const char *name;
	double ts, dur, pid, tid;
	const struct jv *args;
};

/* The complete ("X") events of a Chrome trace; checks their fields. */
static size_t x_events(const struct jv *doc, struct xev *out, size_t max, size_t *meta)
{
	const struct jv *evs = jget(doc, "traceEvents");
	size_t n = 0;

	if (!evs || evs->type != J_ARR)
		fail_msg("no \"traceEvents\" array");
	if (!jstr(doc, "displayTimeUnit") || strcmp(jstr(doc, "displayTimeUnit"), "ns"))
		fail_msg("no \"displayTimeUnit\":\"ns\"");
	*meta = 0;
	for (size_t i = 0; i < evs->n; i++) {
		const struct jv *e = evs->kids[i];
		const char *ph = jstr(e, "ph");
		struct xev x = { jstr(e, "name"), 0, 0, 0, 0, jget(e, "args") };

		if (!ph || !x.name || !jnum(e, "pid", &x.pid))
			fail_msg("event %zu has no ph, name or pid", i);
		if (!strcmp(ph, "M")) {
			*meta += !strcmp(x.name, "process_name") || !strcmp(x.name, "thread_name");
			continue;
		}
		if (strcmp(ph, "X"))
			continue;
		if (!jnum(e, "ts", &x.ts) || !jnum(e, "dur", &x.dur) || !jnum(e, "tid", &x.tid) ||
		    !jstr(e, "cat") || x.dur < 0)
			fail_msg("X event %zu lacks ts, dur, tid or cat", i);
		if (n == max)
			fail_msg("more than %zu X events", max);
		out[n++] = x;
	}
	return n;
}

static bool inside(const struct xev *child, const struct xev *parent)
{
	const double eps = 0.002; /* us: rounding of the printed values */

	return child->pid == parent->pid && child->tid == parent->tid &&
	       child->ts >= parent->ts - eps &&
	       child->ts + child->dur <= parent->ts + parent->dur + eps;
}

static struct jv *run_chrome(struct h_result *r, const char *out, const char *regex,
			     const char *const work[])
{
	const char *argv[16] = { h_flamebpf(), "--format", "chrome", "-f", regex, "-o", out, "--" };
	size_t n = 8;
	struct jv *doc;
	char *text;

	for (size_t i = 0; work[i]; i++)
		argv[n++] = work[i];
	argv[n] = NULL;
	run_feature(r, 30, "the Chrome JSON output (per-call timeline) in uprobe mode", argv);
	text = h_slurp(out);
	assert_non_null(text);
	doc = jparse_must(text);
	free(text);
	return doc;
}

/* Each call one X event; inner's inside outer's; durations right: each at
 * least what it was asked to busy-wait and at most all its calls took, and
 * their sums within 10% of what tracee measured around its calls (a loaded
 * machine preempts single calls for milliseconds). */
static void test_chrome_events(void **state)
{
	const char *out = h_path("trace.json");
	size_t n, meta, nouter = 0, ninner = 0;
	double outer_us = 0, inner_us = 0;
	long long outer_ns, inner_ns;
	struct xev ev[64];
	struct h_result r;
	struct jv *doc;

	(void)state;
	require_bpf();
	doc = run_chrome(&r, out, "^(outer|inner)$",
			 H_ARGV(h_workload("tracee"), "nest", "2", "3", "5"));
	h_nest_times(r.out, &outer_ns, &inner_ns);
	n = x_events(doc, ev, 64, &meta);
	assert_true(meta >= 2); /* process_name and thread_name */
	for (size_t i = 0; i < n; i++) {
		bool nested = false;

		if (!strcmp(ev[i].name, "outer")) {
			nouter++;
			outer_us += ev[i].dur;
			assert_in_range(ev[i].dur, 4900, outer_ns / 1e3);
			continue;
		}
		assert_string_equal(ev[i].name, "inner");
		ninner++;
		inner_us += ev[i].dur;
		assert_in_range(ev[i].dur, 2900, inner_ns / 1e3);
		for (size_t j = 0; j < n; j++)
			nested |= !strcmp(ev[j].name, "outer") && inside(&ev[i], &ev[j]);
		if (!nested)
			fail_msg("inner at ts %.3f us lies inside no outer", ev[i].ts);
	}
	assert_int_equal(nouter, 5);
	assert_int_equal(ninner, 5);
	print_message("outer %.0f us (measured %.0f), inner %.0f us (measured %.0f)\n", outer_us,
		      outer_ns / 1e3, inner_us, inner_ns / 1e3);
	if (fabs(outer_us - outer_ns / 1e3) > outer_ns / 1e4 ||
	    fabs(inner_us - inner_ns / 1e3) > inner_ns / 1e4)
		fail_msg("the events' durations are not those tracee measured, within 10%%");
	jfree(doc);
	h_result_free(&r);
}

/* Whether ARGS (an object) has the integer V as one of its values. */
static bool has_value(const struct jv *args, double v)
{
	if (!args || args->type != J_OBJ)
		return false;
	for (size_t i = 0; i < args->n; i++)
		if (args->kids[i]->type == J_NUM && args->kids[i]->num == v)
			return true;
	return false;
}

/* The calls of fib(6) in doc: the top call's args carry its argument 6 and
 * its result 8. */
static void expect_fib_args(struct jv *doc)
{
	const struct xev *top = NULL;
	struct xev ev[64];
	size_t n, meta;

	n = x_events(doc, ev, 64, &meta);
	assert_int_equal(n, 25); /* 2 * F(7) - 1 */
	for (size_t i = 0; i < n; i++) {
		if (!top || ev[i].dur > top->dur)
			top = &ev[i];
	}
	for (size_t i = 0; i < n; i++)
		if (&ev[i] != top && !inside(&ev[i], top))
			fail_msg("a call of fib outside the first one");
	if (!has_value(top->args, 6) || !has_value(top->args, 8))
		fail_msg("the args of fib(6) do not hold its argument 6 and its result 8");
}

static void test_chrome_args(void **state)
{
	const char *out = h_path("fib.json");
	struct h_result r;
	struct jv *doc;

	(void)state;
	require_bpf();
	doc = run_chrome(&r, out, "^fib$", H_ARGV(h_workload("tracee"), "fib", "6"));
	expect_fib_args(doc);
	jfree(doc);
	h_result_free(&r);
}

/* The HTML report keeps the calls' arguments and returns: the page
 * rendered back to Chrome JSON has fib(6)'s. */
static void test_html_args(void **state)
{
	const char *page = h_path("fib.html"), *back = h_path("fib_back.json");
	struct h_result r;
	struct jv *doc;
	char *text;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "-f", "^fib$", "-o", page, "--",
				      h_workload("tracee"), "fib", "6")),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "render", page, "-o", back)), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	text = h_slurp(back);
	doc = jparse_must(text);
	free(text);
	expect_fib_args(doc);
	jfree(doc);
}

/* ---- --full-stack ---- */

/* Runs `tracee nest 2 3 5` with --full-stack and REGEX; tracee's measured times. */
static void full_stack_run(const char *regex, const char *out, struct h_folded *f, long long *outer,
			   long long *inner)
{
	struct h_result r;

	run_feature(&r, 30, "--full-stack",
		    H_ARGV(h_flamebpf(), "--full-stack", "-f", regex, "-o", out, "--",
			   h_workload("tracee"), "nest", "2", "3", "5"));
	h_nest_times(r.out, outer, inner);
	h_result_free(&r);
	h_folded_must_load(out, f);
}

/* Whether STACK is tracee;...;main;...;TAIL (TAIL starting with a frame). */
static bool real_stack(const char *stack, const char *tail)
{
	size_t len = strlen(stack), tlen = strlen(tail);
	const char *main_at = strstr(stack, ";main;");

	return !strncmp(stack, "tracee;", 7) && main_at && len > tlen &&
	       stack[len - tlen - 1] == ';' && !strcmp(stack + len - tlen, tail) &&
	       main_at < stack + len - tlen - 1;
}

/* Only inner traced: its lines carry the real stack, main;...;outer;inner. */
static void test_full_stack(void **state)
{
	const char *out = h_path("full.folded");
	long long outer, inner;
	struct h_folded f;

	(void)state;
	require_bpf();
	full_stack_run("^inner$", out, &f, &outer, &inner);
	for (size_t i = 0; i < f.n; i++) {
		if (real_stack(f.lines[i].stack, "outer;inner"))
			continue;
		h_folded_dump(&f, 20);
		fail_msg("line %zu: not 'tracee;...;main;...;outer;inner'", i + 1);
	}
	assert_in_range(f.total, inner * 0.9, inner * 1.1);
	h_folded_free(&f);

	/* both traced: self times as without --full-stack */
	full_stack_run("^(outer|inner)$", out, &f, &outer, &inner);
	for (size_t i = 0; i < f.n; i++) {
		const char *s = f.lines[i].stack;

		if (real_stack(s, "outer;inner") ||
		    (real_stack(s, "outer") && !h_has_frame(s, "inner")))
			continue;
		h_folded_dump(&f, 20);
		fail_msg("line %zu: not 'tracee;...;main;...;outer[;inner]'", i + 1);
	}
	assert_in_range(h_sum_frame(&f, "inner"), inner * 0.9, inner * 1.1);
	assert_in_range(f.total, outer * 0.9, outer * 1.1);
	h_folded_free(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_flamechart_order, h_test_teardown),
		cmocka_unit_test_teardown(test_flamechart_recursion, h_test_teardown),
		cmocka_unit_test_teardown(test_flamechart_thread_counts, h_test_teardown),
		cmocka_unit_test_teardown(test_chrome_events, h_test_teardown),
		cmocka_unit_test_teardown(test_chrome_args, h_test_teardown),
		cmocka_unit_test_teardown(test_html_args, h_test_teardown),
		cmocka_unit_test_teardown(test_full_stack, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("trace_timeline", tests, h_group_setup,
					   h_group_teardown);
}
