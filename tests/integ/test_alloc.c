// SPDX-License-Identifier: GPL-2.0
/*
 * --alloc: memory flame graphs against tests/workloads/alloc, which
 * allocates known sizes from known functions (see its header): bytes per
 * stack exact in --alloc and --alloc=live, allocation counts exact through
 * pprof's alloc_objects, `go tool pprof -sample_index=inuse_space` showing
 * what alloc_b kept, -p counting only what is allocated after the start;
 * and against `alloc mmap`: anonymous mmaps counted by the page, a file's
 * not at all, a munmap freeing the block it starts, glibc's own mmap and
 * munmap inside malloc and free not counted again. The bytes the same by
 * classic uprobes (kernels before 6.6).
 */
#include "harness.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KIB 1024ULL
#define MIB (1024 * KIB)

static bool under(const char *stack, const void *arg)
{
	return h_has_frame(stack, arg);
}

/* Whether stack has the frames "a;b" one under the other. */
static bool has_seq(const char *stack, const void *arg)
{
	return h_has_seq(stack, arg);
}

/* What a function of the workload allocates: bytes and allocations, and
 * of them live at the end. */
struct expect {
	const char *func;
	unsigned long long bytes, live, count, live_count;
};

static const struct expect expected[] = {
	{ "alloc_a()", 1000 * 4 * KIB, 0, 1000, 0 },
	{ "alloc_b()", 100 * 64 * KIB, 100 * 64 * KIB, 100, 100 },
	{ "new_objects()", 5000 * 48, 0, 5000, 0 },
	{ "grow()", 55 * KIB, 0, 10, 0 }, /* 1 + 2 + ... + 10 KiB */
	{ "zeroed()", 10 * 100 * 40, 0, 10, 0 },
	{ "aligned()", 10 * KIB + 10 * 2 * KIB, 0, 20, 0 },
};

#define NEXPECTED (sizeof(expected) / sizeof(expected[0]))

#define NMAPPED 6

/* What `alloc mmap` allocates, in the machine's pages. */
static void mapped(struct expect e[NMAPPED])
{
	unsigned long long page = sysconf(_SC_PAGESIZE), three = (10000 + page - 1) / page * page;
	const struct expect made[NMAPPED] = {
		{ "map_anon()", 20 * three, 5 * three, 20, 5 },
		{ "map_partial()", 4 * page, 0, 1, 0 },
		{ "map_file()", 0, 0, 0, 0 },
		{ "map_failed()", 0, 0, 0, 0 },
		{ "big_malloc()", 2 * MIB, MIB, 2, 1 },
		{ "big_new()", 2 * MIB, MIB, 2, 1 },
	};

	memcpy(e, made, sizeof(made));
}

/* A number after "WHAT" in the summary ("6050 frees" for " frees"), or
 * fails. */
static unsigned long long said(const char *err, const char *what)
{
	const char *at = strstr(err, what);

	if (!at)
		fail_msg("'%s' not in the summary:\n%s", what, err);
	while (at > err && at[-1] == ' ')
		at--;
	while (at > err && at[-1] >= '0' && at[-1] <= '9')
		at--;
	return strtoull(at, NULL, 10);
}

static void expect_bytes(const struct h_folded *f, const struct expect *e, size_t n, bool live)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long long got = h_sum(f, under, e[i].func),
				   want = live ? e[i].live : e[i].bytes;

		print_message("%s: %llu bytes%s\n", e[i].func, got, live ? " live" : "");
		if (got != want) {
			h_folded_dump(f, 30);
			fail_msg("%s: %llu bytes%s, %llu made", e[i].func, got, live ? " live" : "",
				 want);
		}
	}
}

/* Every byte of the run: per function exact, the allocator at the leaf;
 * by uprobe_multi links or classic uprobes alike. */
static void expect_alloc_total(bool classic)
{
	const char *out = h_path("alloc.folded");
	struct h_folded f;
	struct h_result r;

	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--alloc", "-o", out, "--", h_workload("alloc")));
	if (classic)
		h_expect_classic(&r);
	expect_bytes(&f, expected, NEXPECTED, false);
	assert_true(h_sum(&f, under, "malloc") >= 1000 * 4 * KIB + 100 * 64 * KIB);
	assert_int_equal(h_sum(&f, under, "operator new(unsigned long)"), 5000 * 48);
	assert_int_equal(h_sum(&f, under, "realloc"), 55 * KIB);
	assert_int_equal(h_sum(&f, under, "posix_memalign"), 10 * 2 * KIB);
	/* 6040 frees of the functions, 10 of early()'s blocks; each of them known */
	assert_true(said(r.err, " frees (") >= 6050);
	assert_int_equal(said(r.err, " of addresses not allocated in the capture"), 0);
	assert_true(said(r.err, " bytes live at the end") >= 100 * 64 * KIB);
	assert_non_null(strstr(r.err, "lost: nothing"));
	/* new's bad_alloc went through the probes to its catch */
	assert_non_null(strstr(r.out, "caught 3"));
	assert_int_equal(said(r.err, " allocation calls returned no memory"), 3);
	h_result_free(&r);
	h_folded_free(&f);
}

H_UPROBE_TESTS(alloc_total)

/* What is live at the end: alloc_b's 6400 KiB, nothing of the others. */
static void expect_alloc_live(bool classic)
{
	const char *out = h_path("live.folded");
	struct h_folded f;
	struct h_result r;

	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--alloc=live", "-o", out, "--", h_workload("alloc")));
	if (classic)
		h_expect_classic(&r);
	expect_bytes(&f, expected, NEXPECTED, true);
	h_result_free(&r);
	h_folded_free(&f);
}

H_UPROBE_TESTS(alloc_live)

/* `go tool pprof -sample_index=INDEX -top FILE` (every node, bytes in B):
 * its report, which the caller frees. */
static char *pprof_top(const char *file, const char *index)
{
	return h_pprof_top(file, index, "B", true);
}

/* The cumulative value of the row of function name ("flat flat% sum% cum
 * cum% NAME", values with or without their unit), or fails. */
static unsigned long long cum_of(const char *text, const char *name)
{
	for (const char *line = text; line && *line; line = strchr(line, '\n')) {
		const char *p, *tok[5];
		size_t len;

		line += *line == '\n';
		p = line;
		for (int i = 0; i < 5; i++) {
			p += strspn(p, " ");
			tok[i] = p;
			p += strcspn(p, " \n");
		}
		p += strspn(p, " ");
		len = strcspn(p, "\n");
		if (len == strlen(name) && !strncmp(p, name, len) && *tok[3] >= '0' &&
		    *tok[3] <= '9')
			return strtoull(tok[3], NULL, 10);
	}
	fail_msg("no row '%s' in the report:\n%s", name, text);
	return 0;
}

/* pprof's four sample types: counts exact per function, inuse_space
 * alloc_b's, the default the view asked for. */
static void test_pprof(void **state)
{
	const char *out = h_path("alloc.pb.gz");
	struct h_result r;
	char *text;

	(void)state;
	require_bpf();
	h_require_go();
	assert_int_equal(
		h_run(&r, 60,
		      H_ARGV(h_flamebpf(), "--alloc", "-o", out, "--", h_workload("alloc"))),
		0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	text = pprof_top(out, "alloc_objects");
	for (size_t i = 0; i < NEXPECTED; i++) {
		print_message("%s: %llu allocations\n", expected[i].func,
			      cum_of(text, expected[i].func));
		assert_int_equal(cum_of(text, expected[i].func), expected[i].count);
	}
	free(text);
	text = pprof_top(out, "alloc_space");
	assert_int_equal(cum_of(text, "alloc_a()"), 1000 * 4 * KIB);
	free(text);
	text = pprof_top(out, "inuse_space");
	assert_non_null(strstr(text, "Type: inuse_space"));
	assert_int_equal(cum_of(text, "alloc_b()"), 100 * 64 * KIB);
	assert_null(strstr(text, "alloc_a()"));
	free(text);
	text = pprof_top(out, "inuse_objects");
	assert_int_equal(cum_of(text, "alloc_b()"), 100);
	free(text);
}

/* -p: early()'s blocks, allocated before the capture, are freed in it:
 * ignored and counted, never live; the rest exact. */
static void test_attached(void **state)
{
	const char *out = h_path("attached.folded");
	struct h_proc w, fb;
	struct h_folded f;
	struct h_result r;
	char pid[16];

	(void)state;
	require_bpf();
	h_start_workload(&w, H_ARGV(h_workload("alloc"), "3000"));
	snprintf(pid, sizeof(pid), "%d", w.pid);
	assert_int_equal(h_start(&fb, H_ARGV(h_flamebpf(), "--alloc=live", "-p", pid, "-o", out)),
			 0);
	h_finish_folded(&fb, 60, &r, out, &f);
	h_stop(&w);
	expect_bytes(&f, expected, NEXPECTED, true);
	assert_true(said(r.err, " of addresses not allocated in the capture") >= 10);
	assert_null(strstr(r.err, "early"));
	assert_int_equal(h_sum(&f, under, "early()"), 0);
	assert_non_null(strstr(r.err, "only what they allocated during the capture counts"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* --alloc-sample 8k: one allocation in about every 8 KiB recorded, each
 * smaller one then weighing 8 KiB; the estimate is within 5% of the bytes
 * made (about 1.2% is one standard deviation here), alloc_b's 64 KiB blocks
 * (above 8 KiB: always recorded) exact. */
static void test_sampled(void **state)
{
	const char *out = h_path("sampled.folded");
	unsigned long long made, weighed;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--alloc", "--alloc-sample", "8k", "-o", out, "--",
			    h_workload("alloc")));
	made = said(r.err, " bytes in ");
	assert_non_null(strstr(r.err, "weighed "));
	weighed = said(strstr(r.err, "weighed "), " bytes");
	print_message("%llu bytes made, %llu estimated (%.2f%%)\n", made, weighed,
		      100.0 * ((double)weighed - made) / made);
	assert_int_equal(weighed, f.total);
	if (weighed < made * 0.95 || weighed > made * 1.05)
		fail_msg("estimated %llu bytes of %llu made: not within 5%%", weighed, made);
	assert_int_equal(h_sum(&f, under, "alloc_b()"), 100 * 64 * KIB);
	h_result_free(&r);
	h_folded_free(&f);
}

/* `alloc mmap` under --alloc or --alloc=live (view): its folded output in
 * f, its result in r. */
static void run_mmap(struct h_result *r, struct h_folded *f, const char *view)
{
	const char *out = h_path("mmap.folded");

	h_run_folded(r, 60, out, f,
		     H_ARGV(h_flamebpf(), view, "-o", out, "--", h_workload("alloc"), "mmap"));
	/* else big_malloc() and big_new() would not test that glibc's mmap
	 * counts once */
	assert_non_null(strstr(r->out, "mmapped 4"));
}

/* Anonymous mmaps by the page, a file's not, munmap freeing the block it
 * starts (the tail of map_partial's an unknown free, as map_file's), the
 * failed mmap said; glibc's mmap and munmap of big_malloc's 1 MiB blocks
 * count as their malloc and free alone, big_new's as its new and delete. */
static void test_mmap_total(void **state)
{
	struct expect e[NMAPPED];
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	mapped(e);
	run_mmap(&r, &f, "--alloc");
	expect_bytes(&f, e, NMAPPED, false);
	assert_int_equal(h_sum(&f, has_seq, "big_malloc();malloc"), 2 * MIB);
	/* map_anon's 15 munmaps, map_partial's 2, map_file's, big_malloc's
	 * free, big_new's delete[] */
	assert_true(said(r.err, " frees (") >= 20);
	assert_int_equal(said(r.err, " of addresses not allocated in the capture"), 2);
	assert_int_equal(said(r.err, " allocation calls returned no memory"), 1);
	assert_non_null(strstr(r.err, "lost: nothing"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* Live at the end: map_anon's 5 kept blocks and big_malloc's kept one. */
static void test_mmap_live(void **state)
{
	struct expect e[NMAPPED];
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	mapped(e);
	run_mmap(&r, &f, "--alloc=live");
	expect_bytes(&f, e, NMAPPED, true);
	h_result_free(&r);
	h_folded_free(&f);
}

/* The allocations of a pprof report (alloc_objects, or inuse_objects when
 * live) under each function: a function with none has no row. */
static void expect_counts(const char *text, const struct expect *e, size_t n, bool live)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long long want = live ? e[i].live_count : e[i].count;

		if (!want) {
			assert_null(strstr(text, e[i].func));
			continue;
		}
		print_message("%s: %llu allocations%s\n", e[i].func, cum_of(text, e[i].func),
			      live ? " live" : "");
		assert_int_equal(cum_of(text, e[i].func), want);
	}
}

/* `alloc mmap`'s allocations counted, made and live. */
static void test_mmap_pprof(void **state)
{
	const char *out = h_path("mmap.pb.gz");
	struct expect e[NMAPPED];
	struct h_result r;
	char *text;

	(void)state;
	require_bpf();
	h_require_go();
	mapped(e);
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "--alloc", "-o", out, "--", h_workload("alloc"),
				      "mmap")),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	text = pprof_top(out, "alloc_objects");
	expect_counts(text, e, NMAPPED, false);
	free(text);
	text = pprof_top(out, "inuse_objects");
	expect_counts(text, e, NMAPPED, true);
	free(text);
}

/* flamebpf render IN -o OUT [OPTION], which must succeed, into f. */
static void render_folded(const char *in, const char *out, const char *option, struct h_folded *f)
{
	struct h_result r;

	assert_int_equal(h_run(&r, 60,
			       option ? H_ARGV(h_flamebpf(), "render", option, in, "-o", out)
				      : H_ARGV(h_flamebpf(), "render", in, "-o", out)),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	h_folded_must_load(out, f);
}

/* Timelines: each allocation an event at its time, weighing its bytes.
 * The HTML report read back is the folded output, byte for byte; perf
 * script (each allocation's bytes as its period, which its reader weighs
 * by: the file is thousands of records, read in several buffers) has
 * every function's bytes (perf's reader drops the "()", as
 * stackcollapse-perf.pl does); the heatmap counts bytes; --flamechart
 * adds up to the same bytes in time order, alloc_a's before alloc_b's;
 * diff of two captures' reports compares bytes. */
static void test_timelines(void **state)
{
	const char *folded = h_path("t.folded"), *perf = h_path("t.perf"), *html = h_path("t.html"),
		   *json = h_path("t.json"), *heat = h_path("t.svg"),
		   *chart = h_path("chart.folded");
	struct h_folded f, back;
	struct h_result r;
	char *a, *b, *svg;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, folded, &f,
		     H_ARGV(h_flamebpf(), "--alloc", "-o", folded, "-o", perf, "-o", html, "-o",
			    json, "-o", heat, "--heatmap", "--", h_workload("alloc")));
	assert_non_null(strstr(r.err, "lost: nothing"));
	h_result_free(&r);
	render_folded(html, h_path("html.folded"), NULL, &back);
	a = h_slurp(folded);
	b = h_slurp(h_path("html.folded"));
	assert_string_equal(b, a);
	free(a);
	free(b);
	h_folded_free(&back);
	render_folded(perf, h_path("perf.folded"), NULL, &back);
	for (size_t i = 0; i < NEXPECTED; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(expected[i].func, "("),
			 expected[i].func);
		print_message("perf script: %s %llu bytes\n", name, h_sum(&back, under, name));
		assert_int_equal(h_sum(&back, under, name), expected[i].bytes);
	}
	assert_int_equal(back.total, f.total);
	h_folded_free(&back);
	render_folded(json, h_path("json.folded"), NULL, &back);
	h_folded_free(&back);
	svg = h_slurp(heat);
	assert_non_null(strstr(svg, "Heatmap: bytes allocated"));
	free(svg);

	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "--alloc", "--flamechart", "-o", chart, "-o",
				      h_path("again.html"), "--", h_workload("alloc"))),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	assert_int_equal(h_run(&r, 60, H_ARGV(h_flamebpf(), "diff", html, h_path("again.html"))),
			 0);
	h_assert_status(&r, 0);
	if (!strstr(r.out, " bytes in ") || !strstr(r.out, " allocations\n") ||
	    !strstr(r.out, "inclusive bytes in quanta") || !strstr(r.out, "no regression"))
		fail_msg("diff of two captures' reports:\n%s", r.out);
	h_result_free(&r);
	h_flamechart_must_load(chart, &back);
	expect_bytes(&back, expected, NEXPECTED, false);
	for (size_t i = 0, seen_b = 0; i < back.n; i++) {
		seen_b |= h_has_frame(back.lines[i].stack, "alloc_b()");
		if (seen_b && h_has_frame(back.lines[i].stack, "alloc_a()"))
			fail_msg("alloc_a's allocations after alloc_b's in the flame chart");
	}
	h_folded_free(&back);
	h_folded_free(&f);
}

/* Usage errors before anything runs: exit 2, one line naming it. */
static void test_usage(void **state)
{
	static const struct {
		const char *args[4];
		const char *said;
	} cases[] = {
		{ { "--alloc", "-F", "99" }, "not with -F" },
		{ { "--alloc", "-f", "main" }, "not with -f" },
		{ { "--alloc", "--off-cpu" }, "not with --off-cpu" },
		{ { "--alloc", "-e", "page-faults" }, "not with -e" },
		{ { "--alloc=leaks" }, "unknown --alloc view" },
		{ { "--alloc", "--alloc-sample", "0" }, "invalid --alloc-sample" },
		{ { "-F", "99", "--alloc-sample", "1m" }, "--alloc-sample samples" },
	};
	static const char *const tail[] = { "--", "true", NULL };

	(void)state;
	h_assert_all_refused(cases, tail);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_alloc_total, h_test_teardown),
		cmocka_unit_test_teardown(test_alloc_total_classic, h_classic_teardown),
		cmocka_unit_test_teardown(test_alloc_live, h_test_teardown),
		cmocka_unit_test_teardown(test_alloc_live_classic, h_classic_teardown),
		cmocka_unit_test_teardown(test_pprof, h_test_teardown),
		cmocka_unit_test_teardown(test_attached, h_test_teardown),
		cmocka_unit_test_teardown(test_sampled, h_test_teardown),
		cmocka_unit_test_teardown(test_mmap_total, h_test_teardown),
		cmocka_unit_test_teardown(test_mmap_live, h_test_teardown),
		cmocka_unit_test_teardown(test_mmap_pprof, h_test_teardown),
		cmocka_unit_test_teardown(test_timelines, h_test_teardown),
		cmocka_unit_test_teardown(test_usage, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("alloc", tests, h_group_setup, h_group_teardown);
}
