// SPDX-License-Identifier: GPL-2.0
/*
 * System-wide sampling (no -p, no COMMAND): a program running beside it
 * shows up with its frames; output to a file and to standard output.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

static bool cpu_tree_a(const char *stack, const void *arg)
{
	(void)arg;
	return strncmp(stack, "cpu_tree;", 9) == 0 && h_has_frame(stack, "tree_a");
}

static bool cpu_tree_root(const char *stack, const void *arg)
{
	(void)arg;
	return strncmp(stack, "cpu_tree;", 9) == 0 || strcmp(stack, "cpu_tree") == 0;
}

/*
 * CPU is what cpu_tree used while flamebpf ran (a little more than it was
 * sampled for): at FREQ samples per CPU second.
 */
static void check_profile(const struct h_folded *f, double cpu, unsigned int freq)
{
	unsigned long long mine = h_sum(f, cpu_tree_root, NULL);
	double want = cpu * freq;

	print_message("samples: total %llu, cpu_tree %llu, cpu_tree;...;tree_a %llu; "
		      "cpu_tree used %.2f CPU s\n",
		      f->total, mine, h_sum(f, cpu_tree_a, NULL), cpu);
	if (!h_sum(f, cpu_tree_a, NULL)) {
		h_folded_dump(f, 40);
		fail_msg("no cpu_tree stack with tree_a");
	}
	assert_true(cpu > 0.2);
	assert_in_range(mine, (unsigned long long)(want * 0.5), (unsigned long long)(want * 1.2));
	assert_true(f->total >= mine);
}

static void test_to_file(void **state)
{
	const char *out = h_path("system.folded");
	struct h_proc work;
	struct h_folded f;
	struct h_result r;
	double cpu;

	(void)state;
	require_bpf();
	assert_int_equal(h_start(&work, H_ARGV(h_workload("cpu_tree"), "10")), 0);
	h_sleep(0.2);
	cpu = h_cpu_time(work.pid);
	assert_int_equal(
		h_run(&r, 30, H_ARGV(h_flamebpf(), "--sample", "99hz", "-d", "2", "-o", out)), 0);
	cpu = h_cpu_time(work.pid) - cpu;
	h_stop(&work);
	h_assert_status(&r, 0);
	assert_true(r.elapsed < 10);
	if (strstr(r.out, "cpu_tree"))
		fail_msg("samples written to stdout with -o");
	h_result_free(&r);
	h_folded_must_load(out, &f);
	check_profile(&f, cpu, 99);
	h_folded_free(&f);
}

static void test_to_stdout(void **state)
{
	struct h_proc work;
	struct h_folded f;
	struct h_result r;
	double cpu;

	(void)state;
	require_bpf();
	assert_int_equal(h_start(&work, H_ARGV(h_workload("cpu_tree"), "10")), 0);
	h_sleep(0.2);
	/* also the -F spelling and a kHz frequency */
	cpu = h_cpu_time(work.pid);
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "-F", "1khz", "-d", "1")), 0);
	cpu = h_cpu_time(work.pid) - cpu;
	h_stop(&work);
	h_assert_status(&r, 0);
	h_folded_must_parse(r.out, "stdout", &f);
	check_profile(&f, cpu, 1000);
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_to_file, h_test_teardown),
		cmocka_unit_test_teardown(test_to_stdout, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("system_wide", tests, h_group_setup, h_group_teardown);
}
