// SPDX-License-Identifier: GPL-2.0
/*
 * -l 'usdt:BINARY:REGEX': the USDT probes a binary declares, as
 * "BINARY:PROVIDER:NAME ARGS" lines: tests/fixtures/sdtfix.c's four,
 * Debian's libstdc++'s and python3.11's, a running process's; and what it
 * refuses. No BPF: it reads ELF notes.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void list(struct h_result *r, const char *spec)
{
	assert_int_equal(h_run(r, 30, H_ARGV(h_flamebpf(), "-l", spec)), 0);
}

static void test_fixture(void **state)
{
	char path[1024], spec[1200], want[5000];
	struct h_result r;

	(void)state;
	if (!realpath("build/tests/fixtures/sdtfix_pie", path))
		fail_msg("no fixture build/tests/fixtures/sdtfix_pie");
	snprintf(spec, sizeof(spec), "usdt:%s:", path);
	list(&r, spec);
	h_assert_status(&r, 0);
	snprintf(want, sizeof(want),
		 "%s:fix:noargs\n%s:fix:one -4@%%edi\n%s:fix:three -8@%%rdi -1@%%sil 8@%%rdx\n"
		 "%s:fix:guarded\n",
		 path, path, path, path);
	assert_string_equal(r.out, want);
	h_result_free(&r);
	snprintf(spec, sizeof(spec), "usdt:%s:^fix:t", path);
	list(&r, spec);
	h_assert_status(&r, 0);
	assert_int_equal(h_count_lines(r.out), 1);
	assert_non_null(strstr(r.out, ":fix:three "));
	h_result_free(&r);
}

static void test_libstdcxx(void **state)
{
	struct h_result r;

	(void)state;
	list(&r, "usdt:libstdc++:");
	h_assert_status(&r, 0);
	print_message("%s", r.out);
	assert_non_null(strstr(r.out, "libstdc++.so.6"));
	assert_non_null(strstr(r.out, ":libstdcxx:throw "));
	assert_non_null(strstr(r.out, ":libstdcxx:catch "));
	assert_non_null(strstr(r.out, ":libstdcxx:rethrow "));
	h_result_free(&r);
}

/* python3.11 as Debian builds it has its probes; -p lists those of every
 * binary the process maps. */
static void test_python_process(void **state)
{
	char pid[16];
	struct h_result r;
	struct h_proc p;

	(void)state;
	if (access("/usr/bin/python3.11", X_OK))
		skip();
	h_start_workload(&p, H_ARGV("/usr/bin/python3.11", "-c", "import time; time.sleep(30)"));
	h_sleep(0.3);
	snprintf(pid, sizeof(pid), "%d", p.pid);
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "-l", "usdt::gc__", "-p", pid)), 0);
	h_stop(&p);
	h_assert_status(&r, 0);
	print_message("%s", r.out);
	assert_non_null(strstr(r.out, "/usr/bin/python3.11:python:gc__start "));
	assert_non_null(strstr(r.out, "/usr/bin/python3.11:python:gc__done "));
	assert_int_equal(h_count_lines(r.out), 2);
	h_result_free(&r);
}

static void test_refused(void **state)
{
	static const struct {
		const char *args[4], *said;
	} cases[] = {
		{ { "-l", "usdt:/bin/true:" }, "no USDT probe in /usr/bin/true" },
		{ { "-l", "usdt:libstdc++:nope" }, "no USDT probe matches nope" },
		{ { "-l", "usdt:" }, "give the binary" },
		{ { "-l", "usdt:libstdc++:(" }, "invalid regular expression '('" },
		{ { "-l", "usdt:nosuchlib:" }, "no binary 'nosuchlib'" },
		{ { "-f", "usdt:libstdc++:throw", "--", "true" },
		  "counting USDT probes is not built" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[8] = { h_flamebpf() };
		struct h_result r;
		size_t n = 1;

		for (size_t k = 0; k < 4 && cases[i].args[k]; k++)
			argv[n++] = cases[i].args[k];
		assert_int_equal(h_run(&r, 30, argv), 0);
		h_assert_status(&r, 2);
		if (!strstr(r.err, cases[i].said))
			fail_msg("case %zu: '%s' not said: %s", i, cases[i].said, r.err);
		h_result_free(&r);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_fixture, h_test_teardown),
		cmocka_unit_test_teardown(test_libstdcxx, h_test_teardown),
		cmocka_unit_test_teardown(test_python_process, h_test_teardown),
		cmocka_unit_test_teardown(test_refused, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("usdt_list", tests, h_group_setup, h_group_teardown);
}
