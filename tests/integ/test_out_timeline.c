// SPDX-License-Identifier: GPL-2.0
/*
 * The timeline outputs of real captures: Chrome JSON and perf-script text
 * of a sampled run of tests/workloads/cpu_tree (known call tree), and the
 * perf text of a uprobe run of tests/workloads/tracee (known calls). The
 * JSON is parsed with json-c; the perf text as perf-script readers read it.
 */
#include "harness.h"

#include <inttypes.h>
#include <json.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ULL /* ns */

/* ---- Chrome JSON ---- */

/* json-c lets raw control bytes through inside strings; JSON does not. */
static void check_no_raw_controls(const char *text)
{
	bool in_string = false;

	for (const char *c = text; *c; c++) {
		if (in_string && (unsigned char)*c < 0x20)
			fail_msg("raw control byte in a string at byte %zu", (size_t)(c - text));
		if (in_string && *c == '\\')
			c++;
		else if (*c == '"')
			in_string = !in_string;
	}
}

static json_object *json_must_load(const char *path)
{
	char *text = h_slurp(path);
	json_tokener *tok = json_tokener_new();
	json_object *doc;

	if (!text)
		fail_msg("cannot read '%s'", path);
	assert_non_null(tok);
	check_no_raw_controls(text);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	doc = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
	if (!doc || json_tokener_get_error(tok) != json_tokener_success)
		fail_msg("'%s' is not valid JSON at byte %zu: %s", path,
			 json_tokener_get_parse_end(tok),
			 json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);
	free(text);
	return doc;
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		fail_msg("no \"%s\" of type %s in %.200s", key, json_type_to_name(type),
			 json_object_to_json_string(o));
	return v;
}

static const char *str_of(json_object *o, const char *key)
{
	return json_object_get_string(get(o, key, json_type_string));
}

/* Microseconds printed with three decimals, in nanoseconds (exact). */
static uint64_t us_to_ns(json_object *o, const char *key)
{
	const char *text = json_object_to_json_string(get(o, key, json_type_double));
	unsigned int frac;
	int used = 0;
	uint64_t us;

	if (sscanf(text, "%" SCNu64 ".%3u%n", &us, &frac, &used) != 2 || text[used])
		fail_msg("%s %s is not MICROS.NNN", key, text);
	return us * 1000 + frac;
}

struct span {
	const char *name;
	int64_t pid, tid;
	uint64_t ts, end;
	size_t parent; /* index of the enclosing span; SIZE_MAX at the top */
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);
}

/* Sorts the spans per thread and links each to its parent, failing when one
 * sticks out of the span it starts in. */
static void nest(struct span *s, size_t n)
{
	size_t *open = malloc((n + 1) * sizeof(*open)), depth = 0;

	assert_non_null(open);
	qsort(s, n, sizeof(*s), cmp_span);
	for (size_t i = 0; i < n; i++) {
		if (i && (s[i].pid != s[i - 1].pid || s[i].tid != s[i - 1].tid))
			depth = 0;
		while (depth && s[open[depth - 1]].end <= s[i].ts)
			depth--;
		if (depth && s[i].end > s[open[depth - 1]].end)
			fail_msg("'%s' [%" PRIu64 ", %" PRIu64 ") sticks out of '%s'", s[i].name,
				 s[i].ts, s[i].end, s[open[depth - 1]].name);
		s[i].parent = depth ? open[depth - 1] : SIZE_MAX;
		open[depth++] = i;
	}
	free(open);
}

/* The X events of DOC as spans; counts the metadata events naming COMM. */
static struct span *spans_of(json_object *doc, size_t *n, size_t *named)
{
	json_object *evs = get(doc, "traceEvents", json_type_array);
	size_t len = json_object_array_length(evs);
	struct span *s = calloc(len + 1, sizeof(*s));

	assert_non_null(s);
	*n = *named = 0;
	for (size_t i = 0; i < len; i++) {
		json_object *e = json_object_array_get_idx(evs, i);
		const char *ph = str_of(e, "ph");

		if (!strcmp(ph, "M")) {
			*named += !strcmp(str_of(get(e, "args", json_type_object), "name"),
					  "cpu_tree");
			continue;
		}
		assert_string_equal(ph, "X");
		get(e, "cat", json_type_string);
		s[*n] = (struct span){ str_of(e, "name"),
				       json_object_get_int64(get(e, "pid", json_type_int)),
				       json_object_get_int64(get(e, "tid", json_type_int)),
				       us_to_ns(e, "ts"),
				       0,
				       SIZE_MAX };
		s[*n].end = s[*n].ts + us_to_ns(e, "dur");
		(*n)++;
	}
	return s;
}

static size_t count_named(const struct span *s, size_t n, const char *name)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += !strcmp(s[i].name, name);
	return k;
}

/*
 * cpu_tree sampled into Chrome JSON: valid, the spans of every thread nest,
 * the workload's functions are there, tree_c only ever inside tree_b, burn
 * inside tree_a or tree_c; process and thread named; otherData says how.
 */
static void test_sample_chrome(void **state)
{
	const char *out = h_path("tree.json");
	size_t n, named;
	struct h_result r;
	json_object *doc, *other;
	struct span *s;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "--sample", "999hz", "-o", out, "--",
				      h_workload("cpu_tree"), "1")),
			 0);
	h_assert_status(&r, 0);
	doc = json_must_load(out);
	assert_string_equal(str_of(doc, "displayTimeUnit"), "ns");
	other = get(doc, "otherData", json_type_object);
	assert_string_equal(str_of(other, "mode"), "sample");
	assert_int_equal(json_object_get_int(get(other, "frequency", json_type_int)), 999);
	assert_true(strstr(str_of(other, "cmdline"), "cpu_tree") != NULL);
	assert_true(strstr(str_of(other, "version"), "flamebpf") != NULL);
	s = spans_of(doc, &n, &named);
	assert_true(named >= 2); /* process_name and thread_name */
	nest(s, n);
	print_message("%zu spans: main %zu, tree_a %zu, tree_b %zu, tree_c %zu, burn %zu\n", n,
		      count_named(s, n, "main"), count_named(s, n, "tree_a"),
		      count_named(s, n, "tree_b"), count_named(s, n, "tree_c"),
		      count_named(s, n, "burn"));
	for (const char *const *f =
		     (const char *const[]){ "main", "tree_a", "tree_b", "tree_c", "burn", NULL };
	     *f; f++)
		if (!count_named(s, n, *f))
			fail_msg("no span of '%s'", *f);
	for (size_t i = 0; i < n; i++) {
		const char *up = s[i].parent == SIZE_MAX ? "" : s[s[i].parent].name;

		if (!strcmp(s[i].name, "tree_c") && strcmp(up, "tree_b"))
			fail_msg("tree_c at %" PRIu64 " lies in '%s', not tree_b", s[i].ts, up);
		if (!strcmp(s[i].name, "burn") && strcmp(up, "tree_a") && strcmp(up, "tree_c"))
			fail_msg("burn at %" PRIu64 " lies in '%s'", s[i].ts, up);
	}
	free(s);
	json_object_put(doc);
	h_result_free(&r);
}

/* ---- perf script text ---- */

struct perf_record {
	char comm[64], event[128];
	uint64_t ts, period;
	char *frames[128]; /* leaf first, the trailing "+0xOFF" stripped */
	size_t n;
};

struct perf_text {
	struct perf_record *recs;
	size_t n;
	char *buf;
};

/* "COMM PID/TID [CPU] SECS.USECS: PERIOD EVENT: " and "\tADDR SYM (DSO)", as
 * perf-script readers take them apart. */
#define HEADER_RE                                                                                  \
	"^([^[:space:]].*[^[:space:]]) +[0-9]+/[0-9]+ +\\[[0-9]{3,}\\] +([0-9]+)\\.([0-9]{6}): +"  \
	"([0-9]+) ([^[:space:]].*): $"
#define FRAME_RE "^\t *[0-9a-f]+ (.+) \\([^[:space:]]*\\)$"

static char *strip_offset(char *name)
{
	char *plus = strrchr(name, '+');

	if (plus && !strncmp(plus, "+0x", 3) && plus[3] &&
	    strspn(plus + 3, "0123456789abcdef") == strlen(plus + 3))
		*plus = '\0';
	return name;
}

static void read_header(const regex_t *re, char *line, struct perf_record *r)
{
	regmatch_t m[6];

	if (regexec(re, line, 6, m, 0))
		fail_msg("not a record header: '%s'", line);
	snprintf(r->comm, sizeof(r->comm), "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
		 line + m[1].rm_so);
	r->ts = strtoull(line + m[2].rm_so, NULL, 10) * 1000000 +
		strtoull(line + m[3].rm_so, NULL, 10);
	r->period = strtoull(line + m[4].rm_so, NULL, 10);
	snprintf(r->event, sizeof(r->event), "%.*s", (int)(m[5].rm_eo - m[5].rm_so),
		 line + m[5].rm_so);
}

static void read_frame(const regex_t *re, char *line, struct perf_record *r)
{
	regmatch_t m[2];

	if (regexec(re, line, 2, m, 0))
		fail_msg("not a frame line: '%s'", line);
	assert_true(r->n < 128);
	line[m[1].rm_eo] = '\0';
	r->frames[r->n++] = strip_offset(line + m[1].rm_so);
}

/* Reads PATH strictly: records of a header, frame lines and a blank line;
 * the first line a record, the last one blank. */
static void perf_must_load(const char *path, struct perf_text *t)
{
	regex_t header, frame;
	bool in_record = false;
	size_t cap = 0;

	t->buf = h_slurp(path);
	t->recs = NULL;
	t->n = 0;
	if (!t->buf)
		fail_msg("cannot read '%s'", path);
	assert_true(strlen(t->buf) >= 2 && !strcmp(t->buf + strlen(t->buf) - 2, "\n\n"));
	assert_int_equal(regcomp(&header, HEADER_RE, REG_EXTENDED), 0);
	assert_int_equal(regcomp(&frame, FRAME_RE, REG_EXTENDED), 0);
	for (char *line = t->buf, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		*end = '\0';
		if (!*line) {
			assert_true(in_record);
			in_record = false;
			continue;
		}
		if (in_record) {
			read_frame(&frame, line, &t->recs[t->n - 1]);
			continue;
		}
		if (t->n == cap &&
		    !(t->recs = realloc(t->recs, (cap = cap * 2 + 64) * sizeof(*t->recs))))
			fail_msg("out of memory");
		memset(&t->recs[t->n], 0, sizeof(t->recs[0]));
		read_header(&header, line, &t->recs[t->n++]);
		in_record = true;
	}
	regfree(&header);
	regfree(&frame);
}

static void perf_free(struct perf_text *t)
{
	free(t->recs);
	free(t->buf);
}

/* The position of FRAME in R (leaf first); -1 when it is not there. */
static long frame_pos(const struct perf_record *r, const char *frame)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->frames[i], frame))
			return (long)i;
	return -1;
}

/* A record with burn under tree_c under tree_b under main: in that order,
 * leaf first. */
static bool leaf_first(const struct perf_record *r)
{
	long burn = frame_pos(r, "burn"), c = frame_pos(r, "tree_c");
	long b = frame_pos(r, "tree_b"), m = frame_pos(r, "main");

	return burn >= 0 && c > burn && b > c && m > b;
}

/*
 * cpu_tree sampled into perf text: one record per sample counted in the
 * summary, in time order, cpu-clock events of cpu_tree, frames leaf first.
 */
static void test_sample_perf(void **state)
{
	const char *out = h_path("tree.perf");
	size_t ordered = 0, tree_c = 0;
	struct h_summary sum;
	struct perf_text t;
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "--sample", "999hz", "-o", out, "--",
				      h_workload("cpu_tree"), "1")),
			 0);
	h_assert_status(&r, 0);
	if (!h_parse_summary(r.err, &sum)) {
		h_dump(&r, "flamebpf");
		fail_msg("no 'N samples, ...' summary on stderr");
	}
	perf_must_load(out, &t);
	print_message("%zu records, the summary counts %llu samples\n", t.n, sum.samples);
	assert_int_equal(t.n, sum.samples);
	for (size_t i = 0; i < t.n; i++) {
		const struct perf_record *rec = &t.recs[i];

		assert_string_equal(rec->comm, "cpu_tree");
		assert_string_equal(rec->event, "cpu-clock");
		assert_in_range(rec->period, 1000000000 / 999 - 1, 1000000000 / 999 + 1);
		if (i && rec->ts < t.recs[i - 1].ts)
			fail_msg("record %zu is earlier than the one before", i + 1);
		if (frame_pos(rec, "tree_c") < 0)
			continue;
		tree_c++;
		ordered += leaf_first(rec);
	}
	print_message("%zu records in tree_c, %zu of them burn;tree_c;tree_b;main leaf first\n",
		      tree_c, ordered);
	assert_true(tree_c > 0);
	assert_true(ordered * 10 >= tree_c * 9);
	perf_free(&t);
	h_result_free(&r);
}

/*
 * tracee nest 2 3 5 traced into perf text: exactly 5 records of each
 * function, all of one event; inner's stack is inner above outer; a
 * record's period is its call's self time: inner's at least the 3 ms it
 * busy-waits, outer's at least its own 2 ms, and under its 5 ms in all
 * (inner's is not in it).
 */
static void test_trace_perf(void **state)
{
	const char *out = h_path("calls.perf");
	size_t inner = 0, outer = 0;
	struct perf_text t;
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "-f", "^(outer|inner)$", "-o", out, "--",
				      h_workload("tracee"), "nest", "2", "3", "5")),
			 0);
	h_assert_status(&r, 0);
	h_expect_calls(&r, 10);
	perf_must_load(out, &t);
	for (size_t i = 0; i < t.n; i++) {
		const struct perf_record *rec = &t.recs[i];

		assert_string_equal(rec->comm, "tracee");
		/* one event, the function its leaf */
		assert_string_equal(rec->event, "uprobe:calls");
		if (!strcmp(rec->frames[0], "inner")) {
			inner++;
			assert_int_equal(rec->n, 2);
			assert_string_equal(rec->frames[0], "inner");
			assert_string_equal(rec->frames[1], "outer");
			assert_true(rec->period >= 3 * MS - MS / 20);
		} else if (!strcmp(rec->frames[0], "outer")) {
			outer++;
			assert_int_equal(rec->n, 1);
			assert_true(rec->period >= 2 * MS - MS / 20);
			assert_true(rec->period < 5 * MS - MS / 2);
		} else {
			fail_msg("record %zu: leaf '%s'", i + 1, rec->frames[0]);
		}
	}
	assert_int_equal(inner, 5);
	assert_int_equal(outer, 5);
	perf_free(&t);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sample_chrome, h_test_teardown),
		cmocka_unit_test_teardown(test_sample_perf, h_test_teardown),
		cmocka_unit_test_teardown(test_trace_perf, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("out_timeline", tests, h_group_setup, h_group_teardown);
}
