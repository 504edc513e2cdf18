// SPDX-License-Identifier: GPL-2.0
/*
 * Stopping by signal: Ctrl-C (SIGINT to the whole process group), SIGTERM and
 * SIGHUP to flamebpf alone, and SIGINT to a system-wide run with no -d.  Each
 * time flamebpf exits 0 soon and leaves a complete folded file with samples.
 */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

enum target { TO_PROCESS, TO_GROUP };

static void check_output(const char *out, const char *comm)
{
	struct h_folded f;
	char want[64];

	h_folded_must_load(out, &f);
	snprintf(want, sizeof(want), "%s;", comm);
	if (f.total < 20 || !h_sum_frame(&f, "tree_a")) {
		h_folded_dump(&f, 30);
		fail_msg("'%s': %llu samples, expected cpu_tree's tree_a among them", out, f.total);
	}
	for (size_t i = 0; i < f.n && comm; i++)
		if (strncmp(f.lines[i].stack, want, strlen(want)))
			fail_msg("root of '%s' is not '%s'", f.lines[i].stack, comm);
	h_folded_free(&f);
}

/* Signals a running flamebpf 1 s after it attached; it must exit 0 within 5 s. */
static void stop_with(struct h_proc *p, int sig, enum target to)
{
	struct h_result r;
	double sent;

	h_wait_attached(p->pid, 15);
	h_sleep(1);
	sent = h_now();
	if (to == TO_GROUP)
		h_signal_group(p, sig);
	else
		h_signal(p, sig);
	h_finish(p, sent - p->started + 5, &r);
	if (r.status != 0) {
		h_dump(&r, "flamebpf");
		fail_msg("after %s flamebpf exited with %d, expected 0 within 5 s", strsignal(sig),
			 r.status);
	}
	print_message("%s: exited after %.2f s\n", strsignal(sig), h_now() - sent);
	h_result_free(&r);
}

static void run_command_and_stop(int sig, enum target to, const char *out)
{
	struct h_proc p;

	require_bpf();
	assert_int_equal(h_start(&p, H_ARGV(h_flamebpf(), "--sample", "99", "-d", "30", "-o", out,
					    "--", h_workload("cpu_tree"), "30")),
			 0);
	stop_with(&p, sig, to);
	check_output(out, "cpu_tree");
}

static void test_sigint_group(void **state)
{
	(void)state;
	run_command_and_stop(SIGINT, TO_GROUP, h_path("int.folded"));
}

static void test_sigterm(void **state)
{
	(void)state;
	run_command_and_stop(SIGTERM, TO_PROCESS, h_path("term.folded"));
}

static void test_sighup(void **state)
{
	(void)state;
	run_command_and_stop(SIGHUP, TO_PROCESS, h_path("hup.folded"));
}

static void test_sigint_system_wide(void **state)
{
	const char *out = h_path("system.folded");
	struct h_proc work, p;

	(void)state;
	require_bpf();
	assert_int_equal(h_start(&work, H_ARGV(h_workload("cpu_tree"), "10")), 0);
	assert_int_equal(h_start(&p, H_ARGV(h_flamebpf(), "--sample", "99", "-o", out)), 0);
	stop_with(&p, SIGINT, TO_PROCESS);
	h_stop(&work);
	check_output(out, NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sigint_group, h_test_teardown),
		cmocka_unit_test_teardown(test_sigterm, h_test_teardown),
		cmocka_unit_test_teardown(test_sighup, h_test_teardown),
		cmocka_unit_test_teardown(test_sigint_system_wide, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("signals", tests, h_group_setup, h_group_teardown);
}
