// SPDX-License-Identifier: GPL-2.0
/* Unit tests of src/formats/out_chrome.c: small profiles written to memory, parsed
 * back with json-c in strict mode (UTF-8 checked), and their events checked:
 * fields, exact times, nesting per thread, metadata, otherData, escaping,
 * and the merging of samples into spans.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/out_chrome.h"
#include "profile/profile.h"

#define MS 1000000ULL /* ns */

/* ---- building profiles ---- */

static uint32_t frame(struct profile *p, const char *name, const char *module, enum frame_kind kind)
{
	uint32_t id;

	assert_int_equal(profile__findnew_frame(p, name, module, kind, &id), 0);
	return id;
}

static uint32_t ufr(struct profile *p, const char *name)
{
	return frame(p, name, "app", FRAME_USER);
}

static struct stack_owner owner(uint32_t pid, uint32_t tid, const char *comm, const char *tcomm)
{
	return (struct stack_owner){ .pid = pid, .tid = tid, .comm = comm, .tcomm = tcomm };
}

/* A traced call (uprobe mode) or a sample (sampling mode) on a stack. */
static void add_ev(struct profile *p, const struct stack_owner *who, const uint32_t *frames,
		   uint32_t n, uint64_t ts, uint64_t dur)
{
	struct profile_event ev = { .ts = ts, .dur = dur, .cpu = 1 };

	assert_int_equal(profile__add_event(p, who, frames, n, &ev), 0);
}

static void add_call(struct profile *p, const struct stack_owner *who, const uint32_t *frames,
		     uint32_t n, const struct profile_event *ev)
{
	assert_int_equal(profile__add_event(p, who, frames, n, ev), 0);
}

/* ---- writing and parsing ---- */

static char *render(const struct profile *p)
{
	struct write_opts o = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(chrome__write(p, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

/* json-c lets raw control bytes through inside strings; JSON does not. */
static void check_no_raw_controls(const char *text)
{
	bool in_string = false;

	for (const char *c = text; *c; c++) {
		if (in_string && (unsigned char)*c < 0x20)
			fail_msg("raw control byte 0x%02x in a string at byte %zu", *c,
				 (size_t)(c - text));
		if (in_string && *c == '\\')
			c++;
		else if (*c == '"')
			in_string = !in_string;
	}
}

/* Strict JSON, well-formed UTF-8, one value and nothing after it. */
static json_object *parse_must(const char *text)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc;

	check_no_raw_controls(text);
	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	doc = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
	if (!doc || json_tokener_get_error(tok) != json_tokener_success)
		fail_msg("not valid JSON at byte %zu: %s\n%s", json_tokener_get_parse_end(tok),
			 json_tokener_error_desc(json_tokener_get_error(tok)), text);
	json_tokener_free(tok);
	return doc;
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		fail_msg("no \"%s\" of type %s in %s", key, json_type_to_name(type),
			 json_object_to_json_string(o));
	return v;
}

static const char *str_of(json_object *o, const char *key)
{
	return json_object_get_string(get(o, key, json_type_string));
}

static bool has(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

/* A number printed as exact microseconds ("12.345"), in nanoseconds. */
static uint64_t us_to_ns(json_object *o, const char *key)
{
	const char *text = json_object_to_json_string(get(o, key, json_type_double));
	uint64_t us;
	unsigned int frac;
	int used = 0;

	if (sscanf(text, "%" SCNu64 ".%3u%n", &us, &frac, &used) != 2 || text[used] ||
	    strlen(strchr(text, '.') + 1) != 3)
		fail_msg("%s %s is not MICROS.NNN", key, text);
	return us * 1000 + frac;
}

struct doc {
	json_object *root, *events, *other;
	char *text;
};

static struct doc load(const struct profile *p)
{
	struct doc d;

	d.text = render(p);
	d.root = parse_must(d.text);
	d.events = get(d.root, "traceEvents", json_type_array);
	d.other = get(d.root, "otherData", json_type_object);
	assert_string_equal(str_of(d.root, "displayTimeUnit"), "ns");
	return d;
}

static void unload(struct doc *d)
{
	json_object_put(d->root);
	free(d->text);
}

struct xev {
	const char *name, *cat;
	int64_t pid, tid;
	uint64_t ts, end;
	json_object *args;
};

/* The X events of a document, their fields checked; the caller frees. */
static struct xev *x_events(const struct doc *d, size_t *n)
{
	size_t len = json_object_array_length(d->events);
	struct xev *x = calloc(len + 1, sizeof(*x));

	assert_non_null(x);
	*n = 0;
	for (size_t i = 0; i < len; i++) {
		json_object *e = json_object_array_get_idx(d->events, i);

		if (strcmp(str_of(e, "ph"), "X"))
			continue;
		x[*n] = (struct xev){ str_of(e, "name"),
				      str_of(e, "cat"),
				      json_object_get_int64(get(e, "pid", json_type_int)),
				      json_object_get_int64(get(e, "tid", json_type_int)),
				      us_to_ns(e, "ts"),
				      0,
				      get(e, "args", json_type_object) };
		x[*n].end = x[*n].ts + us_to_ns(e, "dur");
		(*n)++;
	}
	return x;
}

static const struct xev *find_x(const struct xev *x, size_t n, const char *name, uint64_t ts)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(x[i].name, name) && x[i].ts == ts)
			return &x[i];
	fail_msg("no X event '%s' at %" PRIu64 " ns", name, ts);
	return NULL;
}

static int cmp_xev(const void *a, const void *b)
{
	const struct xev *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);
}

/* Every thread's events nest: an event starting inside another ends inside it. */
static void check_nesting(struct xev *x, size_t n)
{
	const struct xev *open[64];
	size_t depth = 0;

	qsort(x, n, sizeof(*x), cmp_xev);
	for (size_t i = 0; i < n; i++) {
		if (i && (x[i].pid != x[i - 1].pid || x[i].tid != x[i - 1].tid))
			depth = 0;
		while (depth && open[depth - 1]->end <= x[i].ts)
			depth--;
		if (depth && x[i].end > open[depth - 1]->end)
			fail_msg("'%s' [%" PRIu64 ", %" PRIu64 ") sticks out of '%s' [%" PRIu64
				 ", %" PRIu64 ")",
				 x[i].name, x[i].ts, x[i].end, open[depth - 1]->name,
				 open[depth - 1]->ts, open[depth - 1]->end);
		assert_true(depth < 64);
		open[depth++] = &x[i];
	}
}

/* The name of the metadata event WHAT ("thread_name") of PID/TID; NULL if none. */
static const char *meta_name(const struct doc *d, const char *what, int64_t pid, int64_t tid)
{
	const char *found = NULL;

	for (size_t i = 0; i < json_object_array_length(d->events); i++) {
		json_object *e = json_object_array_get_idx(d->events, i);

		if (strcmp(str_of(e, "ph"), "M") || strcmp(str_of(e, "name"), what) ||
		    json_object_get_int64(get(e, "pid", json_type_int)) != pid ||
		    json_object_get_int64(get(e, "tid", json_type_int)) != tid)
			continue;
		if (found)
			fail_msg("two %s events for %" PRId64 "/%" PRId64, what, pid, tid);
		found = str_of(get(e, "args", json_type_object), "name");
	}
	return found;
}

static int64_t arg_int(const struct xev *x, const char *key)
{
	return json_object_get_int64(get(x->args, key, json_type_int));
}

/* ---- uprobe mode ---- */

/* Two processes, three threads; on 10/10 outer calls inner twice. */
static struct profile *trace_profile(void)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct stack_owner main_t = owner(10, 10, "app", "app");
	struct stack_owner worker = owner(10, 11, "app", "app-worker");
	struct stack_owner other = owner(20, 20, "tool", "tool");
	struct profile_event ev = { .ts = 1000 * MS + 500, .dur = 5 * MS, .args = { 1, 2, 3 } };
	uint32_t st[2];

	assert_non_null(p);
	st[0] = ufr(p, "outer");
	st[1] = ufr(p, "inner");
	ev.ret = 42;
	add_call(p, &main_t, st, 1, &ev);
	ev = (struct profile_event){
		.ts = 1000 * MS + 1000, .dur = 1 * MS, .args = { 7 }, .ret = 8
	};
	add_call(p, &main_t, st, 2, &ev);
	ev.ts += 2 * MS;
	add_call(p, &main_t, st, 2, &ev);
	add_ev(p, &worker, st + 1, 1, 1000 * MS, 3 * MS);
	add_ev(p, &other, st, 1, 999 * MS + 1, 1);
	return p;
}

static void test_trace_events(void **state)
{
	struct profile *p = trace_profile();
	struct doc d = load(p);
	const struct xev *outer, *inner;
	struct xev *x;
	size_t n;

	(void)state;
	x = x_events(&d, &n);
	assert_int_equal(n, 5);
	outer = find_x(x, n, "outer", 1000 * MS + 500);
	assert_int_equal(outer->end - outer->ts, 5 * MS);
	assert_string_equal(outer->cat, "app");
	assert_int_equal(outer->pid, 10);
	assert_int_equal(outer->tid, 10);
	assert_int_equal(arg_int(outer, "arg0"), 1);
	assert_int_equal(arg_int(outer, "arg1"), 2);
	assert_int_equal(arg_int(outer, "arg2"), 3);
	assert_int_equal(arg_int(outer, "ret"), 42);
	assert_false(has(outer->args, "unfinished"));
	inner = find_x(x, n, "inner", 1002 * MS + 1000);
	assert_int_equal(arg_int(inner, "arg0"), 7);
	assert_int_equal(arg_int(inner, "ret"), 8);
	assert_int_equal(find_x(x, n, "inner", 1000 * MS)->tid, 11);
	assert_int_equal(find_x(x, n, "outer", 999 * MS + 1)->end, 999 * MS + 2);
	check_nesting(x, n);
	free(x);
	unload(&d);
	profile__free(p);
}

/* The exact text of the times: microseconds with three decimals. */
static void test_trace_time_text(void **state)
{
	struct profile *p = trace_profile();
	char *text = render(p);

	(void)state;
	assert_non_null(strstr(text, "\"ts\":1000000.500,\"dur\":5000.000"));
	assert_non_null(strstr(text, "\"ts\":999000.001,\"dur\":0.001"));
	free(text);
	profile__free(p);
}

static void test_metadata(void **state)
{
	struct profile *p = trace_profile();
	struct doc d = load(p);

	(void)state;
	assert_string_equal(meta_name(&d, "process_name", 10, 10), "app");
	assert_string_equal(meta_name(&d, "thread_name", 10, 10), "app");
	assert_string_equal(meta_name(&d, "thread_name", 10, 11), "app-worker");
	assert_null(meta_name(&d, "process_name", 10, 11));
	assert_string_equal(meta_name(&d, "process_name", 20, 20), "tool");
	assert_string_equal(meta_name(&d, "thread_name", 20, 20), "tool");
	unload(&d);
	profile__free(p);
}

/* Large u64s stay exact (as hex strings); an unfinished call says so. */
static void test_args_exact(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct stack_owner who = owner(1, 1, "a", "a");
	struct profile_event ev = { .ts = 10, .dur = 5, .ret = UINT64_MAX };
	struct doc d;
	struct xev *x;
	uint32_t f;
	size_t n;

	(void)state;
	assert_non_null(p);
	f = ufr(p, "f");
	ev.args[0] = 1ULL << 53;
	ev.args[1] = (1ULL << 53) + 1;
	ev.args[2] = 0;
	add_call(p, &who, &f, 1, &ev);
	ev = (struct profile_event){ .ts = 100, .dur = 7, .flags = PROFILE_EVENT_UNFINISHED };
	add_call(p, &who, &f, 1, &ev);
	d = load(p);
	x = x_events(&d, &n);
	assert_int_equal(n, 2);
	assert_int_equal(arg_int(&x[0], "arg0"), 1LL << 53);
	assert_string_equal(str_of(x[0].args, "arg1"), "0x20000000000001");
	assert_int_equal(arg_int(&x[0], "arg2"), 0);
	assert_string_equal(str_of(x[0].args, "ret"), "0xffffffffffffffff");
	assert_true(json_object_get_boolean(get(x[1].args, "unfinished", json_type_boolean)));
	assert_false(has(x[1].args, "ret"));
	free(x);
	unload(&d);
	profile__free(p);
}

/* --cpu-split: on_cpu_ns + off_cpu_ns is dur, off_cpu_ns the sum of the
 * states that are not 0, each named after its frame; a call without a split
 * has none of them. */
static void test_split_args(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct stack_owner who = owner(1, 1, "a", "a");
	struct profile_event ev = { .ts = 1000, .dur = 50000 };
	struct profile_split sp = {
		.off_ns = { [PROFILE_OFF_SLEEPING] = 30000, [PROFILE_OFF_PREEMPTED] = 1500 }
	};
	struct doc d;
	struct xev *x;
	uint32_t f;
	size_t n;

	(void)state;
	assert_non_null(p);
	f = ufr(p, "f");
	assert_int_equal(profile__add_split_event(p, &who, &f, 1, &ev, &sp), 0);
	ev = (struct profile_event){ .ts = 100000, .dur = 7 };
	add_call(p, &who, &f, 1, &ev);
	d = load(p);
	x = x_events(&d, &n);
	assert_int_equal(n, 2);
	assert_int_equal(arg_int(&x[0], "on_cpu_ns"), 50000 - 31500);
	assert_int_equal(arg_int(&x[0], "off_cpu_ns"), 31500);
	assert_int_equal(arg_int(&x[0], "sleeping_ns"), 30000);
	assert_int_equal(arg_int(&x[0], "preempted_ns"), 1500);
	assert_false(has(x[0].args, "disk_ns"));
	assert_false(has(x[0].args, "stopped_ns"));
	assert_int_equal(arg_int(&x[0], "ret"), 0);
	assert_false(has(x[1].args, "on_cpu_ns"));
	assert_false(has(x[1].args, "off_cpu_ns"));
	free(x);
	unload(&d);
	profile__free(p);
}

/*
 * Times one nanosecond apart, where rounding to microseconds through a
 * double would let a child stick out; and a child that outlasts an unfinished
 * parent is cut at the parent's end.
 */
static void test_nesting_edges(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct stack_owner who = owner(1, 1, "a", "a");
	struct doc d;
	struct xev *x;
	uint32_t st[3];
	size_t n;

	(void)state;
	assert_non_null(p);
	st[0] = ufr(p, "a");
	st[1] = ufr(p, "b");
	st[2] = ufr(p, "c");
	add_ev(p, &who, st, 1, 1, 1999);
	add_ev(p, &who, st, 2, 1999, 1);
	add_ev(p, &who, st, 3, 1999, 1);
	add_ev(p, &who, st, 2, 3000, 1000);
	add_ev(p, &who, st, 3, 3500, 5000); /* past b's end */
	add_ev(p, &who, st, 1, 123456789012345678ULL, 1001);
	add_ev(p, &who, st, 2, 123456789012345679ULL, 1000);
	d = load(p);
	x = x_events(&d, &n);
	assert_int_equal(n, 7);
	assert_int_equal(find_x(x, n, "c", 3500)->end, 4000);
	assert_int_equal(find_x(x, n, "b", 123456789012345679ULL)->end, 123456789012346679ULL);
	check_nesting(x, n);
	free(x);
	unload(&d);
	profile__free(p);
}

/* ---- escaping ---- */

static const struct {
	const char *raw, *want;
} hostile[] = {
	{ "q\"uote", "q\"uote" },
	{ "back\\slash\\", "back\\slash\\" },
	{ "<script>&amp;", "<script>&amp;" },
	{ "ctl\x01\x1f\n\t\r\x7f", "ctl\x01\x1f\n\t\r\x7f" },
	{ "bad\xff", "bad\xef\xbf\xbd" },
	{ "cut\xc3", "cut\xef\xbf\xbd" },
	{ "overlong\xc0\xaf", "overlong\xef\xbf\xbd\xef\xbf\xbd" },
	{ "surrogate\xed\xa0\x80", "surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "ok caf\xc3\xa9 \xf0\x9f\x94\xa5", "ok caf\xc3\xa9 \xf0\x9f\x94\xa5" },
};

#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static void test_hostile_names(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct profile_meta m = { .cmdline = "flamebpf -f \"x\\y\xff\"", .kernel = "6.1\n" };
	struct stack_owner who;
	struct doc d;
	struct xev *x;
	size_t n;

	(void)state;
	assert_non_null(p);
	for (size_t i = 0; i < NHOSTILE; i++) {
		uint32_t f = frame(p, hostile[i].raw, hostile[i].raw, FRAME_USER);

		who = owner(100 + i, 100 + i, hostile[i].raw, hostile[i].raw);
		add_ev(p, &who, &f, 1, 1000 * (i + 1), 10);
	}
	assert_int_equal(profile__set_meta(p, &m), 0);
	d = load(p);
	x = x_events(&d, &n);
	assert_int_equal(n, NHOSTILE);
	for (size_t i = 0; i < NHOSTILE; i++) {
		const struct xev *e = find_x(x, n, hostile[i].want, 1000 * (i + 1));

		assert_string_equal(e->cat, hostile[i].want);
		assert_string_equal(meta_name(&d, "process_name", 100 + i, 100 + i),
				    hostile[i].want);
		assert_string_equal(meta_name(&d, "thread_name", 100 + i, 100 + i),
				    hostile[i].want);
	}
	assert_string_equal(str_of(d.other, "cmdline"), "flamebpf -f \"x\\y\xef\xbf\xbd\"");
	assert_string_equal(str_of(d.other, "kernel"), "6.1\n");
	free(x);
	unload(&d);
	profile__free(p);
}

/* ---- otherData ---- */

static void test_other_data(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES), *q = trace_profile();
	struct profile_meta m = { .cmdline = "flamebpf -F 99 -o x.json",
				  .event = "cpu-clock",
				  .kernel = "6.1.0-test",
				  .losses = "3 samples",
				  .freq = 99,
				  .ncpus = 8,
				  .secs = 2.5 };
	struct stack_owner who = owner(1, 1, "a", "a");
	struct doc d;
	uint32_t f;

	(void)state;
	assert_non_null(p);
	f = ufr(p, "main");
	add_ev(p, &who, &f, 1, 0, 10 * MS);
	assert_int_equal(profile__set_meta(p, &m), 0);
	d = load(p);
	assert_string_equal(str_of(d.other, "version"), "flamebpf " FLAMEBPF_VERSION);
	assert_string_equal(str_of(d.other, "cmdline"), m.cmdline);
	assert_string_equal(str_of(d.other, "mode"), "sample");
	assert_string_equal(str_of(d.other, "event"), "cpu-clock");
	assert_int_equal(json_object_get_int(get(d.other, "frequency", json_type_int)), 99);
	assert_string_equal(str_of(d.other, "kernel"), "6.1.0-test");
	assert_int_equal(json_object_get_int(get(d.other, "ncpus", json_type_int)), 8);
	assert_true(json_object_get_double(get(d.other, "duration", json_type_double)) == 2.5);
	assert_string_equal(str_of(d.other, "losses"), "3 samples");
	unload(&d);

	d = load(q);
	assert_string_equal(str_of(d.other, "mode"), "trace");
	assert_string_equal(str_of(d.other, "losses"), "");
	unload(&d);
	profile__free(p);
	profile__free(q);
}

/* ---- sampling mode ---- */

#define P (10 * MS) /* sample period */

/* A;B, A;B, A;C on one thread: A spans 3 periods, B 2, C 1. */
static void test_sample_merge(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct stack_owner who = owner(5, 6, "proc", "thr");
	const struct xev *a;
	uint32_t ab[2], ac[2];
	struct doc d;
	struct xev *x;
	size_t n;

	(void)state;
	assert_non_null(p);
	ab[0] = ac[0] = ufr(p, "A");
	ab[1] = ufr(p, "B");
	ac[1] = ufr(p, "C");
	add_ev(p, &who, ab, 2, 1000 * MS, P);
	add_ev(p, &who, ac, 2, 1000 * MS + 2 * P, P); /* out of order on purpose */
	add_ev(p, &who, ab, 2, 1000 * MS + P, P);
	d = load(p);
	x = x_events(&d, &n);
	assert_int_equal(n, 3);
	a = find_x(x, n, "A", 1000 * MS);
	assert_int_equal(a->end - a->ts, 3 * P);
	assert_int_equal(arg_int(a, "samples"), 3);
	assert_int_equal(a->pid, 5);
	assert_int_equal(a->tid, 6);
	assert_int_equal(find_x(x, n, "B", 1000 * MS)->end, 1000 * MS + 2 * P);
	assert_int_equal(arg_int(find_x(x, n, "B", 1000 * MS), "samples"), 2);
	assert_int_equal(find_x(x, n, "C", 1000 * MS + 2 * P)->end, 1000 * MS + 3 * P);
	assert_string_equal(meta_name(&d, "process_name", 5, 5), "proc");
	assert_string_equal(meta_name(&d, "thread_name", 5, 6), "thr");
	check_nesting(x, n);
	free(x);
	unload(&d);
	profile__free(p);
}

/*
 * Frames compare by name and kind, not by address; a kernel frame has cat
 * "kernel"; another thread does not split a thread's spans; a gap of more
 * than 2 periods closes every span; jittered samples never overlap.
 */
static void test_sample_timeline(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct stack_owner t1 = owner(5, 5, "proc", "proc"), t2 = owner(5, 7, "proc", "w");
	struct frame fa = { .name = "A", .module = "app", .addr = 0x1000, .sym_off = 0 };
	struct frame ka = { .name = "A", .module = "[kernel]", .kind = FRAME_KERNEL };
	uint32_t s1[2], s2[2], s3[2];
	struct doc d;
	struct xev *x;
	size_t n;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__findnew_frame_at(p, &fa, &s1[0]), 0);
	fa.addr = 0x1010;
	fa.sym_off = 0x10;
	assert_int_equal(profile__findnew_frame_at(p, &fa, &s2[0]), 0);
	assert_true(s1[0] != s2[0]);
	s1[1] = s2[1] = ufr(p, "B");
	s3[0] = s1[0];
	assert_int_equal(profile__findnew_frame_at(p, &ka, &s3[1]), 0);
	add_ev(p, &t1, s1, 2, 0, P);
	add_ev(p, &t2, s1, 2, P / 2, P);
	add_ev(p, &t1, s3, 2, P - 4700, P); /* a little early, off the microsecond */
	add_ev(p, &t1, s2, 2, 2 * P, P);
	add_ev(p, &t1, s1, 2, 3 * P + 1300, P);
	add_ev(p, &t1, s1, 2, 7 * P, P); /* after a gap of 3 periods */
	d = load(p);
	x = x_events(&d, &n);
	/* samples begin and end on whole microseconds */
	assert_int_equal(find_x(x, n, "A", 0)->end, 4 * P + 1000);
	assert_int_equal(arg_int(find_x(x, n, "A", 0), "samples"), 4);
	assert_int_equal(find_x(x, n, "B", 0)->end, P - 5000);
	assert_string_equal(find_x(x, n, "A", P - 5000)->cat, "kernel");
	assert_int_equal(find_x(x, n, "A", P - 5000)->end, 2 * P - 5000);
	assert_string_equal(find_x(x, n, "B", 2 * P)->cat, "app");
	assert_int_equal(find_x(x, n, "B", 2 * P)->end, 4 * P + 1000);
	assert_int_equal(arg_int(find_x(x, n, "B", 2 * P), "samples"), 2);
	assert_int_equal(find_x(x, n, "A", 7 * P)->end, 8 * P);
	assert_int_equal(find_x(x, n, "A", P / 2)->tid, 7);
	assert_int_equal(n, 8);
	check_nesting(x, n);
	free(x);
	unload(&d);
	profile__free(p);
}

/* ---- time off the CPU (--wall) ---- */

/* The time in spans named NAME, in ns. */
static uint64_t time_in(const struct xev *x, size_t n, const char *name)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(x[i].name, name))
			sum += x[i].end - x[i].ts;
	return sum;
}

#define WP 1001001ULL /* the period of 999 Hz, ns */

/*
 * A --wall thread: asleep 300 ms, 3 samples (the first taken a third of a
 * period after it came back), and asleep again 5 us after the last. Each
 * sample lasts its period before its time, each block its length, exactly
 * (to the us), as the folded output weighs them: no sample is cut short
 * by the block after it; nothing overlaps; main goes on through all.
 */
static void test_wall_spans(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct profile_meta m = { .event = PROFILE_EVENT_WALL, .freq = 999 };
	struct stack_owner who = owner(3, 3, "w", "w");
	uint64_t woke = 1000 * MS + 300 * MS;
	uint32_t sl[2], wk[2];
	struct doc d;
	struct xev *x;
	size_t n;

	(void)state;
	assert_non_null(p);
	sl[0] = wk[0] = ufr(p, "main");
	sl[1] = ufr(p, "[sleeping]");
	wk[1] = ufr(p, "work");
	assert_int_equal(profile__set_meta(p, &m), 0);
	add_ev(p, &who, sl, 2, 1000 * MS, 300 * MS);
	for (int k = 0; k < 3; k++)
		add_ev(p, &who, wk, 2, woke + WP / 3 + k * WP, WP);
	add_ev(p, &who, sl, 2, woke + WP / 3 + 2 * WP + 5000, 100 * MS);
	d = load(p);
	x = x_events(&d, &n);
	assert_int_equal(time_in(x, n, "work"), 3 * (WP - 1));
	assert_int_equal(time_in(x, n, "[sleeping]"), 400 * MS);
	assert_int_equal(arg_int(find_x(x, n, "main", 1000 * MS), "samples"), 3);
	assert_int_equal(arg_int(find_x(x, n, "main", 1000 * MS), "blocks"), 2);
	assert_int_equal(time_in(x, n, "main"), 400 * MS + 3 * (WP - 1));
	assert_int_equal(json_object_get_int(get(d.other, "frequency", json_type_int)), 999);
	check_nesting(x, n);
	free(x);
	unload(&d);
	profile__free(p);
}

/* Samples that weigh themselves (a tracepoint's --weight) say their sum. */
static void test_sample_weights(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct profile_meta m = { .event = "syscalls:sys_enter_write:count", .period = 1 };
	struct stack_owner who = owner(4, 4, "dd", "dd");
	struct profile_event ev = { .ts = 1000 * MS, .dur = 1000, .weight = 4096 };
	uint32_t st[2];
	struct doc d;
	struct xev *x;
	size_t n;

	(void)state;
	assert_non_null(p);
	st[0] = ufr(p, "main");
	st[1] = ufr(p, "write");
	assert_int_equal(profile__set_meta(p, &m), 0);
	add_call(p, &who, st, 2, &ev);
	ev.ts += 1000;
	ev.weight = 100;
	add_call(p, &who, st, 2, &ev);
	d = load(p);
	x = x_events(&d, &n);
	assert_int_equal(n, 2);
	assert_int_equal(arg_int(find_x(x, n, "write", 1000 * MS), "weight"), 4196);
	assert_int_equal(arg_int(find_x(x, n, "write", 1000 * MS), "samples"), 2);
	assert_int_equal(find_x(x, n, "main", 1000 * MS)->end, 1000 * MS + 2000);
	free(x);
	unload(&d);
	profile__free(p);
}

/* The position of the first X event named NAME in the file. */
static size_t x_index(const struct doc *d, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(d->events); i++) {
		json_object *e = json_object_array_get_idx(d->events, i);

		if (!strcmp(str_of(e, "ph"), "X") && !strcmp(str_of(e, "name"), name))
			return i;
	}
	fail_msg("no X event '%s'", name);
	return 0;
}

/* Of two spans with the same start and length, viewers take the first in
 * the file as the parent: it must be the parent, in both modes. */
static void test_equal_spans_parent_first(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES), *q = profile__new(UNIT_NANOSECONDS);
	struct stack_owner who = owner(1, 1, "a", "a");
	uint32_t st[3];
	struct doc d;

	(void)state;
	assert_non_null(p);
	assert_non_null(q);
	st[0] = ufr(p, "A");
	st[1] = ufr(p, "B");
	st[2] = ufr(p, "C");
	add_ev(p, &who, st, 3, 0, P);
	add_ev(p, &who, st, 3, P, P);
	d = load(p);
	assert_true(x_index(&d, "A") < x_index(&d, "B"));
	assert_true(x_index(&d, "B") < x_index(&d, "C"));
	unload(&d);

	st[0] = ufr(q, "A");
	st[1] = ufr(q, "B");
	add_ev(q, &who, st, 2, 100, 50); /* the child first */
	add_ev(q, &who, st, 1, 100, 50);
	d = load(q);
	assert_true(x_index(&d, "A") < x_index(&d, "B"));
	unload(&d);
	profile__free(p);
	profile__free(q);
}

/* Writing to a stream that fails says so. */
static void test_write_error(void **state)
{
	struct profile *p = trace_profile();
	struct write_opts o = { 0 };
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		skip();
	assert_int_equal(chrome__write(p, &o, f), -EIO);
	fclose(f);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_events),
		cmocka_unit_test(test_trace_time_text),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_args_exact),
		cmocka_unit_test(test_split_args),
		cmocka_unit_test(test_nesting_edges),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_other_data),
		cmocka_unit_test(test_sample_merge),
		cmocka_unit_test(test_sample_timeline),
		cmocka_unit_test(test_wall_spans),
		cmocka_unit_test(test_sample_weights),
		cmocka_unit_test(test_equal_spans_parent_first),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests_name("out_chrome", tests, NULL, NULL);
}
