// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input: usage errors exit 2 with one line naming what was wrong (no BPF
 * needed); runtime errors (no such pid, an output that cannot be written, no
 * privileges) exit 1, name their subject, fail before sampling and leave no
 * output file; --help and --version exit 0.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The first line of TEXT, in BUF. */
static const char *first_line(const char *text, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
	return buf;
}

/* Runs flamebpf with ARGV (argv[0] is replaced), expecting a usage error about WHAT. */
static void expect_usage_error(const char *const argv[], const char *what)
{
	const char *out = h_path("usage.folded");
	const char *args[32] = { h_flamebpf() };
	struct h_result r;
	char line[512];
	size_t n = 1;

	for (; argv[n] && n < 30; n++)
		args[n] = argv[n];
	args[n++] = "-o";
	args[n++] = out;
	assert_int_equal(h_run(&r, 10, args), 0);
	h_assert_status(&r, 2);
	first_line(r.err, line, sizeof(line));
	print_message("%s -> %s\n", what, line);
	if (strncmp(line, "flamebpf: ", 10) || !strstr(line, what)) {
		h_dump(&r, "flamebpf");
		fail_msg("the first stderr line does not name '%s'", what);
	}
	assert_true(h_count_lines(r.err) <= 3);
	assert_string_equal(r.out, "");
	assert_false(h_exists(out));
	h_result_free(&r);
}

static void test_bad_frequency(void **state)
{
	static const char *const bad[] = { "0",		 "abc",	  "99x",
					   "-5",	 "1e9hz", "99.5hz",
					   "hz",	 "99 hz", "99999999999999999999",
					   "1000000khz", "" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_usage_error(H_ARGV("", "--sample", bad[i], "-d", "1"), bad[i]);
	expect_usage_error(H_ARGV("", "-F", "12q", "-d", "1"), "12q");
	/* a rate the kernel takes but whose timer can take all of a CPU */
	expect_usage_error(H_ARGV("", "-F", "100000", "-d", "1"), "100000 Hz");
	expect_usage_error(H_ARGV("", "-e", "task-clock", "-F", "60000", "-d", "1"), "60000 Hz");
}

static void test_bad_options(void **state)
{
	(void)state;
	expect_usage_error(H_ARGV("", "--sample", "99", "--no-such-option"), "no-such-option");
	expect_usage_error(H_ARGV("", "--sample", "99", "-d", "soon"), "soon");
	expect_usage_error(H_ARGV("", "--sample", "99", "-d", "-1"), "-1");
	expect_usage_error(H_ARGV("", "--sample", "99", "-p", "12ab"), "12ab");
	expect_usage_error(H_ARGV("", "--sample", "99", "-p", "-3"), "-3");
	expect_usage_error(H_ARGV("", "--sample", "99", "--format", "jpeg"), "jpeg");
	/* the split of traced calls' time: uprobe mode only */
	expect_usage_error(H_ARGV("", "--sample", "99", "--cpu-split"), "--cpu-split");
}

static void test_no_mode(void **state)
{
	struct h_result r;

	(void)state;
	assert_int_equal(h_run(&r, 10, H_ARGV(h_flamebpf(), "-d", "1", "--", "true")), 0);
	h_assert_status(&r, 2);
	assert_true(h_count_lines(r.err) >= 1);
	assert_string_equal(r.out, "");
	h_result_free(&r);
	assert_int_equal(h_run(&r, 10, H_ARGV(h_flamebpf(), "--sample")), 0);
	h_assert_status(&r, 2);
	h_result_free(&r);
}

static void test_help_and_version(void **state)
{
	struct h_result r;

	(void)state;
	assert_int_equal(h_run(&r, 10, H_ARGV(h_flamebpf(), "--help")), 0);
	h_assert_status(&r, 0);
	assert_non_null(strcasestr(r.out, "usage"));
	assert_non_null(strstr(r.out, "--sample"));
	assert_string_equal(r.err, "");
	h_result_free(&r);
	assert_int_equal(h_run(&r, 10, H_ARGV(h_flamebpf(), "--version")), 0);
	h_assert_status(&r, 0);
	assert_non_null(strstr(r.out, "flamebpf"));
	assert_true(strpbrk(r.out, "0123456789") != NULL);
	assert_true(h_count_lines(r.out) <= 2);
	h_result_free(&r);
}

/*
 * A runtime error: exit WANT (1; -1 for any failure), stderr names WHAT,
 * quick (found before sampling started).
 */
static void expect_runtime_error(const char *const argv[], const char *what, int want)
{
	struct h_result r;

	assert_int_equal(h_run(&r, 30, argv), 0);
	print_message("-> %.*s\n", (int)strcspn(r.err, "\n"), r.err);
	if (want < 0 && (r.status == 0 || r.status > 2)) {
		h_dump(&r, "flamebpf");
		fail_msg("exit status %d, expected 1 (or 2)", r.status);
	}
	if (want >= 0)
		h_assert_status(&r, want);
	if (!strstr(r.err, what)) {
		h_dump(&r, "flamebpf");
		fail_msg("stderr does not name '%s'", what);
	}
	if (r.elapsed >= 2)
		fail_msg("took %.2f s: the error was found after sampling started", r.elapsed);
	h_result_free(&r);
}

static void test_no_such_pid(void **state)
{
	const char *out = h_path("nopid.folded");
	char reaped[32];
	pid_t pid;

	(void)state;
	require_bpf();
	expect_runtime_error(
		H_ARGV(h_flamebpf(), "--sample", "99", "-p", "999999999", "-d", "5", "-o", out),
		"999999999", -1);
	assert_false(h_exists(out));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(reaped, sizeof(reaped), "%d", (int)pid);
	expect_runtime_error(
		H_ARGV(h_flamebpf(), "--sample", "99", "-p", reaped, "-d", "5", "-o", out), reaped,
		-1);
	assert_false(h_exists(out));
}

static void test_unwritable_output(void **state)
{
	const char *paths[] = { "/nonexistent-dir/x.folded", "/sys/flamebpf-test.folded",
				"/proc/self/flamebpf-test.folded" };
	/* a file or directory that exists is not said to be missing */
	const char *const existing[][2] = {
		{ "/proc/version", "Operation not supported: its directory takes no new files" },
		{ "/tmp", "Is a directory" },
	};
	char what[256];

	(void)state;
	require_bpf();
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		expect_runtime_error(
			H_ARGV(h_flamebpf(), "--sample", "99", "-d", "5", "-o", paths[i]), paths[i],
			1);
		assert_false(h_exists(paths[i]));
	}
	expect_runtime_error(H_ARGV(h_flamebpf(), "--sample", "99", "-d", "5", "-o", paths[0]),
			     "No such file or directory", 1);
	for (size_t i = 0; i < sizeof(existing) / sizeof(existing[0]); i++) {
		snprintf(what, sizeof(what), "cannot write '%s': %s", existing[i][0],
			 existing[i][1]);
		expect_runtime_error(
			H_ARGV(h_flamebpf(), "--sample", "99", "-d", "5", "-o", existing[i][0]),
			geteuid() ? existing[i][0] : what, 1);
	}
}

static void test_no_privileges(void **state)
{
	const char *dir = h_path("unprivileged");
	const char *out = h_path("unprivileged/x.folded");
	const char *const as_nobody[] = { "setpriv",
					  "--reuid=65534",
					  "--regid=65534",
					  "--clear-groups",
					  "--inh-caps=-all",
					  h_flamebpf(),
					  "--sample",
					  "99",
					  "-d",
					  "1",
					  "-o",
					  out,
					  NULL };
	const char *const *argv = as_nobody;
	struct h_result r;

	(void)state;
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(chmod(h_tmpdir(), 0711), 0);
	if (geteuid() != 0)
		argv = as_nobody + 5; /* already unprivileged */
	assert_int_equal(h_run(&r, 20, argv), 0);
	if (r.status == 127 || strstr(r.err, "setpriv:")) {
		print_message("SKIP: cannot run flamebpf as nobody: %s\n", r.err);
		h_result_free(&r);
		skip();
	}
	print_message("-> %.*s\n", (int)strcspn(r.err, "\n"), r.err);
	h_assert_status(&r, 1);
	if (!strcasestr(r.err, "privilege") && !strstr(r.err, "CAP_") && !strstr(r.err, "root")) {
		h_dump(&r, "flamebpf");
		fail_msg("stderr does not say that privileges are missing");
	}
	assert_false(h_exists(out));
	assert_true(r.elapsed < 5);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_bad_frequency, h_test_teardown),
		cmocka_unit_test_teardown(test_bad_options, h_test_teardown),
		cmocka_unit_test_teardown(test_no_mode, h_test_teardown),
		cmocka_unit_test_teardown(test_help_and_version, h_test_teardown),
		cmocka_unit_test_teardown(test_no_such_pid, h_test_teardown),
		cmocka_unit_test_teardown(test_unwritable_output, h_test_teardown),
		cmocka_unit_test_teardown(test_no_privileges, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("bad_input", tests, h_group_setup, h_group_teardown);
}
