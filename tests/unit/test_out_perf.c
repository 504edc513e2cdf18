// SPDX-License-Identifier: GPL-2.0
/* Unit tests of src/formats/out_perf.c: small profiles written to memory and
 * compared with the exact text `perf script` prints; every line is then read
 * back the way perf-script readers (stackcollapse-perf.pl) read it, with our
 * own POSIX patterns: record headers, frame lines, blank separators, and
 * symbol names recovered by stripping one trailing "+0xOFF".
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/out_perf.h"
#include "profile/profile.h"

/* "COMM PID/TID [CPU] SECS.USECS: PERIOD EVENT: " */
#define HEADER_RE                                                                                  \
	"^([^[:space:]].*[^[:space:]])[[:space:]]+([0-9]+)/([0-9]+)[[:space:]]+\\[[0-9]{3,}\\] +"  \
	"[0-9]+\\.[0-9]{6}: +([0-9]+) ([^[:space:]].*): $"
/* "\tADDR SYMBOL (DSO)", the DSO without spaces */
#define FRAME_RE  "^\t *([0-9a-f]+) (.+) \\(([^[:space:]]*)\\)$"
#define OFFSET_RE "\\+0x[0-9a-f]+$"

struct patterns {
	regex_t header, frame, offset;
};

static struct patterns pat;

static int setup(void **state)
{
	(void)state;
	if (regcomp(&pat.header, HEADER_RE, REG_EXTENDED) ||
	    regcomp(&pat.frame, FRAME_RE, REG_EXTENDED) ||
	    regcomp(&pat.offset, OFFSET_RE, REG_EXTENDED))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	regfree(&pat.header);
	regfree(&pat.frame);
	regfree(&pat.offset);
	return 0;
}

/* ---- building profiles ---- */

static uint32_t fr(struct profile *p, const char *name, uint64_t addr, uint64_t off,
		   const char *dso, enum frame_kind kind)
{
	struct frame f = {
		.name = name, .module = "", .kind = kind, .addr = addr, .sym_off = off, .dso = dso
	};
	uint32_t id;

	assert_int_equal(profile__findnew_frame_at(p, &f, &id), 0);
	return id;
}

static void add_ev(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		   const uint32_t *frames, uint32_t n, uint32_t cpu, uint64_t ts, uint64_t dur)
{
	struct stack_owner who = { .pid = pid, .tid = tid, .comm = comm, .tcomm = comm };
	struct profile_event ev = { .cpu = cpu, .ts = ts, .dur = dur };

	assert_int_equal(profile__add_event(p, &who, frames, n, &ev), 0);
}

static char *render(const struct profile *p)
{
	struct write_opts o = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(perf__write(p, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

static void expect_text(const struct profile *p, const char *want)
{
	char *got = render(p);

	if (strcmp(got, want))
		fail_msg("--- got\n%s--- expected\n%s---", got, want);
	free(got);
}

/* ---- reading it back ---- */

struct record {
	char comm[64], event[64];
	unsigned long pid, tid;
	char names[8][64]; /* leaf first, each with one "+0xOFF" stripped */
	char dsos[8][64];
	size_t n;
};

static void copy_match(char *dst, size_t len, const char *line, const regmatch_t *m)
{
	size_t n = (size_t)(m->rm_eo - m->rm_so);

	assert_true(n < len);
	memcpy(dst, line + m->rm_so, n);
	dst[n] = '\0';
}

static void read_header(const char *line, struct record *r)
{
	regmatch_t m[6];

	if (regexec(&pat.header, line, 6, m, 0))
		fail_msg("not a record header: '%s'", line);
	copy_match(r->comm, sizeof(r->comm), line, &m[1]);
	r->pid = strtoul(line + m[2].rm_so, NULL, 10);
	r->tid = strtoul(line + m[3].rm_so, NULL, 10);
	copy_match(r->event, sizeof(r->event), line, &m[5]);
}

static void read_frame(const char *line, struct record *r)
{
	regmatch_t m[4], off;
	char *name;

	if (regexec(&pat.frame, line, 4, m, 0))
		fail_msg("not a frame line: '%s'", line);
	assert_true(r->n < 8);
	name = r->names[r->n];
	copy_match(name, sizeof(r->names[0]), line, &m[2]);
	if (!regexec(&pat.offset, name, 1, &off, 0))
		name[off.rm_so] = '\0';
	copy_match(r->dsos[r->n], sizeof(r->dsos[0]), line, &m[3]);
	r->n++;
}

/* Splits TEXT into records: a header, frame lines, a blank line each. */
static size_t read_records(char *text, struct record *out, size_t max)
{
	size_t n = 0;
	bool in_record = false;

	assert_true(strlen(text) >= 2 && !strcmp(text + strlen(text) - 2, "\n\n"));
	assert_true(text[0] != '#');
	for (char *line = text, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		assert_non_null(end);
		*end = '\0';
		if (!*line) {
			assert_true(in_record); /* no blank line but after a record */
			in_record = false;
		} else if (!in_record) {
			assert_true(n < max);
			memset(&out[n], 0, sizeof(out[n]));
			read_header(line, &out[n++]);
			in_record = true;
		} else {
			read_frame(line, &out[n - 1]);
		}
	}
	assert_false(in_record);
	return n;
}

/* ---- sampling mode ---- */

static struct profile *sample_profile(const char *event)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct profile_meta m = { .event = event, .freq = 99 };
	uint32_t st[5];

	assert_non_null(p);
	st[0] = fr(p, "main", 0x55d0c0de1234, 0x34, "/usr/bin/webapp", FRAME_USER);
	st[1] = fr(p, "libfoo.so+0x1a2b", 0x7f0000001a2b, 0, "/lib/libfoo.so", FRAME_USER);
	st[2] = fr(p, "read", 0xf82ad, 0xd, "/usr/lib/x86_64-linux-gnu/libc.so.6", FRAME_USER);
	st[3] = fr(p, "entry_SYSCALL_64", 0xffffffff81000130, 0x76, "[kernel.kallsyms]",
		   FRAME_KERNEL);
	st[4] = fr(p, "do_syscall_64", 0xffffffff821ecc26, 0x46, "", FRAME_KERNEL);
	add_ev(p, 1234, 1235, "Web Content", st, 5, 1, 12345678901234ULL, 10101010);
	add_ev(p, 1234, 1235, "Web Content", st, 2, 1, 12345688902244ULL, 10101010);
	add_ev(p, 7, 7, "sh", st, 3, 12, 5, 10101010); /* first in time */
	assert_int_equal(profile__set_meta(p, &m), 0);
	return p;
}

static void test_sample_text(void **state)
{
	struct profile *p = sample_profile("cpu-clock");

	(void)state;
	expect_text(p, "sh     7/7     [012]     0.000000:   10101010 cpu-clock: \n"
		       "\t           f82ad read+0xd (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		       "\t    7f0000001a2b libfoo.so+0x1a2b+0x0 (/lib/libfoo.so)\n"
		       "\t    55d0c0de1234 main+0x34 (/usr/bin/webapp)\n"
		       "\n"
		       "Web Content  1234/1235  [001] 12345.678901:   10101010 cpu-clock: \n"
		       "\tffffffff821ecc26 do_syscall_64+0x46 ([kernel.kallsyms])\n"
		       "\tffffffff81000130 entry_SYSCALL_64+0x76 ([kernel.kallsyms])\n"
		       "\t           f82ad read+0xd (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		       "\t    7f0000001a2b libfoo.so+0x1a2b+0x0 (/lib/libfoo.so)\n"
		       "\t    55d0c0de1234 main+0x34 (/usr/bin/webapp)\n"
		       "\n"
		       "Web Content  1234/1235  [001] 12345.688902:   10101010 cpu-clock: \n"
		       "\t    7f0000001a2b libfoo.so+0x1a2b+0x0 (/lib/libfoo.so)\n"
		       "\t    55d0c0de1234 main+0x34 (/usr/bin/webapp)\n"
		       "\n");
	profile__free(p);
}

/* Without an event name the event is cpu-clock; otherwise the one named. */
static void test_event_name(void **state)
{
	struct profile *p = sample_profile(""), *q = sample_profile("cycles");
	char *a = render(p), *b = render(q);

	(void)state;
	assert_non_null(strstr(a, ":   10101010 cpu-clock: \n"));
	assert_null(strstr(b, "cpu-clock"));
	assert_non_null(strstr(b, ":   10101010 cycles: \n"));
	free(a);
	free(b);
	profile__free(p);
	profile__free(q);
}

/* A probe's hit (-f usdt:): its arguments after the event, named as perf
 * names an SDT event's fields (arg1 first); other records end at the event. */
static void test_hit_args(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct stack_owner who = { .pid = 7, .tid = 7, .comm = "app", .tcomm = "app" };
	uint32_t s[] = { fr(p, "main", 0x1000, 0x10, "/app", FRAME_USER) };
	struct profile_event hit = { .ts = 2000000000,
				     .dur = 1000,
				     .args = { 5, UINT64_MAX, 0 },
				     .flags = PROFILE_EVENT_INSTANT },
			     sample = { .ts = 2000001000, .dur = 1000 };
	struct profile_meta meta = { .event = "work:tick", .cmdline = "", .kernel = "", .host = "",
				     .losses = "" };
	char *text;

	(void)state;
	assert_int_equal(profile__set_meta(p, &meta), 0);
	assert_int_equal(profile__add_event(p, &who, s, 1, &hit), 0);
	assert_int_equal(profile__add_event(p, &who, s, 1, &sample), 0);
	text = render(p);
	assert_non_null(
		strstr(text, " work:tick: arg1=5 arg2=18446744073709551615 arg3=0\n\t"));
	assert_non_null(strstr(text, " work:tick: \n\t"));
	free(text);
	profile__free(p);
}

/* --alloc: an allocation's bytes are its period, and the event's name is
 * one word, as perf's are (a space would read as period and event). */
static void test_alloc_weights(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct profile_meta m = { .event = "bytes allocated",
				  .period = 1,
				  .alloc = PROFILE_ALLOC_TOTAL };
	struct stack_owner who = { .pid = 5, .tid = 5, .comm = "app", .tcomm = "app" };
	struct profile_event ev = { .cpu = 0, .ts = 2000000000ULL, .dur = 1000, .weight = 4096 };
	uint32_t f = fr(p, "malloc", 0x1000, 0, "/usr/lib/libc.so.6", FRAME_USER);
	char *text;

	(void)state;
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__add_event(p, &who, &f, 1, &ev), 0);
	text = render(p);
	assert_non_null(strstr(text, "2.000000:       4096 bytes-allocated: \n"));
	free(text);
	profile__free(p);
}

/* Read back as stackcollapse-perf.pl reads it: comm (with its space), ids,
 * frames leaf first with their names recovered exactly. */
static void test_sample_read_back(void **state)
{
	struct profile *p = sample_profile("cpu-clock");
	char *text = render(p);
	struct record r[4];
	size_t n = read_records(text, r, 4);

	(void)state;
	assert_int_equal(n, 3);
	assert_string_equal(r[0].comm, "sh");
	assert_string_equal(r[1].comm, "Web Content");
	assert_int_equal(r[1].pid, 1234);
	assert_int_equal(r[1].tid, 1235);
	assert_string_equal(r[1].event, "cpu-clock");
	assert_int_equal(r[1].n, 5);
	assert_string_equal(r[1].names[0], "do_syscall_64");
	assert_string_equal(r[1].names[2], "read");
	assert_string_equal(r[1].names[3], "libfoo.so+0x1a2b");
	assert_string_equal(r[1].names[4], "main");
	assert_string_equal(r[1].dsos[0], "[kernel.kallsyms]");
	assert_int_equal(r[2].n, 2);
	free(text);
	profile__free(p);
}

/* ---- uprobe mode ---- */

/* A record per call, all of one event, each call's period its self time:
 * outer's 5 ms less inner's 3. */
static void test_trace_text(void **state)
{
	struct profile *p = profile__new(UNIT_NANOSECONDS);
	uint32_t st[2];

	(void)state;
	assert_non_null(p);
	st[0] = fr(p, "outer", 0x401136, 0, "/opt/tracee", FRAME_USER);
	st[1] = fr(p, "inner", 0x401100, 0, "/opt/tracee", FRAME_USER);
	add_ev(p, 4242, 4242, "tracee", st, 1, 3, 1000000000, 5000000);
	add_ev(p, 4242, 4242, "tracee", st, 2, 3, 1002000000, 3000000);
	expect_text(p, "tracee  4242/4242  [003]     1.000000:    2000000 uprobe:calls: \n"
		       "\t          401136 outer+0x0 (/opt/tracee)\n"
		       "\n"
		       "tracee  4242/4242  [003]     1.002000:    3000000 uprobe:calls: \n"
		       "\t          401100 inner+0x0 (/opt/tracee)\n"
		       "\t          401136 outer+0x0 (/opt/tracee)\n"
		       "\n");
	profile__free(p);
}

/* ---- names ---- */

/*
 * A made-up name, a name that looks like one, an empty name and DSO, control
 * bytes, a C++ name with spaces and parentheses: each line still reads back,
 * and stripping one offset gives the name.
 */
static void test_names_round_trip(void **state)
{
	static const struct {
		const char *name;
		uint64_t off;
		const char *want;
	} names[] = {
		{ "libfoo.so+0x1a2b", 0, "libfoo.so+0x1a2b" },
		{ "weird+0x10", 5, "weird+0x10" },
		{ "std::vector<int>::push_back(int const&) const", 0x20,
		  "std::vector<int>::push_back(int const&) const" },
		{ "tab\there\nnl", 1, "tab?here?nl" },
		{ "", 0, "[unknown]" },
	};
	const size_t nn = sizeof(names) / sizeof(names[0]);
	struct profile *p = profile__new(UNIT_SAMPLES);
	uint32_t st[8];
	struct record r[2];
	char *text;

	(void)state;
	assert_non_null(p);
	for (size_t i = 0; i < nn; i++)
		st[i] = fr(p, names[i].name, 0x1000 + i, names[i].off, i == 4 ? "" : "/x/y.so",
			   FRAME_USER);
	add_ev(p, 1, 2, "ctl\x01name", st, nn, 0, 1, 2);
	text = render(p);
	assert_non_null(strstr(text, " [unknown] ([unknown])\n"));
	assert_non_null(strstr(text, " weird+0x10+0x5 (/x/y.so)\n"));
	assert_int_equal(read_records(text, r, 2), 1);
	assert_string_equal(r[0].comm, "ctl?name");
	assert_int_equal(r[0].n, nn);
	for (size_t i = 0; i < nn; i++)
		assert_string_equal(r[0].names[nn - 1 - i], names[i].want);
	assert_string_equal(r[0].dsos[0], "[unknown]");
	free(text);
	profile__free(p);
}

/* Against the text of a real `perf script` record: the same layout. */
static void test_matches_perf_layout(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	uint32_t st[2];

	(void)state;
	assert_non_null(p);
	st[0] = fr(p, "read", 0xf82ad, 0xd, "/usr/lib/x86_64-linux-gnu/libc.so.6", FRAME_USER);
	st[1] = fr(p, "do_syscall_64", 0xffffffff821ecc26, 0x46, "[kernel.kallsyms]", FRAME_KERNEL);
	add_ev(p, 26723, 26723, "dd", st, 2, 1, 9652472151000ULL, 1001001);
	/* as perf 6.1 printed it for dd, but for its event's modifiers */
	expect_text(p, "dd 26723/26723 [001]  9652.472151:    1001001 cpu-clock: \n"
		       "\tffffffff821ecc26 do_syscall_64+0x46 ([kernel.kallsyms])\n"
		       "\t           f82ad read+0xd (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		       "\n");
	profile__free(p);
}

static void test_write_error(void **state)
{
	struct profile *p = sample_profile("cpu-clock");
	struct write_opts o = { 0 };
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		skip();
	assert_int_equal(perf__write(p, &o, f), -EIO);
	fclose(f);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_text),	 cmocka_unit_test(test_event_name),
		cmocka_unit_test(test_sample_read_back), cmocka_unit_test(test_trace_text),
		cmocka_unit_test(test_names_round_trip), cmocka_unit_test(test_matches_perf_layout),
		cmocka_unit_test(test_write_error),	 cmocka_unit_test(test_alloc_weights),
		cmocka_unit_test(test_hit_args),
	};

	return cmocka_run_group_tests_name("out_perf", tests, setup, teardown);
}
