// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling a program with a known call tree (tests/workloads/cpu_tree.c):
 * the frames, their nesting, the work ratio of the branches, the sample
 * count at the asked frequency, the --pids / --tids root frames, and no
 * locking of the sampling period onto a program's loop.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#define SECONDS 3
#define FREQ	999

/* Returns the CPU seconds of flamebpf and the command (in f). */
static double profile_cpu_tree(const char *seconds, const char *root_opt, struct h_folded *f)
{
	const char *out = h_path(root_opt ? "tree-ids.folded" : "tree.folded");
	const char *const with_opt[] = { h_flamebpf(), "--sample", "999hz", root_opt,
					 "-o",	       out,	   "--",    h_workload("cpu_tree"),
					 seconds,      NULL };
	const char *const plain[] = { h_flamebpf(),	      "--sample", "999hz", "-o", out, "--",
				      h_workload("cpu_tree"), seconds,	  NULL };
	struct h_result r;
	double cpu;

	h_run_folded(&r, 30, out, f, root_opt ? with_opt : plain);
	cpu = r.cpu;
	h_result_free(&r);
	if (f->n == 0)
		fail_msg("'%s' has no samples", out);
	return cpu;
}

static bool not_under_tree_b(const char *stack, const void *arg)
{
	(void)arg;
	return h_has_frame(stack, "tree_c") && !h_has_seq(stack, "tree_b;tree_c");
}

/*
 * CPU is what cpu_tree (with flamebpf) used: on a busy machine it gets less
 * than the SECONDS it ran, and at FREQ per CPU second that is the sample count.
 */
static void check_tree(const struct h_folded *f, double cpu)
{
	unsigned long long a = h_sum_frame(f, "tree_a"), b = h_sum_frame(f, "tree_b");
	unsigned long long c = h_sum_frame(f, "tree_c"), main_ = h_sum_frame(f, "main");
	double want = cpu * FREQ;

	print_message("samples: total %llu, main %llu, tree_a %llu, tree_b %llu, tree_c %llu; "
		      "%.2f CPU s in %d s\n",
		      f->total, main_, a, b, c, cpu, SECONDS);
	if (!a || !b || !c || !main_ || !h_sum_frame(f, "burn")) {
		h_folded_dump(f, 40);
		fail_msg("a frame of main, tree_a, tree_b, tree_c, burn is missing");
	}
	/* tree_a does twice tree_b's work */
	assert_in_range(a * 100 / b, 150, 270);
	/* tree_b does nothing itself: tree_c is its only callee */
	assert_true(c * 100 >= b * 90);
	assert_int_equal(h_sum(f, not_under_tree_b, NULL), 0);
	/* nearly all of the run is under main (the rest: exec, ld.so, exit) */
	assert_true(main_ * 100 >= f->total * 80);
	assert_true(cpu >= SECONDS * 0.3 && cpu <= SECONDS * 2.5);
	assert_in_range(f->total, (unsigned long long)(want * 0.5),
			(unsigned long long)(want * 1.2));
}

static void test_tree_shape(void **state)
{
	struct h_folded f;
	char root[256];
	double cpu;

	(void)state;
	require_bpf();
	cpu = profile_cpu_tree("3", NULL, &f);
	for (size_t i = 0; i < f.n; i++) {
		if (strcmp(h_root(f.lines[i].stack, root, sizeof(root)), "cpu_tree")) {
			h_folded_dump(&f, 40);
			fail_msg("root '%s' is not 'cpu_tree'", root);
		}
	}
	check_tree(&f, cpu);
	h_folded_free(&f);
}

/* All roots are COMM-PID (or COMM-PID/TID) of one process; returns its pid. */
static long check_roots(const struct h_folded *f, bool tids)
{
	long pid0 = 0, pid, tid;
	char root[256], comm[256];

	for (size_t i = 0; i < f->n; i++) {
		h_root(f->lines[i].stack, root, sizeof(root));
		if (h_root_ids(root, comm, sizeof(comm), &pid, &tid) || strcmp(comm, "cpu_tree") ||
		    (tids && tid != pid) || (!tids && tid)) {
			h_folded_dump(f, 20);
			fail_msg("root '%s' is not 'cpu_tree-PID%s'", root, tids ? "/TID" : "");
		}
		if (pid0 && pid != pid0)
			fail_msg("two processes in the roots: %ld and %ld", pid0, pid);
		pid0 = pid;
	}
	return pid0;
}

static void test_pids_root(void **state)
{
	struct h_folded f;

	(void)state;
	require_bpf();
	profile_cpu_tree("1", "--pids", &f);
	assert_true(check_roots(&f, false) > 1);
	assert_true(h_sum_frame(&f, "tree_a") > 0);
	h_folded_free(&f);
}

static void test_tids_root(void **state)
{
	struct h_folded f;

	(void)state;
	require_bpf();
	profile_cpu_tree("1", "--tids", &f);
	assert_true(check_roots(&f, true) > 1);
	assert_true(h_sum_frame(&f, "tree_a") > 0);
	h_folded_free(&f);
}

/* A loop of exactly two sampling periods (tests/workloads/locked.c), a
 * quarter of it in quarter(): a fixed period would sample it at the same
 * two phases all along, giving quarter 0% or 50% of the samples. */
static void test_not_phase_locked(void **state)
{
	const char *out = h_path("locked.folded");

	(void)state;
	require_bpf();
	for (int i = 0; i < 3; i++) {
		unsigned long long q, r;
		struct h_folded f;
		double share;

		h_run_folded(NULL, 30, out, &f,
			     H_ARGV(h_flamebpf(), "--sample", "999hz", "-o", out, "--",
				    h_workload("locked"), "1.5", "2002.002"));
		q = h_sum_frame(&f, "quarter");
		r = h_sum_frame(&f, "rest");
		share = q + r ? 100.0 * q / (q + r) : 0;
		print_message("capture %d: quarter %.1f%% of %llu samples (really 25%%)\n", i + 1,
			      share, q + r);
		assert_true(q + r >= 300);
		assert_true(share >= 18 && share <= 32);
		h_folded_free(&f);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_tree_shape, h_test_teardown),
		cmocka_unit_test_teardown(test_pids_root, h_test_teardown),
		cmocka_unit_test_teardown(test_tids_root, h_test_teardown),
		cmocka_unit_test_teardown(test_not_phase_locked, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("sample_tree", tests, h_group_setup, h_group_teardown);
}
