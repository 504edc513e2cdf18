// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe mode (-f, -l) on processes that already run: -p with a decoy, a
 * process that exits mid-trace, two sessions on one process, system-wide
 * with BINARY, the -l listing, and bad input.
 */
#include "harness.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MS 1000000.0 /* ns */

/* The workload's absolute path (a BINARY names it so). */
static const char *tracee_abs(void)
{
	static char path[PATH_MAX];

	if (!realpath(h_workload("tracee"), path))
		fail_msg("no workload '%s': run 'make build/workloads/tracee'",
			 h_workload("tracee"));
	return path;
}

/* Starts `tracee loop SECONDS` (outer 2 ms + inner 3 ms, back to back). */
static void start_loop(struct h_proc *p, const char *seconds)
{
	h_start_workload(p, H_ARGV(h_workload("tracee"), "loop", seconds));
}

/* Starts flamebpf tracing outer and inner of the tracee PID into OUT, for
 * SECONDS, or until the process exits when NULL. */
static void start_trace(struct h_proc *fb, pid_t pid, const char *seconds, const char *out)
{
	char p[32];

	snprintf(p, sizeof(p), "%d", (int)pid);
	if (seconds)
		assert_int_equal(h_start(fb, H_ARGV(h_flamebpf(), "--pids", "-p", p, "-f",
						    "^(outer|inner)$", "-d", seconds, "-o", out)),
				 0);
	else
		assert_int_equal(h_start(fb, H_ARGV(h_flamebpf(), "--pids", "-p", p, "-f",
						    "^(outer|inner)$", "-o", out)),
				 0);
}

static void root_of(char *buf, size_t len, pid_t pid)
{
	snprintf(buf, len, "tracee-%d", (int)pid);
}

/* The count of the line whose stack is ROOT;REST; 0 when there is none. */
static unsigned long long count_at(const struct h_folded *f, const char *root, const char *rest)
{
	char stack[512];

	snprintf(stack, sizeof(stack), "%s;%s", root, rest);
	return h_count_of(f, stack);
}

/*
 * Checks the trace of `tracee loop` (pid PID, --pids), between MIN and MAX
 * seconds of it: only its stacks, outer and inner nested as they ran (an inner
 * whose outer began before the attach may stand alone), self times in
 * the workload's proportions, and no call left without a return.
 */
static void check_loop_trace(const struct h_folded *f, const struct h_result *r, pid_t pid,
			     double min, double max)
{
	unsigned long long outer, inner, lone;
	char root[64];
	size_t known;

	root_of(root, sizeof(root), pid);
	outer = count_at(f, root, "outer");
	inner = count_at(f, root, "outer;inner");
	lone = count_at(f, root, "inner");
	known = !!outer + !!inner + !!lone;
	print_message(
		"%s: outer %.1f ms, outer;inner %.1f ms, inner alone %.1f ms; %.2f s in all\n",
		root, outer / MS, inner / MS, lone / MS, f->total / 1e9);
	if (!outer || !inner || known != f->n) {
		h_dump(r, "flamebpf");
		h_folded_dump(f, 30);
		fail_msg("expected only %s;outer, %s;outer;inner and maybe %s;inner", root, root,
			 root);
	}
	/* while the probes go in one by one, inner's may be in before outer's */
	assert_true(lone <= f->total / 20);
	/* inner is 3 ms of every 5 ms of the loop */
	assert_in_range(inner * 1000 / (outer + inner), 500, 700);
	if (f->total < min * 1e9 || f->total > max * 1e9)
		fail_msg("%.2f s traced, expected %.2f to %.2f s", f->total / 1e9, min, max);
	if (h_unfinished(r->err) != 0) {
		h_dump(r, "flamebpf");
		fail_msg("calls without a return reported; tracee never leaves a call early");
	}
}

/* The workload ran to its end unharmed. */
static void expect_clean_exit(struct h_proc *p)
{
	struct h_result w;

	h_finish(p, 20, &w);
	if (w.status != 0) {
		h_dump(&w, "tracee");
		fail_msg("the traced workload ended with status %d", w.status);
	}
	h_result_free(&w);
}

static void test_attach_running(void **state)
{
	const char *out = h_path("attach.folded");
	struct h_proc target, decoy, fb;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	start_loop(&target, "2.5");
	start_loop(&decoy, "2.5");
	start_trace(&fb, target.pid, "1", out);
	h_finish_folded(&fb, 30, &r, out, &f);
	check_loop_trace(&f, &r, target.pid, 0.5, 1.3);
	h_folded_free(&f);
	h_result_free(&r);
	expect_clean_exit(&target);
	expect_clean_exit(&decoy);
}

/* A process calling a traced function back to back as -p attaches: every
 * call its probe sees is the target's, none turned away by the filter
 * ("calls of other processes skipped", -v). The targets went in the filter
 * after the probes: 16-63 of its calls were, in each of 6 runs. */
static void test_attach_none_filtered(void **state)
{
	const char *out = h_path("attach-busy.folded");
	struct h_proc target;
	struct h_result r;
	char pid[32], line[512];

	(void)state;
	require_bpf();
	h_start_workload(&target, H_ARGV(h_workload("tracee"), "count", "4000000000"));
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "-v", "-p", pid, "-f", "^count_me$",
					      "-d", "0.5", "-o", out)),
			 0);
	h_stop(&target);
	if (!h_find_line(r.err, "flamebpf: uprobe", line, sizeof(line)) ||
	    !strstr(line, " 0 calls of other processes skipped")) {
		h_dump(&r, "flamebpf");
		fail_msg("calls of the target were turned away by the filter: '%s'", line);
	}
	print_message("%s\n", line);
	h_result_free(&r);
}

/* No -d: flamebpf stops when the process exits, with complete output. */
static void test_exit_mid_trace(void **state)
{
	const char *out = h_path("exits.folded");
	struct h_proc target, fb;
	struct h_folded f;
	struct h_result r;
	double ends;

	(void)state;
	require_bpf();
	start_loop(&target, "1.2");
	ends = target.started + 1.2;
	start_trace(&fb, target.pid, NULL, out);
	h_finish(&fb, 20, &r);
	h_assert_status(&r, 0);
	print_message("flamebpf ended %.2f s after the process\n", h_now() - ends);
	assert_true(h_now() - ends < 1.5);
	h_folded_must_load(out, &f);
	/* from the attach (0.2 s after the start, and more) to the exit at 1.2 s */
	check_loop_trace(&f, &r, target.pid, 0.5, 1.05);
	assert_true(f.total <= r.elapsed * 1e9);
	h_folded_free(&f);
	h_result_free(&r);
	expect_clean_exit(&target);
}

/* Two flamebpf sessions on one process at once: each gets all of it. */
static void test_two_sessions(void **state)
{
	const char *out[2] = { h_path("session-1.folded"), h_path("session-2.folded") };
	struct h_proc target, fb[2];
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	start_loop(&target, "2.5");
	for (int i = 0; i < 2; i++)
		start_trace(&fb[i], target.pid, "1", out[i]);
	for (int i = 0; i < 2; i++) {
		h_finish_folded(&fb[i], 30, &r, out[i], &f);
		check_loop_trace(&f, &r, target.pid, 0.5, 1.3);
		h_folded_free(&f);
		h_result_free(&r);
	}
	expect_clean_exit(&target);
}

/* System-wide with BINARY: every process running it, this one included. */
static void test_system_wide(void **state)
{
	const char *out = h_path("system.folded");
	char spec[PATH_MAX + 16], root[64];
	unsigned long long outer;
	struct h_proc target;
	struct h_folded f;

	(void)state;
	require_bpf();
	start_loop(&target, "3");
	snprintf(spec, sizeof(spec), "%s:^outer$", tracee_abs());
	h_run_folded(NULL, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--pids", "-f", spec, "-d", "2", "-o", out));
	root_of(root, sizeof(root), target.pid);
	outer = count_at(&f, root, "outer");
	print_message("%s;outer: %.1f ms in 2 s\n", root, outer / MS);
	for (size_t i = 0; i < f.n; i++) {
		const char *rest = strchr(f.lines[i].stack, ';');

		if (!rest || strcmp(rest, ";outer")) {
			h_folded_dump(&f, 30);
			fail_msg("line %zu is not 'tracee-PID;outer'", i + 1);
		}
	}
	/* outer runs back to back: its inclusive time is the whole window */
	assert_in_range(outer, 1.4e9, 2.3e9);
	h_folded_free(&f);
	expect_clean_exit(&target);
}

static void expect_listing(const struct h_result *r, const char *want)
{
	if (r->status != 0 || strcmp(r->out, want)) {
		h_dump(r, "flamebpf -l");
		fail_msg("-l printed '%.300s', expected exactly '%s'", r->out, want);
	}
}

static void test_list(void **state)
{
	char spec[PATH_MAX + 16], want[PATH_MAX + 16], pid[32];
	struct h_proc target;
	struct h_result r;
	size_t len;

	(void)state;
	require_bpf();
	snprintf(spec, sizeof(spec), "%s:^outer$", tracee_abs());
	snprintf(want, sizeof(want), "%s:outer\n", tracee_abs());
	assert_int_equal(h_run(&r, 20, H_ARGV(h_flamebpf(), "-l", spec)), 0);
	expect_listing(&r, want);
	h_result_free(&r);

	/* a program's name, found along PATH (/bin/bash: Debian's essential) */
	assert_int_equal(h_run(&r, 20, H_ARGV(h_flamebpf(), "-l", "bash:^execute_command$")), 0);
	if (r.status != 0 || h_count_lines(r.out) != 1 || !strstr(r.out, "bash:execute_command\n")) {
		h_dump(&r, "flamebpf -l");
		fail_msg("expected one line '.../bash:execute_command'");
	}
	h_result_free(&r);

	start_loop(&target, "3");
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	/* without BINARY: the process's executable and libraries */
	assert_int_equal(h_run(&r, 20, H_ARGV(h_flamebpf(), "-l", "^outer$", "-p", pid)), 0);
	expect_listing(&r, want);
	h_result_free(&r);
	/* a library name: the libc that process maps */
	assert_int_equal(h_run(&r, 20, H_ARGV(h_flamebpf(), "-l", "libc:^malloc$", "-p", pid)), 0);
	len = strlen(r.out);
	if (r.status != 0 || h_count_lines(r.out) != 1 || r.out[0] != '/' || len < 20 ||
	    strcmp(r.out + len - 18, "/libc.so.6:malloc\n")) {
		h_dump(&r, "flamebpf -l");
		fail_msg("expected one line '/.../libc.so.6:malloc'");
	}
	h_result_free(&r);
	h_stop(&target);
}

/* C++ names are listed demangled. */
static void test_list_cxx(void **state)
{
	const char *want[] = { "xa_catch(int)", "xb_pass(int)", "xc_throw(int)" };
	char path[PATH_MAX], line[PATH_MAX + 64];
	struct h_result r;

	(void)state;
	require_bpf();
	if (!realpath(h_workload("throws"), path))
		fail_msg("no workload 'throws'");
	assert_int_equal(h_run(&r, 20,
			       H_ARGV(h_flamebpf(), "-l", "^x(a_catch|b_pass|c_throw)", "--",
				      h_workload("throws"), "1")),
			 0);
	h_assert_status(&r, 0);
	for (size_t i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "%s:%s", path, want[i]);
		if (!h_has_line(r.out, line)) {
			h_dump(&r, "flamebpf -l");
			fail_msg("no line '%s'", line);
		}
	}
	assert_int_equal(h_count_lines(r.out), 3);
	h_result_free(&r);
}

/* A pid that no process has: a child's, after it was reaped. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	waitpid(pid, NULL, 0);
	return pid;
}

struct bad_case {
	const char *const *argv; /* after "flamebpf -o OUT" */
	const char *named;	 /* what the error line must name */
};

/* Exit 2, one line on stderr naming the culprit, no output file. */
static void expect_bad(const struct bad_case *c, const char *out)
{
	const char *argv[16] = { h_flamebpf(), "-o", out };
	struct h_result r;
	size_t n = 3;

	for (size_t i = 0; c->argv[i]; i++)
		argv[n++] = c->argv[i];
	argv[n] = NULL;
	assert_int_equal(h_run(&r, 20, argv), 0);
	print_message("%s %s ...: %.*s\n", c->argv[0], c->argv[1], (int)strcspn(r.err, "\n"),
		      r.err);
	if (r.status != 2 || h_count_lines(r.err) != 1 || !strstr(r.err, c->named) ||
	    strncmp(r.err, "flamebpf: ", 10)) {
		h_dump(&r, "flamebpf");
		fail_msg("'%s %s ...': expected exit 2 and one line naming '%s'", c->argv[0],
			 c->argv[1], c->named);
	}
	if (h_exists(out))
		fail_msg("'%s %s ...' left an output file", c->argv[0], c->argv[1]);
	h_result_free(&r);
}

static void test_bad_input(void **state)
{
	char notelf[PATH_MAX], notelf_spec[PATH_MAX + 8], missing_sym[PATH_MAX + 16];
	char pid[32];
	const char *work = h_workload("tracee");
	FILE *text;

	(void)state;
	require_bpf();
	snprintf(notelf, sizeof(notelf), "%s", h_path("not-elf.txt"));
	text = fopen(notelf, "w");
	assert_non_null(text);
	fputs("just text\n", text);
	fclose(text);
	snprintf(notelf_spec, sizeof(notelf_spec), "%s:foo", notelf);
	snprintf(missing_sym, sizeof(missing_sym), "%s:^no_such_fn$", tracee_abs());
	snprintf(pid, sizeof(pid), "%d", (int)gone_pid());
	const struct bad_case cases[] = {
		{ H_ARGV("-f", "^no_such_fn_xyz$", "--", work, "nest", "1", "1", "1"),
		  "'^no_such_fn_xyz$'" },
		{ H_ARGV("-f", missing_sym, "-d", "1"), "'^no_such_fn$'" },
		{ H_ARGV("-f", "(", "--", work, "nest", "1", "1", "1"), "'('" },
		{ H_ARGV("-l", "(", "--", work, "nest", "1", "1", "1"), "'('" },
		{ H_ARGV("-f", "libnosuch:foo", "--", work, "nest", "1", "1", "1"), "'libnosuch'" },
		{ H_ARGV("-f", "nosuchlib:foo", "-d", "1"), "nosuchlib" },
		/* a program's name, not found along PATH: said so, not taken
		 * for a regex alone */
		{ H_ARGV("-f", "nosuchprog-x:^main$", "-d", "1"), "no binary 'nosuchprog-x'" },
		{ H_ARGV("-f", "gzpi-x:^main$", "--", work, "nest", "1", "1", "1"),
		  "binary 'gzpi-x'" },
		{ H_ARGV("-f", notelf_spec, "-d", "1"), notelf },
		{ H_ARGV("-f", "^outer$", "-d", "1"), "BINARY" },
		{ H_ARGV("-f", "^outer$", "-U", "--", work, "nest", "1", "1", "1"), "-U" },
		{ H_ARGV("-f", "^outer$", "-p", pid, "-d", "1"), pid },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[64];

		snprintf(out, sizeof(out), "bad-%zu.folded", i);
		expect_bad(&cases[i], h_path(out));
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_attach_running, h_test_teardown),
		cmocka_unit_test_teardown(test_attach_none_filtered, h_test_teardown),
		cmocka_unit_test_teardown(test_exit_mid_trace, h_test_teardown),
		cmocka_unit_test_teardown(test_two_sessions, h_test_teardown),
		cmocka_unit_test_teardown(test_system_wide, h_test_teardown),
		cmocka_unit_test_teardown(test_list, h_test_teardown),
		cmocka_unit_test_teardown(test_list_cxx, h_test_teardown),
		cmocka_unit_test_teardown(test_bad_input, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("trace_attach", tests, h_group_setup, h_group_teardown);
}
