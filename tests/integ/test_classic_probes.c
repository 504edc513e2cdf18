// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler's probes as classic uprobes (kernels before 6.6; forced on
 * this one with FLAMEBPF_CLASSIC_UPROBES=1): the same exact counts as
 * uprobe_multi links give. -f usdt: every hit of usdt_work's probes under
 * its own leaf (the cookie names it), work:guarded's semaphore raised while
 * traced and not otherwise; --span: every span begun and ended, its time
 * the workload's; --alloc: every byte of the alloc workload by function
 * (entries by cookie, returns by uretprobe).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIB 1024ULL

static int classic_setup(void **state)
{
	setenv("FLAMEBPF_CLASSIC_UPROBES", "1", 1);
	return h_group_setup(state);
}

static int classic_teardown(void **state)
{
	unsetenv("FLAMEBPF_CLASSIC_UPROBES");
	return h_group_teardown(state);
}

/* h_run_folded, for a run that must say it used classic uprobes. */
static void run_classic(struct h_result *r, struct h_folded *f, const char *out,
			const char *const argv[])
{
	h_run_folded(r, 60, out, f, argv);
	if (!h_has_line(r->err, "flamebpf: classic uprobes, one per probe: this kernel has no "
				"uprobe_multi links (Linux 6.6+)")) {
		h_dump(r, "flamebpf");
		fail_msg("the run did not say it used classic uprobes");
	}
}

static bool hit_under(const char *stack, const void *arg)
{
	const char *const *w = arg;
	const char *leaf = strrchr(stack, ';');

	return h_has_frame(stack, w[0]) && leaf && !strcmp(leaf + 1, w[1]);
}

/* usdt_work 1000: work:tick 1000 times in tick_a and 2000 in tick_b, and
 * work:guarded 1000 times, for its semaphore is raised while traced. */
static void test_usdt_count(void **state)
{
	static const char *const a[] = { "tick_a", "[work:tick]" },
				 *b[] = { "tick_b", "[work:tick]" },
				 *g[] = { "guarded", "[work:guarded]" };
	const char *out = h_path("usdt.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	run_classic(&r, &f, out,
		    H_ARGV(h_flamebpf(), "-f", "usdt::^work:", "-o", out, "--",
			   h_workload("usdt_work"), "1000"));
	print_message("tick_a %llu, tick_b %llu, guarded %llu; %s", h_sum(&f, hit_under, a),
		      h_sum(&f, hit_under, b), h_sum(&f, hit_under, g), r.out);
	assert_int_equal(h_sum(&f, hit_under, a), 1000);
	assert_int_equal(h_sum(&f, hit_under, b), 2000);
	assert_int_equal(h_sum(&f, hit_under, g), 1000);
	assert_int_equal(f.total, 4000);
	assert_non_null(strstr(r.out, "guarded 1000"));
	assert_non_null(strstr(r.err, "4000 hits of 2 USDT probes"));
	assert_true(h_has_line(r.err, "flamebpf: lost: nothing"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* Only work:tick traced: guarded's semaphore stays down, it never fires. */
static void test_usdt_semaphore_down(void **state)
{
	const char *out = h_path("tick.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	run_classic(&r, &f, out,
		    H_ARGV(h_flamebpf(), "-f", "usdt::work:tick", "-o", out, "--",
			   h_workload("usdt_work"), "1000"));
	assert_int_equal(f.total, 3000);
	assert_non_null(strstr(r.out, "guarded 0"));
	h_result_free(&r);
	h_folded_free(&f);
}

static bool under(const char *stack, const void *arg)
{
	return h_has_seq(stack, arg);
}

/* The workload's own times: "GET NS POST NS DB NS". */
static void measured(const char *out, double t[3])
{
	if (!out || sscanf(out, "GET %lf POST %lf DB %lf", &t[0], &t[1], &t[2]) != 3)
		fail_msg("spans printed no times: %s", out ? out : "(nothing)");
}

/* spans 20: 60 spans, each begun and ended; their time less their
 * children's what the workload measured around its markers (within 2%),
 * db's nested in POST's. */
static void test_span_time(void **state)
{
	const char *w = h_workload("spans"), *out = h_path("spans.folded");
	char req[512], db[512];
	double t[3], get, post, dbt;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	snprintf(req, sizeof(req), "req=usdt:%s:flamebpf:req_begin(arg0),usdt:%s:flamebpf:req_end",
		 w, w);
	snprintf(db, sizeof(db), "db=usdt:%s:flamebpf:db_begin(arg0:int),usdt:%s:flamebpf:db_end",
		 w, w);
	run_classic(&r, &f, out,
		    H_ARGV(h_flamebpf(), "--span", req, "--span", db, "-o", out, "--", w, "20"));
	measured(r.out, t);
	assert_non_null(strstr(r.err, "60 spans begun (2 --span), 0 ends of no open span, 0 "
				      "closed by their thread's exit"));
	assert_int_equal(f.n, 3);
	get = h_sum(&f, under, "[req GET /users]");
	post = h_sum(&f, under, "[req POST /orders]");
	dbt = h_sum(&f, under, "[db 7]");
	print_message("span time: GET %.1f ms (measured %.1f), POST %.1f ms (%.1f), db %.1f ms "
		      "(%.1f)\n",
		      get / 1e6, t[0] / 1e6, post / 1e6, t[1] / 1e6, dbt / 1e6, t[2] / 1e6);
	assert_in_range(get, t[0] * 0.98, t[0] * 1.02);
	assert_in_range(post, t[1] * 0.98, t[1] * 1.02);
	assert_in_range(dbt, t[2] * 0.98, t[2] * 1.02);
	assert_in_range(h_sum(&f, under, "[req POST /orders];[db 7]"), dbt, dbt);
	h_result_free(&r);
	h_folded_free(&f);
}

static bool in_func(const char *stack, const void *arg)
{
	return h_has_frame(stack, arg);
}

/* What each function of tests/workloads/alloc allocates (test_alloc.c's
 * table): bytes exact, whatever the allocator. */
static void test_alloc_total(void **state)
{
	static const struct {
		const char *func;
		unsigned long long bytes;
	} want[] = {
		{ "alloc_a()", 1000 * 4 * KIB },      { "alloc_b()", 100 * 64 * KIB },
		{ "new_objects()", 5000 * 48 },	      { "grow()", 55 * KIB },
		{ "zeroed()", 10 * 100 * 40 },	      { "aligned()", 10 * KIB + 10 * 2 * KIB },
	};
	const char *out = h_path("alloc.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	run_classic(&r, &f, out,
		    H_ARGV(h_flamebpf(), "--alloc", "-o", out, "--", h_workload("alloc")));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		unsigned long long got = h_sum(&f, in_func, want[i].func);

		print_message("%s: %llu bytes\n", want[i].func, got);
		if (got != want[i].bytes) {
			h_folded_dump(&f, 30);
			fail_msg("%s: %llu bytes, %llu made", want[i].func, got, want[i].bytes);
		}
	}
	assert_int_equal(h_sum(&f, in_func, "operator new(unsigned long)"), 5000 * 48);
	assert_int_equal(h_sum(&f, in_func, "realloc"), 55 * KIB);
	assert_int_equal(h_sum(&f, in_func, "posix_memalign"), 10 * 2 * KIB);
	/* new's bad_alloc went through the probes to its catch */
	assert_non_null(strstr(r.out, "caught 3"));
	assert_non_null(strstr(r.err, " 3 allocation calls returned no memory"));
	assert_non_null(strstr(r.err, "(0 of addresses not allocated in the capture"));
	assert_true(h_has_line(r.err, "flamebpf: lost: nothing"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* alloc_b's 6400 KiB live at the end, nothing of alloc_a's: frees matched
 * to the allocations the return probes saw. */
static void test_alloc_live(void **state)
{
	const char *out = h_path("live.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	run_classic(&r, &f, out,
		    H_ARGV(h_flamebpf(), "--alloc=live", "-o", out, "--", h_workload("alloc")));
	print_message("live: alloc_b() %llu, alloc_a() %llu bytes\n",
		      h_sum(&f, in_func, "alloc_b()"), h_sum(&f, in_func, "alloc_a()"));
	assert_int_equal(h_sum(&f, in_func, "alloc_b()"), 100 * 64 * KIB);
	assert_int_equal(h_sum(&f, in_func, "alloc_a()"), 0);
	h_result_free(&r);
	h_folded_free(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_usdt_count, h_test_teardown),
		cmocka_unit_test_teardown(test_usdt_semaphore_down, h_test_teardown),
		cmocka_unit_test_teardown(test_span_time, h_test_teardown),
		cmocka_unit_test_teardown(test_alloc_total, h_test_teardown),
		cmocka_unit_test_teardown(test_alloc_live, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("classic_probes", tests, classic_setup,
					   classic_teardown);
}
