// SPDX-License-Identifier: GPL-2.0
/*
 * Python frames under the CPythons other than Debian's 3.11 that pyenv
 * installed here: 3.10 (PyFrameObject chains, threads known by
 * pthread_self(), 3.10's line tables), 3.12 (its layout from flamebpf's
 * table, shim frames where C entered the evaluation loop) and 3.13 (its
 * layout read from its own _Py_DebugOffsets, the current instruction in
 * instr_ptr). For each,
 * tests/workloads/py_busy.py attached with -p and started as COMMAND: at
 * least 95% of the samples with Python frames, parse, compute and encode
 * within 10% of the program's own measure, the nesting and file:line as
 * the program runs. Skipped, saying so, where the version is absent.
 * And Debian's python3.11 run from a file only its own mount namespace
 * sees (as in a container): its runtime found through its root.
 */
#include "py_workloads.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* pyenv's python3.MINOR (any patch release) into buf, or skip. */
static void require_pyenv(int minor, char *buf, size_t len)
{
	const char *home = getenv("PYENV_ROOT"), *h = getenv("HOME");
	char pattern[512];
	glob_t g;

	if (home)
		snprintf(pattern, sizeof(pattern), "%s/versions/3.%d.*/bin/python3.%d", home, minor,
			 minor);
	else
		snprintf(pattern, sizeof(pattern), "%s/.pyenv/versions/3.%d.*/bin/python3.%d",
			 h ? h : "/root", minor, minor);
	if (glob(pattern, 0, NULL, &g) || !g.gl_pathc) {
		print_message("SKIP: no python3.%d of pyenv's (%s)\n", minor, pattern);
		skip();
	}
	snprintf(buf, len, "%s", g.gl_pathv[0]);
	globfree(&g);
}

/* An h_pred: the first frame of the function (a const char *[2]: its
 * "NAME (" and ":LINE)") at that line. */
static bool at_line(const char *stack, const void *arg)
{
	const char *const *want = arg, *at = strstr(stack, want[0]), *end;
	size_t len = strlen(want[1]);

	if (!at)
		return false;
	end = strchr(at + 1, ';');
	end = end ? end : at + strlen(at);
	return (size_t)(end - at) > len && !strncmp(end - len, want[1], len);
}

/* file:line as py_busy.py has them: the line each function runs, in 90%
 * of its samples (the rest: between two lines, entering a call). */
static void check_lines(const struct h_folded *f)
{
	static const char *const lines[][2] = {
		{ ";compute (", "py_busy.py:33)" },
		{ ";encode (", "py_busy.py:41)" },
		{ ";fib (", "py_busy.py:27)" },
		{ ";main (", "py_busy.py:56)" },
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		unsigned long long all = h_sum(f, pw_under_func, lines[i][0] + 1);
		unsigned long long right = h_sum(f, at_line, lines[i]);

		print_message("  %s%s: %.1f%% of its samples\n", lines[i][0] + 1, lines[i][1],
			      pw_pct(right, all));
		if (!all || right * 100 < all * 90)
			fail_msg("%s is not at %s", lines[i][0] + 1, lines[i][1]);
	}
}

/* py_busy under pyenv's python3.minor, attached to (-p) or as COMMAND. */
static void run(int minor, bool attach)
{
	const char *out =
		h_path(attach ? "py_version_attached.folded" : "py_version_command.folded");
	char python[512], name[32];
	struct h_result r;
	struct h_folded f;
	struct pw_truth t;

	require_bpf();
	require_pyenv(minor, python, sizeof(python));
	snprintf(name, sizeof(name), "python3.%d", minor);
	if (attach)
		pw_run_attached(python, out, &r, &f, &t);
	else
		pw_run_command(python, "4", out, &r, &f, &t);
	pw_check_profile(&f, &r, &t, name);
	check_lines(&f);
	h_folded_free(&f);
	h_result_free(&r);
}

static void test_attached_310(void **state)
{
	(void)state;
	run(10, true);
}

static void test_command_310(void **state)
{
	(void)state;
	run(10, false);
}

/* Threads known by pthread_self() (3.10), not their native id. */
static void test_threads_310(void **state)
{
	char python[512];

	(void)state;
	require_bpf();
	require_pyenv(10, python, sizeof(python));
	pw_check_threads(python, "threads");
}

static void test_threads_313(void **state)
{
	char python[512];

	(void)state;
	require_bpf();
	require_pyenv(13, python, sizeof(python));
	pw_check_threads(python, "threads");
}

static void test_attached_312(void **state)
{
	(void)state;
	run(12, true);
}

static void test_command_312(void **state)
{
	(void)state;
	run(12, false);
}

static void test_attached_313(void **state)
{
	(void)state;
	run(13, true);
}

static void test_command_313(void **state)
{
	(void)state;
	run(13, false);
}

/* python3.11 copied to a tmpfs mounted in a mount namespace of its own:
 * the path its mapping names is not one of ours. */
static void test_container(void **state)
{
	const char *dir = h_path("py-ns"), *out = h_path("py_ns.folded");
	const char *python = "/usr/bin/python3.11";
	char script[8192];
	struct h_result r;
	struct h_folded f;
	struct pw_truth t;

	(void)state;
	require_bpf();
	if (access(python, X_OK)) {
		print_message("SKIP: Debian's python3.11 is not installed\n");
		skip();
	}
	assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
	snprintf(script, sizeof(script),
		 "mount -t tmpfs tmpfs '%s' && cp '%s' '%s/' && exec '%s/python3.11' %s 4", dir,
		 python, dir, dir, PY_BUSY);
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "499", "-o", out, "--", "unshare", "-m",
			    "--propagation", "private", "sh", "-c", script));
	snprintf(script, sizeof(script), "%s/python3.11", dir);
	assert_false(h_exists(script)); /* only in its namespace */
	t = pw_must_truth(r.out);
	pw_check_profile(&f, &r, &t, "python3.11");
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_attached_310, h_test_teardown),
		cmocka_unit_test_teardown(test_command_310, h_test_teardown),
		cmocka_unit_test_teardown(test_threads_310, h_test_teardown),
		cmocka_unit_test_teardown(test_attached_312, h_test_teardown),
		cmocka_unit_test_teardown(test_command_312, h_test_teardown),
		cmocka_unit_test_teardown(test_attached_313, h_test_teardown),
		cmocka_unit_test_teardown(test_command_313, h_test_teardown),
		cmocka_unit_test_teardown(test_threads_313, h_test_teardown),
		cmocka_unit_test_teardown(test_container, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("python_versions", tests, h_group_setup,
					   h_group_teardown);
}
