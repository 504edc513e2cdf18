// SPDX-License-Identifier: GPL-2.0
/*
 * -- COMMAND: flamebpf exits with its exit status, its children (forked, or forked
 * and exec'd) are followed, -d cuts a longer command short, and a command
 * that cannot be run is an error. What the command's process does before
 * its exec, flamebpf's own code waiting to be let go, is not the command's.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

static bool spawner_child(const char *stack, const void *arg)
{
	(void)arg;
	return strncmp(stack, "spawner;", 8) == 0 && h_has_frame(stack, "child_spin");
}

static bool execd_child(const char *stack, const void *arg)
{
	(void)arg;
	return strncmp(stack, "cpu_tree;", 9) == 0 && h_has_frame(stack, "main");
}

/* Whether TEXT says "status N" (N not followed by more digits). */
static bool says_status(const char *text, int n)
{
	char want[32];
	size_t len = snprintf(want, sizeof(want), "status %d", n);

	for (const char *s = text; (s = strstr(s, want)); s++)
		if (s[len] < '0' || s[len] > '9')
			return true;
	return false;
}

/* Runs ARGV (flamebpf and its command) and checks its exit status. */
static void run_status(struct h_result *r, const char *const argv[], int want)
{
	assert_int_equal(h_run(r, 60, argv), 0);
	if (r->status != want) {
		h_dump(r, "flamebpf");
		fail_msg("exit status %d, expected %d", r->status, want);
	}
}

/* flamebpf exits with the command's own status, as perf record does: a CI
 * job that wraps its tests in flamebpf sees them fail. */
static void test_exit_status_passed(void **state)
{
	const char *out = h_path("status.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	run_status(&r,
		   H_ARGV(h_flamebpf(), "--sample", "199", "-o", out, "--", h_workload("cpu_tree"),
			  "1", "3"),
		   3);
	if (!says_status(r.err, 3)) {
		h_dump(&r, "flamebpf");
		fail_msg("stderr does not report the command's exit status 3");
	}
	h_result_free(&r);
	h_folded_must_load(out, &f);
	assert_true(h_sum_frame(&f, "tree_a") > 0);
	h_folded_free(&f);
	/* uprobe mode too */
	run_status(&r,
		   H_ARGV(h_flamebpf(), "-f", "^tree_a$", "-o", out, "--", h_workload("cpu_tree"),
			  "0.3", "5"),
		   5);
	h_result_free(&r);
}

/* Nothing captured is not what a failed command's caller needs to know
 * first: its status still, the reason on stderr, no output file. */
static void test_exit_status_without_samples(void **state)
{
	const char *out = h_path("nothing.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	run_status(&r, H_ARGV(h_flamebpf(), "-F", "99", "-o", out, "--", "sh", "-c", "exit 3"), 3);
	assert_non_null(strstr(r.err, "flamebpf: no samples"));
	assert_false(h_exists(out));
	h_result_free(&r);
	/* a command that succeeded: the empty capture is flamebpf's failure */
	run_status(&r, H_ARGV(h_flamebpf(), "-F", "99", "-o", out, "--", "true"), 1);
	assert_false(h_exists(out));
	h_result_free(&r);
}

/* Killed by signal N: 128 + N, as a shell says it. */
static void test_exit_status_signals(void **state)
{
	const char *out = h_path("signal.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	run_status(&r,
		   H_ARGV(h_flamebpf(), "-F", "99", "-o", out, "--", "sh", "-c", "kill -ABRT $$"),
		   134);
	assert_non_null(strstr(r.err, "command killed by signal 6"));
	h_result_free(&r);
	run_status(&r,
		   H_ARGV(h_flamebpf(), "-F", "99", "-o", out, "--", "sh", "-c", "kill -KILL $$"),
		   137);
	h_result_free(&r);
}

/* flamebpf's own failures keep 1 and 2; the command's failure wins. */
static void test_exit_status_own_failures(void **state)
{
	struct h_result r;

	(void)state;
	require_bpf();
	/* the output cannot be written (a full disk) */
	run_status(&r,
		   H_ARGV(h_flamebpf(), "-F", "999", "-o", "/dev/full", "--", h_workload("cpu_tree"),
			  "0.3"),
		   1);
	assert_non_null(strstr(r.err, "No space left on device"));
	h_result_free(&r);
	run_status(&r,
		   H_ARGV(h_flamebpf(), "-F", "999", "-o", "/dev/full", "--", h_workload("cpu_tree"),
			  "0.3", "4"),
		   4);
	assert_non_null(strstr(r.err, "No space left on device"));
	h_result_free(&r);
	/* a bad option: the command never runs */
	run_status(&r, H_ARGV(h_flamebpf(), "-F", "99", "--bogus", "--", "sh", "-c", "exit 3"), 2);
	h_result_free(&r);
}

static void test_children_followed(void **state)
{
	const char *out = h_path("children.folded");
	unsigned long long execd, forked;
	struct h_folded f;
	struct h_result r;
	double want;

	(void)state;
	require_bpf();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "499", "-o", out, "--", h_workload("spawner"),
			    "1.5", h_workload("cpu_tree"), "1.5"));
	/* both children spin for 1.5 s: each gets about half of the CPU used */
	want = r.cpu * 499;
	h_result_free(&r);
	execd = h_sum(&f, execd_child, NULL);
	forked = h_sum(&f, spawner_child, NULL);
	print_message("samples: total %llu, exec'd child %llu, forked child %llu; %.0f expected\n",
		      f.total, execd, forked, want);
	if (execd < want * 0.2 || forked < want * 0.2) {
		h_folded_dump(&f, 30);
		fail_msg("a child of the command was not sampled (each ran 1.5 s)");
	}
	assert_true(want > 200);
	assert_true(execd + forked <= want * 1.2);
	h_folded_free(&f);
}

static void test_duration_stops_command(void **state)
{
	const char *out = h_path("duration.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "99", "-d", "1", "-o", out, "--",
			    h_workload("cpu_tree"), "10"));
	print_message("-d 1 with a 10 s command took %.2f s\n", r.elapsed);
	assert_true(r.elapsed < 5);
	assert_true(r.elapsed >= 0.9);
	h_result_free(&r);
	/* at most 1 s at 99 Hz (less on a busy machine) */
	assert_in_range(f.total, 20, 120);
	h_folded_free(&f);
}

static void test_command_not_found(void **state)
{
	const char *out = h_path("notfound.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "--sample", "99", "-o", out, "--",
				      "/nonexistent-dir/no-such-command", "1")),
			 0);
	/* a runtime failure (1); a usage error (2) is defensible too */
	if (r.status != 1 && r.status != 2) {
		h_dump(&r, "flamebpf");
		fail_msg("exit status %d, expected 1 (or 2)", r.status);
	}
	if (!strstr(r.err, "/nonexistent-dir/no-such-command")) {
		h_dump(&r, "flamebpf");
		fail_msg("stderr does not name the command");
	}
	assert_true(r.elapsed < 5);
	h_result_free(&r);
}

/* Off the CPU, the command's process waits on a pipe before its exec
 * (command__spawn) for as long as flamebpf takes to attach: that wait,
 * "true;read;...;anon_pipe_read_[k];[sleeping]" in every capture before,
 * is not /bin/true's (which reads nothing); its exec and its run are. */
static void test_wait_before_exec_left_out(void **state)
{
	const char *out = h_path("preexec.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--off-cpu", "-F", "999", "-o", out, "--", "/bin/true"));
	h_result_free(&r);
	if (!f.n)
		fail_msg("nothing of /bin/true, its exec or its run");
	for (size_t i = 0; i < f.n; i++)
		if (h_has_frame(f.lines[i].stack, "read") ||
		    h_has_frame(f.lines[i].stack, "anon_pipe_read_[k]")) {
			h_folded_dump(&f, 20);
			fail_msg("the wait before the exec is in the profile: %s", f.lines[i].stack);
		}
	h_folded_free(&f);
}

/* Traced calls likewise: before, the child's own signal(), close() and
 * execvp() (which never returned) were counted as md5sum's. md5sum makes
 * 2 of these calls, reads of the file and of its end (its stdio closes by
 * another function; cat, which closes by close(), copies a file to a file
 * without a read). */
static void test_calls_before_exec_left_out(void **state)
{
	const char *out = h_path("preexec_calls.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "libc.so.6:^(read|execvp|close|signal)$", "-o", out,
			    "--", "/usr/bin/md5sum", "/etc/hostname"));
	for (size_t i = 0; i < f.n; i++)
		if (h_has_frame(f.lines[i].stack, "execvp") ||
		    h_has_frame(f.lines[i].stack, "signal")) {
			h_folded_dump(&f, 20);
			fail_msg("a call before the exec is in the profile: %s", f.lines[i].stack);
		}
	if (!strstr(r.err, "2 calls of 4 functions")) {
		h_dump(&r, "flamebpf");
		fail_msg("not md5sum's 2 calls");
	}
	h_result_free(&r);
	h_folded_free(&f);
}

/* The profile to standard output, a file here, which the command writes
 * to too: said, once; with -o, nothing said. */
static void test_shared_stdout_said(void **state)
{
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "-F", "99", "--", "/bin/echo", "hi")),
			 0);
	if (!strstr(r.err, "standard output, which '/bin/echo' writes to too")) {
		h_dump(&r, "flamebpf");
		fail_msg("no word that the command's output and the profile are mixed");
	}
	h_result_free(&r);
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "-F", "99", "-o", h_path("own.folded"), "--",
				      "/bin/echo", "hi")),
			 0);
	assert_null(strstr(r.err, "standard output"));
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_exit_status_passed, h_test_teardown),
		cmocka_unit_test_teardown(test_exit_status_without_samples, h_test_teardown),
		cmocka_unit_test_teardown(test_exit_status_signals, h_test_teardown),
		cmocka_unit_test_teardown(test_exit_status_own_failures, h_test_teardown),
		cmocka_unit_test_teardown(test_children_followed, h_test_teardown),
		cmocka_unit_test_teardown(test_duration_stops_command, h_test_teardown),
		cmocka_unit_test_teardown(test_command_not_found, h_test_teardown),
		cmocka_unit_test_teardown(test_wait_before_exec_left_out, h_test_teardown),
		cmocka_unit_test_teardown(test_calls_before_exec_left_out, h_test_teardown),
		cmocka_unit_test_teardown(test_shared_stdout_said, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("command", tests, h_group_setup, h_group_teardown);
}
