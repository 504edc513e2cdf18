// SPDX-License-Identifier: GPL-2.0
/* Unit tests of src/formats/out_svg.c: small profiles drawn into memory, checked
 * with xmllint (well-formed XML), node (the script parses) and by reading
 * back the frames' geometry and colours. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/out_svg.h"
#include "gen/svg_js.h"
#include "profile/profile.h"
#include "util.h"

#define MAX_FRAMES 16

/* A frame as drawn: its <g>'s fg:x / fg:w, its rect and fill. */
struct drawn {
	uint64_t fx, fw;
	double x, y, w;
	unsigned int r, g, b;
};

static uint32_t frame(struct profile *p, const char *name, enum frame_kind kind, uint64_t addr)
{
	struct frame f = { .name = name,
			   .module = kind == FRAME_KERNEL ? "[kernel]" : "app",
			   .kind = kind,
			   .addr = addr };
	uint32_t id;

	assert_int_equal(profile__findnew_frame_at(p, &f, &id), 0);
	return id;
}

static uint32_t ufr(struct profile *p, const char *name)
{
	return frame(p, name, FRAME_USER, 0);
}

static void add(struct profile *p, const char *comm, const uint32_t *frames, uint32_t n,
		uint64_t weight)
{
	struct stack_owner who = { .pid = 7, .tid = 8, .comm = comm, .tcomm = comm };

	assert_int_equal(profile__add_stack(p, &who, frames, n, weight), 0);
}

static char *render_opts(const struct profile *p, const struct write_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(svg__write(p, o, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

static char *render(const struct profile *p)
{
	struct write_opts o = { .root = ROOT_COMM };

	return render_opts(p, &o);
}

/* Runs "cmd FILE", FILE holding text: fails the test with what the command
 * printed on stderr unless it exits 0. */
static void run_on(const char *cmd, const char *text, const char *suffix)
{
	char path[64], out[64] = "/tmp/test_out_svg.err.XXXXXX", line[512], errs[4096] = "";
	int fd, status;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/test_out_svg.XXXXXX%s", suffix);
	fd = mkstemps(path, strlen(suffix));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	close(u_temp_file(out, "", 0));
	snprintf(line, sizeof(line), "%s %s >%s 2>&1", cmd, path, out);
	status = system(line);
	f = fopen(out, "r");
	assert_non_null(f);
	errs[fread(errs, 1, sizeof(errs) - 1, f)] = '\0';
	fclose(f);
	unlink(out);
	if (status)
		fail_msg("'%s' failed (%d) on %s:\n%s", cmd, status, path, errs);
	unlink(path);
}

static void expect_wellformed(const char *svg)
{
	if (access("/usr/bin/xmllint", X_OK))
		fail_msg("xmllint is not installed: apt-get install libxml2-utils");
	run_on("xmllint --noout", svg, ".svg");
}

/* The frames whose title starts with name (as escaped in the SVG) and " (",
 * in document order. Returns how many. */
static int find(const char *svg, const char *name, struct drawn *out, int max)
{
	int n = 0;

	for (const char *l = svg; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		struct drawn d;
		int at = 0;
		const char *rect;

		if (sscanf(l, "<g fg:x=\"%" SCNu64 "\" fg:w=\"%" SCNu64 "\"><title>%n", &d.fx,
			   &d.fw, &at) != 2 ||
		    !at || strncmp(l + at, name, strlen(name)) ||
		    strncmp(l + at + strlen(name), " (", 2))
			continue;
		rect = strstr(l, "<rect ");
		assert_non_null(rect);
		assert_int_equal(sscanf(rect,
					"<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"15\" "
					"fill=\"rgb(%u,%u,%u)\"",
					&d.x, &d.y, &d.w, &d.r, &d.g, &d.b),
				 6);
		assert_true(n < max);
		out[n++] = d;
	}
	return n;
}

static struct drawn find_one(const char *svg, const char *name)
{
	struct drawn d[MAX_FRAMES];

	if (find(svg, name, d, MAX_FRAMES) != 1)
		fail_msg("expected one frame '%s' in:\n%s", name, svg);
	return d[0];
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* main -> a (600), main -> b (300), main (100): the basic profile. */
static struct profile *basic(void)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	uint32_t s[2];

	assert_non_null(p);
	s[0] = ufr(p, "main");
	s[1] = ufr(p, "a");
	add(p, "app", s, 2, 600);
	s[1] = ufr(p, "b");
	add(p, "app", s, 2, 300);
	add(p, "app", s, 1, 100);
	return p;
}

static void test_wellformed_with_script(void **state)
{
	struct profile *p = basic();
	char *svg = render(p), *js;
	const char *cdata;

	(void)state;
	expect_wellformed(svg);
	assert_true(!strncmp(svg, "<?xml ", 6));
	assert_non_null(strstr(svg, "</svg>\n"));
	cdata = strstr(svg, "<script type=\"text/ecmascript\"><![CDATA[\n");
	assert_non_null(cdata);
	assert_ptr_equal(strstr(svg, svg_js), strchr(cdata, '\n') + 1);
	assert_int_equal(count(svg, "]]>"), 1);
	if (access("/usr/bin/node", X_OK)) {
		print_message("node is not installed: the script's syntax is not checked\n");
	} else {
		js = strndup(svg_js, sizeof(svg_js) - 1);
		run_on("node --check", js, ".js");
		free(js);
	}
	free(svg);
	profile__free(p);
}

/* The script run by node against a small DOM (tests/unit/svg_dom.js):
 * zoom, reset, search and the URL state do what a user expects. */
static void test_script_behaviour(void **state)
{
	struct profile *p = basic();
	char *svg = render(p), cmd[PATH_MAX + 16], dir[PATH_MAX];
	const char *slash = strrchr(__FILE__, '/');

	(void)state;
	if (access("/usr/bin/node", X_OK)) {
		print_message("SKIP: node is not installed\n");
		free(svg);
		profile__free(p);
		skip();
	}
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - __FILE__) : 1,
		 slash ? __FILE__ : ".");
	snprintf(cmd, sizeof(cmd), "%s/svg_dom.js", dir);
	if (access(cmd, R_OK))
		fail_msg("cannot read %s: run the tests from the repository root", cmd);
	snprintf(cmd, sizeof(cmd), "node %s/svg_dom.js", dir);
	run_on(cmd, svg, ".svg");
	free(svg);
	profile__free(p);
}

/* Widths follow the inclusive weights; siblings sorted by name. */
static void test_widths(void **state)
{
	struct profile *p = basic();
	char *svg = render(p);
	struct drawn all = find_one(svg, "all"), app = find_one(svg, "app");
	struct drawn m = find_one(svg, "main"), a = find_one(svg, "a"), b = find_one(svg, "b");

	(void)state;
	assert_true(all.fw == 1000 && app.fw == 1000 && m.fw == 1000);
	assert_true(a.fx == 0 && a.fw == 600 && b.fx == 600 && b.fw == 300);
	assert_float_equal(all.w, 1180.0, 0.05);
	assert_float_equal(a.w, 708.0, 0.05);
	assert_float_equal(b.w, 354.0, 0.05);
	assert_float_equal(a.x, 10.0, 0.05);
	assert_float_equal(b.x, 718.0, 0.05);
	assert_float_equal(a.w / b.w, 2.0, 0.001);
	assert_true(all.y > app.y && app.y > m.y && m.y > a.y && a.y == b.y);
	assert_non_null(strstr(svg, "<title>a (600 samples, 60.00%)</title>"));
	assert_non_null(strstr(svg, "<title>all (1,000 samples, 100.00%)</title>"));
	assert_non_null(strstr(svg, ">Flame Graph: CPU samples</text>"));
	free(svg);
	profile__free(p);
}

/* Frames are interned per address: the graph merges them by name, and keeps
 * a kernel frame apart from a user frame of the same name. */
static void test_merge_by_name(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	uint32_t s[2];
	char *svg;

	(void)state;
	s[0] = ufr(p, "main");
	s[1] = frame(p, "foo", FRAME_USER, 0x1000);
	add(p, "app", s, 2, 3);
	s[1] = frame(p, "foo", FRAME_USER, 0x2000);
	add(p, "app", s, 2, 4);
	s[1] = frame(p, "foo", FRAME_KERNEL, 0xffff0000);
	add(p, "app", s, 2, 5);
	svg = render(p);
	assert_int_equal(find_one(svg, "foo").fw, 7);
	assert_int_equal(find_one(svg, "foo_[k]").fw, 5);
	free(svg);
	profile__free(p);
}

/* 0.1 px of 1180 is 1/11800 of the total: narrower frames go, with their
 * callees, and the comment says how many. */
static void test_pruning(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	uint32_t s[3];
	struct drawn d[MAX_FRAMES];
	char *svg;

	(void)state;
	s[0] = ufr(p, "main");
	s[1] = ufr(p, "big");
	add(p, "app", s, 2, 1000000);
	s[1] = ufr(p, "a_tiny");
	s[2] = ufr(p, "tinier");
	add(p, "app", s, 3, 80);
	s[1] = ufr(p, "small");
	add(p, "app", s, 2, 90);
	svg = render(p);
	expect_wellformed(svg);
	assert_int_equal(find(svg, "a_tiny", d, MAX_FRAMES), 0);
	assert_int_equal(find(svg, "tinier", d, MAX_FRAMES), 0);
	/* what was pruned keeps its place: the siblings after it do not move */
	assert_int_equal(find_one(svg, "big").fx, 80);
	assert_int_equal(find_one(svg, "small").fx, 1000080);
	assert_int_equal(find_one(svg, "small").fw, 90);
	assert_non_null(strstr(svg, "5 frames drawn; 2 frames narrower than 0.1 px"));
	free(svg);
	profile__free(p);
}

static const char *const hostile[] = {
	"q\"uote's",
	"back\\slash\\",
	"<script>alert(1)</script>",
	"a&b&amp;",
	"end]]>cdata",
	"ctl\x01\x1b\x7f\n",
	"bad\xff\xfe utf8 \xc3(",
	"cut\xe2\x82",
	"nonchar\xef\xbf\xbe\xef\xbf\xbf",
	"c1\xc2\x85",
	"--comment-->",
	"é€𝄞 fine",
};

/* Every name, comm, title and meta string, however hostile, still makes
 * well-formed XML and cannot end the script's CDATA section. */
static void test_hostile_names(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct profile_meta m = { .cmdline = "flamebpf -f '<]]>&\"\x02'",
				  .event = "x<y",
				  .kernel = "\xff",
				  .losses = "a&b" };
	struct write_opts o = { .root = ROOT_TID, .title = "T<i>t]]>le\x03\xc3" };
	size_t n = sizeof(hostile) / sizeof(hostile[0]);
	uint32_t s[16];
	char *svg;

	(void)state;
	for (size_t i = 0; i < n; i++)
		s[i] = frame(p, hostile[i], i % 2 ? FRAME_KERNEL : FRAME_USER, 0);
	for (size_t i = 1; i <= n; i++)
		add(p, hostile[i - 1], s, i, i);
	assert_int_equal(profile__set_meta(p, &m), 0);
	svg = render_opts(p, &o);
	expect_wellformed(svg);
	assert_int_equal(count(svg, "]]>"), 1);
	assert_non_null(strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(svg, "q&quot;uote&apos;s"));
	assert_non_null(strstr(svg, "end]]&gt;cdata"));
	assert_non_null(strstr(svg, "bad\xef\xbf\xbd\xef\xbf\xbd utf8 \xef\xbf\xbd("));
	assert_non_null(strstr(svg, "é€𝄞 fine"));
	assert_null(strstr(svg, "\xef\xbf\xbe"));
	free(svg);
	profile__free(p);
}

/* Labels are cut to fit with "..", between characters. */
static void test_label_truncated(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	char name[400] = "";
	uint32_t s[2];
	const char *label, *want = "é&lt;é&lt;é&lt;é&lt;é&lt;é&lt;é..</text>";
	char *svg;

	(void)state;
	for (int i = 0; i < 100; i++)
		strcat(name, "\xc3\xa9<");
	s[0] = ufr(p, "main");
	s[1] = ufr(p, name);
	add(p, "app", s, 2, 1);
	add(p, "app", s, 1, 9);
	svg = render(p);
	expect_wellformed(svg);
	/* 118 px: (118 - 6) / 7.08 = 15 characters, the last two "..". */
	label = strstr(svg, "\">\xc3\xa9&lt;\xc3\xa9");
	assert_non_null(label);
	assert_int_equal(strncmp(label + 2, want, strlen(want)), 0);
	free(svg);
	profile__free(p);
}

static bool warm(struct drawn d)
{
	return d.r >= 205 && d.b <= 55;
}

static bool cool(struct drawn d)
{
	return d.r <= 100 && d.g >= 175 && d.b >= 165;
}

/* User frames warm, kernel frames aqua, the same name the same colour
 * whatever else the profile holds or the order it came in. */
static void test_colours(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES), *q = profile__new(UNIT_SAMPLES);
	struct drawn w1, w2, m1, m2;
	uint32_t s[3];
	char *one, *two;

	(void)state;
	s[0] = ufr(p, "main");
	s[1] = frame(p, "work", FRAME_USER, 1);
	s[2] = frame(p, "work", FRAME_KERNEL, 2);
	add(p, "app", s, 3, 10);
	s[0] = frame(q, "other", FRAME_USER, 9);
	add(q, "zzz", s, 1, 50);
	s[0] = frame(q, "main", FRAME_USER, 5);
	s[1] = frame(q, "work", FRAME_USER, 7);
	add(q, "app", s, 2, 1);
	one = render(p);
	two = render(q);
	assert_true(warm(find_one(one, "work")) && cool(find_one(one, "work_[k]")));
	w1 = find_one(one, "work");
	w2 = find_one(two, "work");
	m1 = find_one(one, "main");
	m2 = find_one(two, "main");
	assert_true(w1.r == w2.r && w1.g == w2.g && w1.b == w2.b);
	assert_true(m1.r == m2.r && m1.g == m2.g && m1.b == m2.b);
	assert_true(w1.r != m1.r || w1.g != m1.g || w1.b != m1.b);
	free(one);
	free(two);
	profile__free(p);
	profile__free(q);
}

/* The off-CPU states have colours of their own, apart from every warm
 * user frame and aqua kernel frame: asleep blue, preempted pink. */
static void test_state_colours(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct drawn asleep, preempted;
	uint32_t s[3];
	char *svg;

	(void)state;
	s[0] = ufr(p, "main");
	s[1] = frame(p, "read", FRAME_KERNEL, 1);
	s[2] = ufr(p, PROFILE_STATE_SLEEPING);
	add(p, "app", s, 3, 30);
	s[2] = ufr(p, PROFILE_STATE_PREEMPTED);
	add(p, "app", s, 3, 10);
	svg = render(p);
	asleep = find_one(svg, "[sleeping]");
	preempted = find_one(svg, "[preempted]");
	assert_true(!warm(asleep) && !cool(asleep) && asleep.b > asleep.r);
	assert_true(!warm(preempted) && !cool(preempted) && preempted.r > preempted.g);
	assert_true(asleep.r != preempted.r);
	free(svg);
	profile__free(p);
}

/* The same stacks, whatever their order and addresses, draw the same SVG. */
static void test_deterministic(void **state)
{
	struct profile *p = basic(), *q = profile__new(UNIT_SAMPLES);
	uint32_t s[2];
	char *one, *two;

	(void)state;
	s[0] = frame(q, "main", FRAME_USER, 0x10);
	add(q, "app", s, 1, 100);
	s[1] = frame(q, "b", FRAME_USER, 0x20);
	add(q, "app", s, 2, 300);
	s[1] = frame(q, "a", FRAME_USER, 0x30);
	add(q, "app", s, 2, 200);
	s[1] = frame(q, "a", FRAME_USER, 0x40);
	add(q, "app", s, 2, 400);
	one = render(p);
	two = render(q);
	assert_string_equal(one, two);
	free(one);
	free(two);
	profile__free(p);
	profile__free(q);
}

static void test_root_styles(void **state)
{
	struct profile *p = basic();
	struct write_opts o = { .root = ROOT_TID };
	char *svg = render_opts(p, &o);

	(void)state;
	assert_int_equal(find_one(svg, "app-7/8").fw, 1000);
	free(svg);
	o.root = ROOT_PID;
	svg = render_opts(p, &o);
	assert_int_equal(find_one(svg, "app-7").fw, 1000);
	free(svg);
	profile__free(p);
}

static void test_title_and_subtitle(void **state)
{
	struct profile *p = basic();
	struct profile_meta m = { .cmdline = "flamebpf -F 99 -p 1",
				  .event = "cpu-clock",
				  .kernel = "6.1.0",
				  .losses = "",
				  .freq = 99,
				  .ncpus = 4,
				  .secs = 2 };
	struct write_opts o = { .title = "My & title" };
	char *svg;

	(void)state;
	assert_int_equal(profile__set_meta(p, &m), 0);
	svg = render(p);
	assert_non_null(strstr(svg, ">Flame Graph: cpu-clock samples</text>"));
	assert_non_null(
		strstr(svg, ">flamebpf -F 99 -p 1, 99 Hz, 2.00 s, 4 CPUs, Linux 6.1.0</text>"));
	free(svg);
	svg = render_opts(p, &o);
	assert_non_null(strstr(svg, ">My &amp; title</text>"));
	free(svg);
	profile__free(p);
}

static void add_event(struct profile *p, uint32_t tid, const uint32_t *frames, uint32_t n,
		      uint64_t ts, uint64_t dur)
{
	struct stack_owner who = { 7, tid, "app", "app" };
	struct profile_event ev = { .ts = ts, .dur = dur };

	assert_int_equal(profile__add_event(p, &who, frames, n, &ev), 0);
}

/* Samples in time order: a run of one thread merges, a change of frame or
 * of thread starts a new frame; events given out of order. */
static void test_chart_samples(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct write_opts o = { .flamechart = true };
	uint32_t a = ufr(p, "a"), b = ufr(p, "b");
	struct drawn d[MAX_FRAMES];
	char *svg;

	(void)state;
	add_event(p, 1, &b, 1, 300, 10);
	add_event(p, 1, &a, 1, 100, 10);
	add_event(p, 2, &a, 1, 50, 10);
	add_event(p, 1, &a, 1, 400, 10);
	add_event(p, 1, &a, 1, 200, 10);
	svg = render_opts(p, &o);
	expect_wellformed(svg);
	assert_non_null(strstr(svg, ">Flame Chart: CPU samples</text>"));
	assert_int_equal(find(svg, "a", d, MAX_FRAMES), 3);
	assert_true(d[0].fx == 0 && d[0].fw == 2 && d[1].fx == 3 && d[1].fw == 1);
	assert_true(d[2].fx == 4 && d[2].fw == 1);
	assert_true(d[0].x < d[1].x && d[1].x < d[2].x);
	assert_true(find_one(svg, "b").fx == 2);
	assert_int_equal(find(svg, "app", d, MAX_FRAMES), 2);
	assert_true(d[0].fx == 0 && d[0].fw == 4 && d[1].fx == 4 && d[1].fw == 1);
	free(svg);
	profile__free(p);
}

/* Calls: main [0,10ms) with a [1,4) holding b [2,3), and a again [5,6): x
 * follows time, the repeated call is a second frame. */
static void test_chart_calls(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	struct write_opts o = { .flamechart = true };
	uint32_t s[3] = { ufr(p, "main"), ufr(p, "a"), ufr(p, "b") };
	const uint64_t ms = 1000000;
	struct drawn d[MAX_FRAMES];
	char *svg;

	(void)state;
	add_event(p, 1, s, 3, 2 * ms, ms);
	add_event(p, 1, s, 2, 1 * ms, 3 * ms);
	add_event(p, 1, s, 2, 5 * ms, ms);
	add_event(p, 1, s, 1, 0, 10 * ms);
	svg = render_opts(p, &o);
	expect_wellformed(svg);
	assert_int_equal(find_one(svg, "main").fw, 10 * ms);
	assert_int_equal(find(svg, "a", d, MAX_FRAMES), 2);
	assert_true(d[0].fx == 1 * ms && d[0].fw == 3 * ms && d[1].fx == 5 * ms && d[1].fw == ms);
	assert_true(find_one(svg, "b").fx == 2 * ms);
	assert_non_null(strstr(svg, "<title>main (10.0 ms, 100.00%)</title>"));
	assert_non_null(strstr(svg, "<title>b (1.00 ms, 10.00%)</title>"));
	assert_non_null(strstr(svg, ">Flame Chart: wall time of traced calls</text>"));
	free(svg);
	profile__free(p);
}

static void test_chart_needs_events(void **state)
{
	struct profile *p = basic();
	struct write_opts o = { .flamechart = true };
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(svg__write(p, &o, f), -ENODATA);
	fclose(f);
	profile__free(p);
}

static void test_write_error(void **state)
{
	struct profile *p = basic();
	struct write_opts o = {};
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(svg__write(p, &o, f), -EIO);
	fclose(f);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wellformed_with_script),
		cmocka_unit_test(test_script_behaviour),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_merge_by_name),
		cmocka_unit_test(test_pruning),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_label_truncated),
		cmocka_unit_test(test_colours),
		cmocka_unit_test(test_state_colours),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_root_styles),
		cmocka_unit_test(test_title_and_subtitle),
		cmocka_unit_test(test_chart_samples),
		cmocka_unit_test(test_chart_calls),
		cmocka_unit_test(test_chart_needs_events),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
