// SPDX-License-Identifier: GPL-2.0
/* Unit tests of src/formats/out_html.c and html_data.c: small profiles
 * written to memory; the page's data element parsed back with json-c in
 * strict mode and decoded as the page's script decodes it (names through
 * the call tree, times from their deltas), which must give the profile:
 * every stack's path, weight and thread, every event's time, stack and
 * duration, traced calls' self times. Also: hostile names cannot end the
 * script element, the colours are the SVG's, the page asks for nothing
 * over the network, and a profile without events is refused. */
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
#include <unistd.h>

#include "formats/out_html.h"
#include "gen/html_css.h"
#include "gen/html_js.h"
#include "formats/palette.h"
#include "formats/sink.h"
#include "profile/profile.h"

#define MS	   1000000ULL /* ns */
#define DATA_OPEN  "<script type=\"application/json\" id=\"flamebpf-data\">"
#define DATA_CLOSE "</script>"
#define PATH_MAX_  512

/* ---- building profiles ---- */

static uint32_t frame(struct profile *p, const char *name, enum frame_kind kind)
{
	uint32_t id;

	assert_int_equal(profile__findnew_frame(p, name, kind == FRAME_KERNEL ? "[kernel]" : "app",
						kind, &id),
			 0);
	return id;
}

static struct stack_owner owner(uint32_t pid, uint32_t tid, const char *comm)
{
	return (struct stack_owner){ .pid = pid, .tid = tid, .comm = comm, .tcomm = comm };
}

static void add_ev(struct profile *p, const struct stack_owner *who, const uint32_t *frames,
		   uint32_t n, uint64_t ts, uint64_t dur)
{
	struct profile_event ev = { .ts = ts, .dur = dur };

	assert_int_equal(profile__add_event(p, who, frames, n, &ev), 0);
}

/* Two threads of one process and one of another, user and kernel frames;
 * events out of time order, as a capture adds them thread by thread. */
static struct profile *sample_profile(void)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct stack_owner a = owner(10, 10, "app"), b = owner(10, 11, "app"),
			   c = owner(20, 20, "other");
	uint32_t main_ = frame(p, "main", FRAME_USER), work = frame(p, "work", FRAME_USER);
	uint32_t rd = frame(p, "read", FRAME_USER), sys = frame(p, "ksys_read", FRAME_KERNEL);
	uint32_t s1[] = { main_, work }, s2[] = { main_, rd, sys }, s3[] = { main_ };
	struct profile_meta m = { .cmdline = "flamebpf -F 99",
				  .event = "cpu-clock",
				  .kernel = "6.1",
				  .host = "box",
				  .losses = "",
				  .freq = 99,
				  .ncpus = 2,
				  .secs = 1.5 };

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__add_stack(p, &a, s1, 2, 3), 0);
	assert_int_equal(profile__add_stack(p, &b, s2, 3, 2), 0);
	assert_int_equal(profile__add_stack(p, &c, s3, 1, 1), 0);
	add_ev(p, &a, s1, 2, 5000 * MS, 10 * MS);
	add_ev(p, &a, s1, 2, 5020 * MS, 10 * MS);
	add_ev(p, &a, s1, 2, 6400 * MS + 7, 10 * MS);
	add_ev(p, &b, s2, 3, 5010 * MS, 10 * MS);
	add_ev(p, &b, s2, 3, 5000 * MS, 10 * MS);
	add_ev(p, &c, s3, 1, 5500 * MS, 10 * MS);
	return p;
}

/* ---- writing and reading back ---- */

static char *render(const struct profile *p, const struct write_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(html__write(p, o, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

/* The data element's JSON, strictly parsed. */
static json_object *data_of(const char *page)
{
	const char *from = strstr(page, DATA_OPEN), *to;
	json_tokener *tok = json_tokener_new();
	json_object *doc;

	assert_non_null(from);
	from += strlen(DATA_OPEN);
	to = strstr(from, DATA_CLOSE); /* the first one: nothing in the data may end it */
	assert_non_null(to);
	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	doc = json_tokener_parse_ex(tok, from, (int)(to - from));
	if (!doc)
		doc = json_tokener_parse_ex(tok, "", 1); /* ends a document cut at its last byte */
	if (!doc || json_tokener_get_error(tok) != json_tokener_success)
		fail_msg("the data is not valid JSON: %s\n%.*s",
			 json_tokener_error_desc(json_tokener_get_error(tok)), (int)(to - from),
			 from);
	json_tokener_free(tok);
	return doc;
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		fail_msg("no \"%s\" of type %s", key, json_type_to_name(type));
	return v;
}

static int64_t at(json_object *arr, size_t i)
{
	assert_true(i < json_object_array_length(arr));
	return json_object_get_int64(json_object_array_get_idx(arr, i));
}

static const char *str_at(json_object *d, int64_t i)
{
	return json_object_get_string(
		json_object_array_get_idx(get(d, "strings", json_type_array), i));
}

/* The name path of a call-tree node, root first, ';' between names. */
static void path_of(json_object *d, int64_t node, char *buf, size_t size)
{
	json_object *nodes = get(d, "nodes", json_type_array);
	json_object *funcs = get(d, "funcs", json_type_array);
	const char *names[64];
	size_t n = 0, len = 0;

	for (; node >= 0 && n < 64; node = at(nodes, 2 * node))
		names[n++] = str_at(d, at(funcs, 4 * at(nodes, 2 * node + 1)));
	buf[0] = 0;
	while (n--) {
		len += snprintf(buf + len, size - len, "%s%s", len ? ";" : "", names[n]);
		assert_true(len < size);
	}
}

/* Every stack of the data: path, weight, thread's pid and tid. */
static void expect_stack(json_object *d, size_t i, const char *path, uint64_t weight, int64_t pid,
			 int64_t tid)
{
	json_object *stacks = get(d, "stacks", json_type_array);
	json_object *threads = get(d, "threads", json_type_array);
	char buf[PATH_MAX_];
	int64_t t = at(stacks, 4 * i + 1);

	path_of(d, at(stacks, 4 * i), buf, sizeof(buf));
	assert_string_equal(buf, path);
	assert_int_equal(at(stacks, 4 * i + 2), weight);
	assert_int_equal(at(threads, 4 * t), pid);
	assert_int_equal(at(threads, 4 * t + 1), tid);
}

static void test_stacks_decode(void **state)
{
	struct profile *p = sample_profile();
	struct write_opts o = { 0 };
	char *page = render(p, &o);
	json_object *d = data_of(page);
	json_object *meta = get(d, "meta", json_type_object);

	(void)state;
	assert_int_equal(json_object_get_int(get(d, "version", json_type_int)), 1);
	assert_string_equal(json_object_get_string(get(meta, "mode", json_type_string)), "sample");
	assert_string_equal(json_object_get_string(get(meta, "unit", json_type_string)), "samples");
	assert_int_equal(json_object_get_int(get(meta, "freq", json_type_int)), 99);
	assert_string_equal(json_object_get_string(get(meta, "host", json_type_string)), "box");
	assert_int_equal(json_object_array_length(get(d, "stacks", json_type_array)), 3 * 4);
	expect_stack(d, 0, "app;main;work", 3, 10, 10);
	expect_stack(d, 1, "app;main;read;ksys_read_[k]", 2, 10, 11);
	expect_stack(d, 2, "other;main", 1, 20, 20);
	/* one call tree: app;main is one node for both threads */
	assert_int_equal(json_object_array_length(get(d, "nodes", json_type_array)), 2 * 7);
	json_object_put(d);
	free(page);
	profile__free(p);
}

/* --tids: roots are COMM-PID/TID, as in folded output. */
static void test_roots(void **state)
{
	struct profile *p = sample_profile();
	struct write_opts o = { .root = ROOT_TID };
	char *page = render(p, &o);
	json_object *d = data_of(page);

	(void)state;
	expect_stack(d, 0, "app-10/10;main;work", 3, 10, 10);
	expect_stack(d, 1, "app-10/11;main;read;ksys_read_[k]", 2, 10, 11);
	json_object_put(d);
	free(page);
	profile__free(p);
}

/* Events come by time: t0 and the deltas give each event's ts back. */
static void test_events_decode(void **state)
{
	static const struct {
		uint64_t ts;
		size_t stack;
	} want[] = {
		{ 5000 * MS, 0 }, { 5000 * MS, 1 }, { 5010 * MS, 1 },
		{ 5020 * MS, 0 }, { 5500 * MS, 2 }, { 6400 * MS + 7, 0 },
	};
	struct profile *p = sample_profile();
	struct write_opts o = { 0 };
	char *page = render(p, &o);
	json_object *d = data_of(page), *ev = get(d, "events", json_type_object);
	json_object *st = get(ev, "stack", json_type_array), *dt = get(ev, "dt", json_type_array);
	uint64_t t = strtoull(json_object_get_string(get(ev, "t0", json_type_string)), NULL, 10);
	json_object *unused;

	(void)state;
	assert_int_equal(json_object_get_int(get(ev, "n", json_type_int)), 6);
	assert_int_equal(json_object_array_length(st), 6);
	assert_false(json_object_object_get_ex(ev, "dur", &unused));  /* samples: not needed */
	assert_false(json_object_object_get_ex(ev, "lead", &unused)); /* no start known */
	for (size_t i = 0; i < 6; i++) {
		t += at(dt, i);
		assert_int_equal(t, want[i].ts);
		assert_int_equal(at(st, i), want[i].stack);
	}
	json_object_put(d);
	free(page);
	profile__free(p);
}

/* A capture that began 1.5 s before its first event: the page's times
 * (the heatmap's columns) count from the start, as the SVG heatmap's do. */
static void test_lead(void **state)
{
	struct profile *p = sample_profile();
	struct profile_meta m = *profile__meta(p);
	struct write_opts o = { 0 };
	char *page;
	json_object *d, *ev;

	(void)state;
	m.start_ns = 3500 * MS;
	assert_int_equal(profile__set_meta(p, &m), 0);
	page = render(p, &o);
	d = data_of(page);
	ev = get(d, "events", json_type_object);
	assert_int_equal(json_object_get_int64(get(ev, "lead", json_type_int)), 1500 * MS);
	json_object_put(d);
	free(page);
	profile__free(p);
}

/* --wall: the stacks of samples on the CPU are listed as such (their
 * events stand for the period before their time), the blocks' are not;
 * other profiles list none. */
static void test_wall_sampled(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS), *q = sample_profile();
	struct stack_owner a = owner(10, 10, "app");
	uint32_t main_ = frame(p, "main", FRAME_USER), work = frame(p, "work", FRAME_USER);
	uint32_t slp = frame(p, PROFILE_STATE_SLEEPING, FRAME_USER);
	uint32_t on[] = { main_, work }, off[] = { main_, slp };
	struct profile_meta m = { .cmdline = "flamebpf --wall",
				  .event = PROFILE_EVENT_WALL,
				  .kernel = "6.1",
				  .host = "box",
				  .losses = "",
				  .freq = 99,
				  .ncpus = 1 };
	struct write_opts o = { 0 };
	json_object *d, *sampled, *unused;
	char *page;

	(void)state;
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__add_stack(p, &a, off, 2, 30 * MS), 0);
	assert_int_equal(profile__add_stack(p, &a, on, 2, 10 * MS), 0);
	add_ev(p, &a, off, 2, 100 * MS, 30 * MS);
	add_ev(p, &a, on, 2, 140 * MS, 10 * MS);
	page = render(p, &o);
	d = data_of(page);
	sampled = get(d, "sampled", json_type_array);
	assert_int_equal(json_object_array_length(sampled), 1);
	assert_int_equal(at(sampled, 0), 1);
	json_object_put(d);
	free(page);
	page = render(q, &o);
	d = data_of(page);
	assert_false(json_object_object_get_ex(d, "sampled", &unused));
	json_object_put(d);
	free(page);
	profile__free(p);
	profile__free(q);
}

/* Uprobe mode: durations, and each call's time less its children's. */
static void test_call_self_times(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct stack_owner a = owner(1, 1, "t");
	uint32_t f = frame(p, "f", FRAME_USER), g = frame(p, "g", FRAME_USER);
	uint32_t sf[] = { f }, sg[] = { f, g };
	struct write_opts o = { 0 };
	char *page;
	json_object *d, *ev;

	(void)state;
	add_ev(p, &a, sf, 1, 1000, 100); /* f: 100 ns, g inside for 30 and 20 */
	add_ev(p, &a, sg, 2, 1010, 30);
	add_ev(p, &a, sg, 2, 1050, 20);
	add_ev(p, &a, sf, 1, 2000, 10); /* f again, alone */
	page = render(p, &o);
	d = data_of(page);
	ev = get(d, "events", json_type_object);
	assert_string_equal(json_object_get_string(get(get(d, "meta", json_type_object), "mode",
						       json_type_string)),
			    "trace");
	assert_int_equal(at(get(ev, "dur", json_type_array), 0), 100);
	assert_int_equal(at(get(ev, "self", json_type_array), 0), 50);
	assert_int_equal(at(get(ev, "self", json_type_array), 1), 30);
	assert_int_equal(at(get(ev, "self", json_type_array), 2), 20);
	assert_int_equal(at(get(ev, "self", json_type_array), 3), 10);
	assert_int_equal(at(get(ev, "dt", json_type_array), 3), 950);
	assert_false(json_object_object_get_ex(ev, "args", NULL)); /* none had any */
	json_object_put(d);
	free(page);
	profile__free(p);
}

/* Traced calls' arguments and returns, four values a call in time order:
 * numbers up to 2^53, hex strings beyond (JSON.parse would round them),
 * null for a return that never came. */
static void test_call_args(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct stack_owner a = owner(1, 1, "t");
	uint32_t f = frame(p, "f", FRAME_USER), sf[] = { f };
	struct profile_event late = {
		.ts = 2000, .dur = 10, .args = { 7, 0, 1ULL << 53 }, .ret = 3
	};
	struct profile_event early = { .ts = 1000,
				       .dur = 10,
				       .args = { (1ULL << 53) + 1, ~0ULL, 0 },
				       .flags = PROFILE_EVENT_UNFINISHED };
	static const char *const want[] = { "\"0x20000000000001\"",
					    "\"0xffffffffffffffff\"",
					    "0",
					    "null",
					    "7",
					    "0",
					    "9007199254740992",
					    "3" };
	struct write_opts o = { 0 };
	json_object *d, *args;
	char *page;

	(void)state;
	assert_int_equal(profile__add_event(p, &a, sf, 1, &late), 0);
	assert_int_equal(profile__add_event(p, &a, sf, 1, &early), 0);
	page = render(p, &o);
	d = data_of(page);
	args = get(get(d, "events", json_type_object), "args", json_type_array);
	assert_int_equal(json_object_array_length(args), 8);
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(json_object_to_json_string(json_object_array_get_idx(args, i)),
				    want[i]);
	json_object_put(d);
	free(page);
	profile__free(p);
}

/* A name may hold anything: it must neither end the script element nor
 * come back changed; bad UTF-8 becomes U+FFFD. */
static void test_hostile_names(void **state)
{
	static const char *const names[] = { "</script><script>alert(1)</script>",
					     "a\"b\\c<!--d&e>", "bad\xff" };
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct stack_owner a = owner(1, 1, "</SCRIPT>");
	struct write_opts o = { 0 };
	char *page, buf[PATH_MAX_];
	const char *data;
	json_object *d;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		uint32_t fr = frame(p, names[i], FRAME_USER);

		add_ev(p, &a, &fr, 1, 100 + i, 1);
		assert_int_equal(profile__add_stack(p, &a, &fr, 1, 1), 0);
	}
	page = render(p, &o);
	data = strstr(page, DATA_OPEN) + strlen(DATA_OPEN);
	/* not one '<' up to the element's end: every one is escaped */
	assert_null(memchr(data, '<', strstr(data, DATA_CLOSE) - data));
	d = data_of(page);
	path_of(d, at(get(d, "stacks", json_type_array), 0), buf, sizeof(buf));
	assert_string_equal(buf, "</SCRIPT>;</script><script>alert(1)</script>");
	path_of(d, at(get(d, "stacks", json_type_array), 4), buf, sizeof(buf));
	assert_string_equal(buf, "</SCRIPT>;a\"b\\c<!--d&e>");
	path_of(d, at(get(d, "stacks", json_type_array), 8), buf, sizeof(buf));
	assert_string_equal(buf, "</SCRIPT>;bad\xef\xbf\xbd");
	json_object_put(d);
	free(page);
	profile__free(p);
}

/* Each name's colour is the SVG's (palette.c), by name and kind. */
static void test_colours(void **state)
{
	struct profile *p = sample_profile();
	struct write_opts o = { 0 };
	char *page = render(p, &o);
	json_object *d = data_of(page), *funcs = get(d, "funcs", json_type_array);
	size_t n = json_object_array_length(funcs) / 4, kernel = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const char *name = str_at(d, at(funcs, 4 * i));
		enum palette_role kind = at(funcs, 4 * i + 2);

		kernel += kind == PALETTE_KERNEL;
		assert_int_equal(at(funcs, 4 * i + 3), palette__rgb24(name, kind));
	}
	assert_int_equal(kernel, 1);
	json_object_put(d);
	free(page);
	profile__free(p);
}

/* Self-contained: no address to fetch, and a policy that forbids it. */
static void test_offline(void **state)
{
	struct profile *p = sample_profile();
	struct write_opts o = { 0 };
	char *page = render(p, &o);

	(void)state;
	assert_non_null(strstr(page, "Content-Security-Policy"));
	assert_non_null(strstr(page, "default-src 'none'"));
	assert_null(strstr(page, "http:"));
	assert_null(strstr(page, "https:"));
	assert_null(strstr(page, " src="));
	assert_non_null(strstr(page, "window.flamebpfReport"));
	free(page);
	profile__free(p);
}

/* The script checked by node, as a file of its own. */
static void node_check(const char *js)
{
	char path[] = "/tmp/test_out_html.XXXXXX.js", cmd[128];
	int fd = mkstemps(path, 3);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, js, strlen(js)), (ssize_t)strlen(js));
	close(fd);
	snprintf(cmd, sizeof(cmd), "node --check %s", path);
	if (system(cmd))
		fail_msg("node --check failed on %s", path);
	unlink(path);
}

/* The page: the style, the data, then the script, each whole and once. */
static void test_page_layout(void **state)
{
	struct profile *p = sample_profile();
	struct write_opts o = { 0 };
	char *page = render(p, &o);
	const char *css = strstr(page, html_css), *data = strstr(page, DATA_OPEN);
	const char *js = strstr(page, html_js);

	(void)state;
	assert_true(!strncmp(page, "<!DOCTYPE html>\n", 16));
	assert_non_null(css);
	assert_non_null(data);
	assert_non_null(js);
	assert_true(css < data && data < js);
	assert_null(strstr(js + 1, html_js));
	assert_non_null(strstr(js, "</script>\n</body>\n</html>\n"));
	if (access("/usr/bin/node", X_OK))
		print_message("node is not installed: the script's syntax is not checked\n");
	else
		node_check(html_js);
	free(page);
	profile__free(p);
}

static void test_needs_events(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct stack_owner a = owner(1, 1, "t");
	uint32_t fr = frame(p, "f", FRAME_USER);
	struct write_opts o = { 0 };
	FILE *f = fopen("/dev/null", "w");
	enum out_format fmt;

	(void)state;
	assert_int_equal(sink__parse("html", &fmt), 0);
	assert_int_equal(fmt, FORMAT_HTML);
	assert_int_equal(sink__from_path("run.html"), FORMAT_HTML);
	assert_int_equal(sink__from_path("run.htm"), FORMAT_HTML);
	assert_true(sink__needs_events(FORMAT_HTML, &o));
	assert_int_equal(profile__add_stack(p, &a, &fr, 1, 5), 0);
	assert_int_equal(sink__write(FORMAT_HTML, p, &o, f), -ENODATA);
	fclose(f);
	profile__free(p);
}

static void test_write_error(void **state)
{
	struct profile *p = sample_profile();
	struct write_opts o = { 0 };
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		skip();
	assert_int_equal(html__write(p, &o, f), -EIO);
	fclose(f);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stacks_decode),
		cmocka_unit_test(test_roots),
		cmocka_unit_test(test_lead),
		cmocka_unit_test(test_events_decode),
		cmocka_unit_test(test_wall_sampled),
		cmocka_unit_test(test_call_self_times),
		cmocka_unit_test(test_call_args),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_colours),
		cmocka_unit_test(test_offline),
		cmocka_unit_test(test_page_layout),
		cmocka_unit_test(test_needs_events),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests_name("out_html", tests, NULL, NULL);
}
