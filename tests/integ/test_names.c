// SPDX-License-Identifier: GPL-2.0
/*
 * Names that are not in the sampled binary's own symbol table, under real
 * sampling: a stripped build of tests/workloads/cpu_tree.c whose functions
 * are in its .gnu_debuglink file, and the JIT code of tests/workloads/jit.c
 * named by the perf map its process wrote.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void profile(const char *workload, const char *out, struct h_folded *f)
{
	const char *const argv[] = { h_flamebpf(), "--sample", "999hz",
				     "-U",	   "--pids",   "-o",
				     out,	   "--",       h_workload(workload),
				     "1",	   NULL };

	h_run_folded(NULL, 30, out, f, argv);
	if (f->total < 100) {
		h_folded_dump(f, 20);
		fail_msg("only %llu samples of %s in 1 s at 999 Hz", f->total, workload);
	}
}

/* Whether the file (a small workload) holds the name of a .symtab section. */
static bool has_symtab(const char *path)
{
	static char buf[4 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		fail_msg("cannot read '%s': run 'make test-integ'", path);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 0 && n < sizeof(buf));
	return memmem(buf, n, ".symtab", sizeof(".symtab")) != NULL;
}

static void test_stripped_debuglink(void **state)
{
	struct h_folded f;

	(void)state;
	require_bpf();
	if (has_symtab(h_workload("stripped/cpu_tree")))
		fail_msg("%s is not stripped", h_workload("stripped/cpu_tree"));
	profile("stripped/cpu_tree", h_path("stripped.folded"), &f);
	if (!h_sum_frame(&f, "tree_a") || !h_sum_frame(&f, "tree_c") || !h_sum_frame(&f, "burn")) {
		h_folded_dump(&f, 30);
		fail_msg("no tree_a, tree_c or burn frame: the debuglink file was not used");
	}
	assert_true(h_sum_frame(&f, "main") * 100 >= f.total * 80);
	h_folded_free(&f);
}

/* The map outlives the process: the test removes it. */
static void remove_perf_map(const struct h_folded *f)
{
	char root[256], comm[64], path[64];
	long pid, tid;

	for (size_t i = 0; i < f->n; i++) {
		h_root(f->lines[i].stack, root, sizeof(root));
		if (h_root_ids(root, comm, sizeof(comm), &pid, &tid) || strcmp(comm, "jit"))
			continue;
		snprintf(path, sizeof(path), "/tmp/perf-%ld.map", pid);
		unlink(path);
	}
}

static bool jit_under_main(const char *stack, const void *arg)
{
	(void)arg;
	return h_has_seq(stack, "main;jitted_loop");
}

static void test_jit_perf_map(void **state)
{
	unsigned long long jit;
	struct h_folded f;

	(void)state;
	require_bpf();
	profile("jit", h_path("jit.folded"), &f);
	remove_perf_map(&f);
	jit = h_sum_frame(&f, "jitted_loop");
	print_message("samples: total %llu, jitted_loop %llu, under main %llu\n", f.total, jit,
		      h_sum(&f, jit_under_main, NULL));
	if (jit * 100 < f.total * 70) {
		h_folded_dump(&f, 30);
		fail_msg("jitted_loop has %llu of %llu samples", jit, f.total);
	}
	/* the frame pointer chain runs through the JIT frame on to main */
	assert_true(h_sum(&f, jit_under_main, NULL) * 100 >= jit * 70);
	h_folded_free(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_stripped_debuglink, h_test_teardown),
		cmocka_unit_test_teardown(test_jit_perf_map, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("names", tests, h_group_setup, h_group_teardown);
}
