// SPDX-License-Identifier: GPL-2.0
/*
 * System-wide sampling (no -p, no COMMAND): a program running beside it
 * shows up with its frames; output to a file and to standard output; and
 * perf's `-a -g -- sleep N`: every process while the command runs.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

/* Roots are "cpu_tree-PID" (--pids): other tests may run a cpu_tree too. */
static bool cpu_tree_root(const char *stack, const void *arg)
{
	const char *root = arg;
	size_t n = strlen(root);

	return strncmp(stack, root, n) == 0 && (stack[n] == ';' || stack[n] == '\0');
}

static bool cpu_tree_a(const char *stack, const void *arg)
{
	return cpu_tree_root(stack, arg) && h_has_frame(stack, "tree_a");
}

/*
 * CPU is what cpu_tree used while flamebpf ran (a little more than it was
 * sampled for): at FREQ samples per CPU second.
 */
static void check_profile(const struct h_folded *f, pid_t pid, double cpu, unsigned int freq)
{
	char root[64];
	unsigned long long mine;
	double want = cpu * freq;

	snprintf(root, sizeof(root), "cpu_tree-%d", (int)pid);
	mine = h_sum(f, cpu_tree_root, root);
	print_message("samples: total %llu, %s %llu, ...;tree_a %llu; cpu_tree used %.2f CPU s\n",
		      f->total, root, mine, h_sum(f, cpu_tree_a, root), cpu);
	if (!h_sum(f, cpu_tree_a, root)) {
		h_folded_dump(f, 40);
		fail_msg("no cpu_tree stack with tree_a");
	}
	assert_true(cpu > 0.2);
	assert_in_range(mine, (unsigned long long)(want * 0.5), (unsigned long long)(want * 1.2));
	assert_true(f->total >= mine);
}

/*
 * Runs flamebpf with ARGV (status 0) while a cpu_tree runs beside it; returns
 * the CPU time cpu_tree used meanwhile, and its pid in PID.
 */
static double run_beside_cpu_tree(struct h_result *r, const char *const argv[], pid_t *pid)
{
	struct h_proc work;
	double cpu;

	h_start_workload(&work, H_ARGV(h_workload("cpu_tree"), "10"));
	cpu = h_cpu_time(work.pid);
	assert_int_equal(h_run(r, 30, argv), 0);
	cpu = h_cpu_time(work.pid) - cpu;
	h_stop(&work);
	h_assert_status(r, 0);
	*pid = work.pid;
	return cpu;
}

/* Runs flamebpf with ARGV (writing OUT at 99 Hz, in at least MIN_SECS and
 * less than 10 s) beside cpu_tree, whose samples OUT must hold. */
static void check_file_beside_cpu_tree(const char *const argv[], const char *out, double min_secs)
{
	struct h_folded f;
	struct h_result r;
	double cpu;
	pid_t pid;

	cpu = run_beside_cpu_tree(&r, argv, &pid);
	print_message("flamebpf took %.2f s\n", r.elapsed);
	assert_true(r.elapsed >= min_secs && r.elapsed < 10);
	if (strstr(r.out, "cpu_tree"))
		fail_msg("samples written to stdout with -o");
	h_result_free(&r);
	h_folded_must_load(out, &f);
	check_profile(&f, pid, cpu, 99);
	h_folded_free(&f);
}

static void test_to_file(void **state)
{
	const char *out = h_path("system.folded");

	(void)state;
	require_bpf();
	check_file_beside_cpu_tree(
		H_ARGV(h_flamebpf(), "--sample", "99hz", "-d", "2", "--pids", "-o", out), out, 1.9);
}

static void test_to_stdout(void **state)
{
	struct h_folded f;
	struct h_result r;
	double cpu;
	pid_t pid;

	(void)state;
	require_bpf();
	/* also the -F spelling and a kHz frequency */
	cpu = run_beside_cpu_tree(&r, H_ARGV(h_flamebpf(), "-F", "1khz", "-d", "1", "--pids"),
				  &pid);
	h_folded_must_parse(r.out, "stdout", &f);
	check_profile(&f, pid, cpu, 1000);
	h_folded_free(&f);
	h_result_free(&r);
}

/* The COMMAND only bounds the capture: cpu_tree beside it is sampled too,
 * and flamebpf stops when sleep exits. */
static void test_all_while_command(void **state)
{
	const char *out = h_path("all.folded");

	(void)state;
	require_bpf();
	check_file_beside_cpu_tree(H_ARGV(h_flamebpf(), "-F", "99", "-a", "-g", "--pids", "-o", out,
					  "--", "sleep", "1.5"),
				   out, 1.4);
}

/* --top 2 system-wide: two processes left, the heaviest (a loaded machine
 * may run heavier ones than cpu_tree beside it), and the summary's share
 * is theirs: their samples over all the capture's. A second cpu_tree runs
 * too: a quiet machine may run nothing else on a CPU within the second. */
static void test_top(void **state)
{
	const char *out = h_path("top.folded");
	unsigned long long all, of;
	struct h_summary sum;
	double share, d;
	char comm[64], seen[2][64] = { "", "" };
	struct h_proc second;
	struct h_folded f;
	struct h_result r;
	const char *line;
	pid_t pid;

	(void)state;
	require_bpf();
	h_start_workload(&second, H_ARGV(h_workload("cpu_tree"), "10"));
	run_beside_cpu_tree(&r,
			    H_ARGV(h_flamebpf(), "-F", "99", "-a", "-d", "1", "--pids", "--top",
				   "2", "-o", out),
			    &pid);
	h_stop(&second);
	line = strstr(r.err, "top 2 processes of ");
	if (!line || sscanf(line, "top 2 processes of %llu: %lf%%", &of, &share) != 2)
		fail_msg("no share of the top processes in the summary: %s", r.err);
	assert_true(h_parse_summary(r.err, &sum));
	all = sum.samples;
	h_result_free(&r);
	h_folded_must_load(out, &f);
	for (size_t i = 0; i < f.n; i++) {
		size_t k = 0;

		h_root(f.lines[i].stack, comm, sizeof(comm));
		while (k < 2 && seen[k][0] && strcmp(seen[k], comm))
			k++;
		if (k == 2)
			fail_msg("a third process in the top 2: %s", f.lines[i].stack);
		snprintf(seen[k], sizeof(seen[k]), "%s", comm);
	}
	print_message("top 2 of %llu processes: %s, %s; %llu of %llu samples, %.1f%% said\n", of,
		      seen[0], seen[1], f.total, all, share);
	d = 100.0 * f.total / all - share;
	assert_true(of >= 2);
	assert_true(d < 0.1 && d > -0.1);
	h_folded_free(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_to_file, h_test_teardown),
		cmocka_unit_test_teardown(test_to_stdout, h_test_teardown),
		cmocka_unit_test_teardown(test_all_while_command, h_test_teardown),
		cmocka_unit_test_teardown(test_top, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("system_wide", tests, h_group_setup, h_group_teardown);
}
