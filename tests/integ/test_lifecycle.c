// SPDX-License-Identifier: GPL-2.0
/*
 * Process lifetimes and the end of a capture: a process that exits long
 * before the end keeps its names; -p stops by itself when its targets exit;
 * -d takes fractions; -p of a parent leaves out its children while COMMAND
 * follows them; the folded counts add up to the summary, which reports its
 * losses; a failed run leaves an existing output file alone.
 */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Samples of the processes whose --pids root is "COMM-PID", for any PID; the
 * distinct pids seen go to PIDS (up to MAX), their number is returned. */
static int pids_of(const struct h_folded *f, const char *comm, long *pids, int max)
{
	char root[256], c[256];
	long pid, tid;
	int n = 0;

	for (size_t i = 0; i < f->n; i++) {
		bool known = false;

		h_root(f->lines[i].stack, root, sizeof(root));
		if (h_root_ids(root, c, sizeof(c), &pid, &tid))
			fail_msg("root '%s' is not 'COMM-PID'", root);
		if (strcmp(c, comm))
			continue;
		for (int j = 0; j < n; j++)
			known |= pids[j] == pid;
		if (!known && n < max)
			pids[n++] = pid;
	}
	return n;
}

struct root_pred {
	char root[64];		   /* "COMM-PID" */
	const char *const *frames; /* NULL-terminated; NULL: any stack */
};

/* Whether STACK's root is arg's and it has one of arg's frames. */
static bool root_and_frame(const char *stack, const void *arg)
{
	const struct root_pred *p = arg;
	size_t len = strlen(p->root);

	if (strncmp(stack, p->root, len) || (stack[len] != ';' && stack[len]))
		return false;
	for (const char *const *fr = p->frames; fr && *fr; fr++)
		if (h_has_frame(stack, *fr))
			return true;
	return !p->frames;
}

static unsigned long long sum_root(const struct h_folded *f, const char *comm, long pid,
				   const char *const *frames)
{
	struct root_pred p = { .frames = frames };

	snprintf(p.root, sizeof(p.root), "%s-%ld", comm, pid);
	return h_sum(f, root_and_frame, &p);
}

static void must_summary(const struct h_result *r, struct h_summary *s)
{
	if (!h_parse_summary(r->err, s)) {
		h_dump(r, "flamebpf");
		fail_msg("no 'flamebpf: N samples, ...' summary line on stderr");
	}
}

/*
 * The cpu_tree child of `family 0 1.5 cpu_tree 0.7` exits 1.5 s before its
 * parent and the end of the capture: its mappings are gone when flamebpf
 * symbolizes, yet its samples carry their names.
 */
static void test_exited_child_keeps_names(void **state)
{
	static const char *const named[] = { "tree_a", "tree_b", NULL };
	const char *out = h_path("exited.folded");
	unsigned long long all, with_names;
	struct h_folded f;
	struct h_result r;
	long pid;

	(void)state;
	require_bpf();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "999", "--pids", "-o", out, "--",
			    h_workload("family"), "0", "1.5", h_workload("cpu_tree"), "0.7"));
	/* the child's 0.7 s, then the parent's 1.5 s */
	assert_true(r.elapsed >= 2.1);
	h_result_free(&r);
	if (pids_of(&f, "cpu_tree", &pid, 1) != 1) {
		h_folded_dump(&f, 30);
		fail_msg("no samples of the cpu_tree child");
	}
	all = sum_root(&f, "cpu_tree", pid, NULL);
	with_names = sum_root(&f, "cpu_tree", pid, named);
	print_message("cpu_tree-%ld: %llu samples, %llu in tree_a or tree_b\n", pid, all,
		      with_names);
	if (all < 50 || with_names * 100 < all * 90) {
		h_folded_dump(&f, 30);
		fail_msg("%llu of the exited child's %llu samples are named, expected 90%%",
			 with_names, all);
	}
	h_folded_free(&f);
}

/* -p without -d: the capture ends when the target exits. */
static void test_pid_stops_when_target_exits(void **state)
{
	const char *out = h_path("pid-exit.folded");
	struct h_proc target;
	struct h_result r, tr;
	struct h_folded f;
	siginfo_t info = { 0 };
	char pid[32];

	(void)state;
	require_bpf();
	h_start_workload(&target, H_ARGV(h_workload("cpu_tree"), "1.5"));
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	/* past 1.5 + 3 s it has failed anyway: do not wait much longer */
	assert_int_equal(
		h_run(&r, 10, H_ARGV(h_flamebpf(), "--sample", "199", "-p", pid, "-o", out)), 0);
	print_message("flamebpf -p ran %.2f s for a target that lived 1.5 s\n", r.elapsed);
	h_assert_status(&r, 0);
	if (r.elapsed > 1.5 + 3) {
		h_dump(&r, "flamebpf");
		fail_msg("flamebpf took %.2f s to notice that its target exited", r.elapsed);
	}
	/* it did not stop before the target exited */
	assert_int_equal(waitid(P_PID, target.pid, &info, WEXITED | WNOHANG | WNOWAIT), 0);
	assert_int_equal(info.si_pid, target.pid);
	h_finish(&target, 30, &tr);
	assert_int_equal(tr.status, 0);
	h_result_free(&tr);
	h_result_free(&r);
	h_folded_must_load(out, &f);
	assert_true(h_sum_frame(&f, "tree_a") > 0);
	h_folded_free(&f);
}

/* A target that exits while the probes go in ends the capture there, said
 * so; it must not run to -d's end. An unreaped child is a zombie: exited
 * yet still there for the check of -p, so the exit is always seen late. */
static void test_pid_exited_before_capture(void **state)
{
	const char *out = h_path("pid-gone.folded");
	struct h_proc target;
	struct h_result r;
	siginfo_t info = { 0 };
	char pid[32];

	(void)state;
	require_bpf();
	h_start_workload(&target, H_ARGV("true"));
	assert_int_equal(waitid(P_PID, target.pid, &info, WEXITED | WNOWAIT), 0);
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	assert_int_equal(
		h_run(&r, 20, H_ARGV(h_flamebpf(), "--off-cpu", "-p", pid, "-d", "30", "-o", out)),
		0);
	h_stop(&target);
	print_message("flamebpf -p of an exited target: status %d after %.2f s\n", r.status,
		      r.elapsed);
	h_assert_status(&r, 1);
	if (!h_has_line(r.err, "flamebpf: no time off the CPU: the target processes exited "
			       "before the capture began")) {
		h_dump(&r, "flamebpf");
		fail_msg("no line saying that the target exited before the capture began");
	}
	assert_true(r.elapsed < 10);
	assert_false(h_exists(out));
	h_result_free(&r);
}

/* The same when the target is gone and reaped while the probes go in: the
 * capture ends (status 1, or 2 where it was gone before the check of -p).
 * A start faster than the target's 0.1 s may catch it alive and take a
 * sample of it (its exec, its exit): then the profile is written and the
 * status is 0, but never 0 without one. */
static void test_pid_reaped_during_start(void **state)
{
	const char *out = h_path("pid-reaped.folded");
	struct h_proc target, fb;
	struct h_result r, tr;
	char pid[32];

	(void)state;
	require_bpf();
	assert_int_equal(h_start(&target, H_ARGV("sleep", "0.1")), 0);
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	assert_int_equal(
		h_start(&fb, H_ARGV(h_flamebpf(), "--sample", "99", "-p", pid, "-d", "30", "-o", out)),
		0);
	h_finish(&target, 10, &tr);
	h_result_free(&tr);
	h_finish(&fb, 20, &r);
	print_message("flamebpf -p of a target reaped while it started: status %d after %.2f s\n",
		      r.status, r.elapsed);
	if (r.elapsed > 10 || (r.status != 0 && r.status != 1 && r.status != 2)) {
		h_dump(&r, "flamebpf");
		fail_msg("flamebpf ran %.1f s (status %d) for a target gone after 0.1 s", r.elapsed,
			 r.status);
	}
	if (r.status == 0) {
		struct h_folded f;

		h_folded_must_load(out, &f);
		assert_true(f.total > 0);
		h_folded_free(&f);
	}
	if (r.status != 0 && h_exists(out)) {
		h_dump(&r, "flamebpf");
		fail_msg("flamebpf exited %d but left '%s'", r.status, out);
	}
	h_result_free(&r);
}

/* Runs flamebpf with ARGS after "--sample 99 -o OUT"; checks that the counts
 * of OUT add up to the summary and that nothing was lost. */
static void check_sum_matches(const char *out, const char *const args[])
{
	const char *argv[32] = { h_flamebpf(), "--sample", "99", "-o", out };
	struct h_summary s;
	struct h_folded f;
	struct h_result r;
	size_t n = 5;

	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	h_run_folded(&r, 30, out, &f, argv);
	must_summary(&r, &s);
	print_message("%s: folded sum %llu, summary %llu samples, %llu stacks\n", out, f.total,
		      s.samples, s.stacks);
	if (f.total != s.samples) {
		h_dump(&r, "flamebpf");
		h_folded_dump(&f, 30);
		fail_msg("the counts of '%s' add up to %llu, the summary says %llu samples", out,
			 f.total, s.samples);
	}
	assert_true(f.total > 0);
	assert_true(f.n <= s.stacks);
	if (!h_has_line(r.err, "flamebpf: lost: nothing")) {
		h_dump(&r, "flamebpf");
		fail_msg("no 'flamebpf: lost: nothing' line for a small run");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

static void test_sum_matches_summary(void **state)
{
	(void)state;
	require_bpf();
	check_sum_matches(h_path("sum.folded"), H_ARGV("--", h_workload("cpu_tree"), "0.5"));
}

/* With -K a sample taken in user mode has no frame left but its root. */
static void test_sum_matches_summary_kernel_only(void **state)
{
	(void)state;
	require_bpf();
	check_sum_matches(h_path("sum-k.folded"), H_ARGV("-K", "--", h_workload("family"), "0.5",
							 "0", h_workload("syscalls"), "0.5"));
}

/* -p of a parent is that process only (as perf -p): a child it starts while
 * sampled is not sampled, before or after its exec. */
static void test_pid_excludes_children(void **state)
{
	static const char *const spin[] = { "parent_spin", NULL };
	const char *out = h_path("parent-only.folded");
	struct h_proc parent, prof;
	struct h_result r, pr;
	struct h_folded f;
	unsigned long long mine;
	double forked, overlap;
	char pid[32];

	(void)state;
	require_bpf();
	/* the parent spins until SIGUSR1, then starts a 1 s cpu_tree beside it */
	h_start_workload(&parent,
			 H_ARGV(h_workload("family"), "-w", "1", "0", h_workload("cpu_tree"), "1"));
	snprintf(pid, sizeof(pid), "%d", (int)parent.pid);
	assert_int_equal(h_start(&prof, H_ARGV(h_flamebpf(), "--sample", "199", "-p", pid, "-d",
					       "1.8", "--pids", "-o", out)),
			 0);
	h_wait_attached(prof.pid, 15);
	h_signal(&parent, SIGUSR1);
	forked = h_now();
	h_finish(&prof, 30, &r);
	overlap = h_now() - forked;
	h_assert_status(&r, 0);
	h_result_free(&r);
	/* the child ran (and exited 0) */
	h_finish(&parent, 30, &pr);
	h_assert_status(&pr, 0);
	h_result_free(&pr);
	if (overlap < 0.5)
		fail_msg("the capture ended %.2f s after the child started: too soon to tell",
			 overlap);
	h_folded_must_load(out, &f);
	mine = sum_root(&f, "family", parent.pid, NULL);
	print_message("samples: total %llu, family-%s %llu, in parent_spin %llu, tree_a %llu; "
		      "%.2f s sampled with the child\n",
		      f.total, pid, mine, sum_root(&f, "family", parent.pid, spin),
		      h_sum_frame(&f, "tree_a"), overlap);
	if (mine != f.total || h_sum_frame(&f, "tree_a")) {
		h_folded_dump(&f, 30);
		fail_msg("samples of processes other than family-%s (its child?)", pid);
	}
	assert_true(sum_root(&f, "family", parent.pid, spin) * 100 >= f.total * 80);
	h_folded_free(&f);
}

/* COMMAND mode follows the command's children: parent and child both show. */
static void test_command_includes_children(void **state)
{
	static const char *const spin[] = { "parent_spin", NULL };
	static const char *const tree[] = { "tree_a", "tree_b", NULL };
	const char *out = h_path("family.folded");
	unsigned long long parent_n, child_n;
	struct h_folded f;
	long ppid, cpid;

	(void)state;
	require_bpf();
	h_run_folded(NULL, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "199", "--pids", "-o", out, "--",
			    h_workload("family"), "1", "0", h_workload("cpu_tree"), "1"));
	if (pids_of(&f, "family", &ppid, 1) != 1 || pids_of(&f, "cpu_tree", &cpid, 1) != 1) {
		h_folded_dump(&f, 30);
		fail_msg("expected samples of one family and one cpu_tree process");
	}
	parent_n = sum_root(&f, "family", ppid, spin);
	child_n = sum_root(&f, "cpu_tree", cpid, tree);
	print_message("samples: total %llu, family-%ld in parent_spin %llu, cpu_tree-%ld %llu\n",
		      f.total, ppid, parent_n, cpid, child_n);
	assert_true(ppid != cpid);
	assert_true(parent_n >= 20);
	assert_true(child_n >= 20);
	h_folded_free(&f);
}

/* -d takes fractions of a second. */
static void test_fractional_duration(void **state)
{
	const char *out = h_path("half.folded");
	struct h_summary s;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "99", "-d", "0.5", "-o", out, "--",
			    h_workload("cpu_tree"), "10"));
	print_message("-d 0.5: ran %.2f s\n", r.elapsed);
	must_summary(&r, &s);
	/* the capture itself: 0.5 s and a poll interval or a few, not 1 s */
	if (r.elapsed < 0.4 || r.elapsed > 3 || s.secs < 0.5 || s.secs > 0.95) {
		h_dump(&r, "flamebpf");
		fail_msg("-d 0.5 ran %.2f s, captured %.2f s", r.elapsed, s.secs);
	}
	h_result_free(&r);
	/* one single-threaded process at 99 Hz for s.secs */
	assert_true(f.total > 0);
	assert_true(f.total <= s.secs * 99 * 1.1 + 2);
	h_folded_free(&f);
}

/* Whether DIR holds exactly one entry, NAME. */
static bool dir_holds_only(const char *dir, const char *name)
{
	struct dirent *de;
	bool only = true;
	int n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (strcmp(de->d_name, name)) {
			print_message("left in %s: %s\n", dir, de->d_name);
			only = false;
		}
	}
	closedir(d);
	return only && n == 1;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* The old output is intact, and no temporary file is left beside it. */
static void expect_untouched(const char *dir, const char *out, const char *old)
{
	char *now = h_slurp(out);

	if (!now)
		fail_msg("'%s' is gone: %s", out, strerror(errno));
	if (strcmp(now, old))
		fail_msg("'%s' was overwritten: '%.200s'", out, now);
	free(now);
	if (!dir_holds_only(dir, "out.folded"))
		fail_msg("a temporary file is left in '%s'", dir);
}

static void expect_usage_failure(const char *const argv[], const char *dir, const char *out,
				 const char *old)
{
	struct h_result r;

	assert_int_equal(h_run(&r, 30, argv), 0);
	print_message("-> %.*s\n", (int)strcspn(r.err, "\n"), r.err);
	h_assert_status(&r, 2);
	assert_string_equal(r.out, "");
	h_result_free(&r);
	expect_untouched(dir, out, old);
}

/* Waits until PID runs COMM and sleeps (state S), for up to 5 s. */
static void wait_asleep(pid_t pid, const char *comm)
{
	char path[64], want[64];
	double deadline = h_now() + 5;
	bool asleep = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	snprintf(want, sizeof(want), "(%s) S ", comm);
	while (!asleep && h_now() < deadline) {
		char *stat = h_slurp(path);

		asleep = stat && strstr(stat, want);
		free(stat);
		if (!asleep)
			h_sleep(0.02);
	}
	if (!asleep)
		fail_msg("process %d is not an asleep '%s' after 5 s", (int)pid, comm);
	h_sleep(0.1);
}

static void test_failure_keeps_old_output(void **state)
{
	static const char old[] = "old;content 42\n";
	const char *dir = h_path("keep");
	char out[4096], dead[32], pid[32];
	const char *line;
	struct h_proc sleeper;
	struct h_result r;
	pid_t child;

	(void)state;
	require_bpf();
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(out, sizeof(out), "%s/out.folded", dir);
	write_text(out, old);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	snprintf(dead, sizeof(dead), "%d", (int)child);
	expect_usage_failure(H_ARGV(h_flamebpf(), "--sample", "99", "-p", dead, "-o", out), dir,
			     out, old);
	expect_usage_failure(H_ARGV(h_flamebpf(), "--sample", "0", "-d", "1", "-o", out), dir, out,
			     old);
	/* a run that samples and gets nothing: a sleeping target */
	assert_int_equal(h_start(&sleeper, H_ARGV("sleep", "30")), 0);
	wait_asleep(sleeper.pid, "sleep");
	snprintf(pid, sizeof(pid), "%d", (int)sleeper.pid);
	assert_int_equal(
		h_run(&r, 30,
		      H_ARGV(h_flamebpf(), "--sample", "99", "-p", pid, "-d", "0.3", "-o", out)),
		0);
	print_message("-> %s", r.err);
	h_assert_status(&r, 1);
	line = strstr(r.err, "flamebpf: no samples");
	/* and it says why: "no samples: <reason>" */
	if (!line || (line != r.err && line[-1] != '\n') || line[20] != ':' ||
	    strcspn(line + 21, "\n") < 10) {
		h_dump(&r, "flamebpf");
		fail_msg("no 'flamebpf: no samples: WHY' line on stderr");
	}
	assert_string_equal(r.out, "");
	h_result_free(&r);
	expect_untouched(dir, out, old);
	h_stop(&sleeper);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_exited_child_keeps_names, h_test_teardown),
		cmocka_unit_test_teardown(test_pid_stops_when_target_exits, h_test_teardown),
		cmocka_unit_test_teardown(test_pid_exited_before_capture, h_test_teardown),
		cmocka_unit_test_teardown(test_pid_reaped_during_start, h_test_teardown),
		cmocka_unit_test_teardown(test_sum_matches_summary, h_test_teardown),
		cmocka_unit_test_teardown(test_sum_matches_summary_kernel_only, h_test_teardown),
		cmocka_unit_test_teardown(test_pid_excludes_children, h_test_teardown),
		cmocka_unit_test_teardown(test_command_includes_children, h_test_teardown),
		cmocka_unit_test_teardown(test_fractional_duration, h_test_teardown),
		cmocka_unit_test_teardown(test_failure_keeps_old_output, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("lifecycle", tests, h_group_setup, h_group_teardown);
}
