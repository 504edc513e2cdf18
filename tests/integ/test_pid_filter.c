// SPDX-License-Identifier: GPL-2.0
/*
 * -p PID[,PID...]: only the given processes are sampled, all of them, and
 * all their threads, the ones started after flamebpf attached included; a
 * thread's id stands for its process, as with perf record -p.
 */
#include "harness.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void profile_pids(const char *pids, const char *duration, const char *root_opt,
			 const char *out, struct h_folded *f)
{
	h_run_folded(NULL, 30, out, f,
		     H_ARGV(h_flamebpf(), "--sample", "499", "-p", pids, "-d", duration, root_opt,
			    "-o", out));
}

/* Counts the samples whose root is COMM-PID (with --pids). */
static unsigned long long samples_of(const struct h_folded *f, const char *comm, pid_t pid)
{
	unsigned long long n = 0;
	char want[256], root[256];

	snprintf(want, sizeof(want), "%s-%d", comm, (int)pid);
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(h_root(f->lines[i].stack, root, sizeof(root)), want) == 0)
			n += f->lines[i].count;
	return n;
}

static void test_one_pid(void **state)
{
	struct h_proc target, decoy;
	struct h_folded f;
	char pid[32];
	double cpu;

	(void)state;
	require_bpf();
	h_start_workload(&target, H_ARGV(h_workload("cpu_tree"), "8"));
	h_start_workload(&decoy, H_ARGV(h_workload("threads"), "8", "2", "0"));
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	cpu = h_cpu_time(target.pid);
	profile_pids(pid, "2", "--pids", h_path("one.folded"), &f);
	cpu = h_cpu_time(target.pid) - cpu;
	print_message("samples: total %llu, target %llu; target used %.2f CPU s\n", f.total,
		      samples_of(&f, "cpu_tree", target.pid), cpu);
	if (samples_of(&f, "cpu_tree", target.pid) != f.total) {
		h_folded_dump(&f, 30);
		fail_msg("samples of processes other than cpu_tree-%s", pid);
	}
	/* 2 s of a CPU-bound process at 499 Hz on 2 CPUs shared with 2 spinners */

	assert_true(h_sum_frame(&f, "tree_a") > 0);
	h_folded_free(&f);
	h_stop(&target);
	h_stop(&decoy);
}

static void test_two_pids(void **state)
{
	struct h_proc a, b, decoy;
	unsigned long long na, nb;
	struct h_folded f;
	char pids[64];

	(void)state;
	require_bpf();
	h_start_workload(&a, H_ARGV(h_workload("cpu_tree"), "8"));
	h_start_workload(&b, H_ARGV(h_workload("threads"), "8", "1", "0"));
	h_start_workload(&decoy, H_ARGV(h_workload("cpu_tree"), "8"));
	snprintf(pids, sizeof(pids), "%d,%d", (int)a.pid, (int)b.pid);
	profile_pids(pids, "1.5", "--pids", h_path("two.folded"), &f);
	na = samples_of(&f, "cpu_tree", a.pid);
	nb = samples_of(&f, "threads", b.pid);
	print_message("samples: total %llu, cpu_tree-%d %llu, threads-%d %llu\n", f.total,
		      (int)a.pid, na, (int)b.pid, nb);
	if (na + nb != f.total) {
		h_folded_dump(&f, 30);
		fail_msg("samples of processes other than %s", pids);
	}
	assert_true(na >= 50);
	assert_true(nb >= 50);
	h_folded_free(&f);
}

/* Distinct thread ids of the samples in thread_spin (with --tids). */
static int spinning_tids(const struct h_folded *f, pid_t pid)
{
	long seen[64], p, t;
	char root[256], comm[256];
	int n = 0;

	for (size_t i = 0; i < f->n; i++) {
		const char *stack = f->lines[i].stack;
		bool known = false;

		h_root(stack, root, sizeof(root));
		if (h_root_ids(root, comm, sizeof(comm), &p, &t) || p != pid || !t)
			fail_msg("root '%s' is not 'threads-%d/TID'", root, (int)pid);
		if (!h_has_frame(stack, "thread_spin"))
			continue;
		for (int j = 0; j < n; j++)
			known |= seen[j] == t;
		if (!known && t != pid && n < 64)
			seen[n++] = t;
	}
	return n;
}

static void test_late_threads(void **state)
{
	struct h_proc work, prof;
	struct h_folded f;
	const char *out = h_path("late.folded");
	char pid[32];
	int tids;

	(void)state;
	require_bpf();
	/* the workload starts its 4 threads only when told to (SIGUSR1) */
	h_start_workload(&work, H_ARGV(h_workload("threads"), "2", "4", "signal"));
	snprintf(pid, sizeof(pid), "%d", (int)work.pid);
	assert_int_equal(h_start(&prof, H_ARGV(h_flamebpf(), "--sample", "499", "-p", pid, "-d",
					       "2.5", "--tids", "-o", out)),
			 0);
	h_wait_attached(prof.pid, 15);
	h_signal(&work, SIGUSR1);
	h_finish_folded(&prof, 30, NULL, out, &f);
	tids = spinning_tids(&f, work.pid);
	print_message("samples: total %llu, threads in thread_spin: %d\n", f.total, tids);
	if (tids < 4) {
		h_folded_dump(&f, 30);
		fail_msg("%d threads seen in thread_spin, expected 4", tids);
	}
	h_folded_free(&f);
}

/* The highest thread id of pid other than pid itself, or 0. */
static pid_t a_thread_of(pid_t pid)
{
	char path[64];
	struct dirent *d;
	pid_t best = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir)))
		if (atoi(d->d_name) > best && atoi(d->d_name) != pid)
			best = atoi(d->d_name);
	if (dir)
		closedir(dir);
	return best;
}

/* -p of a worker thread's id: its process's samples, all its threads'
 * (the thread alone had been filtered out as no process: "no samples"),
 * and a line that says so. */
static void test_thread_id(void **state)
{
	const char *out = h_path("tid.folded");
	struct h_proc work;
	struct h_folded f;
	struct h_result r;
	char tid[32];

	(void)state;
	require_bpf();
	h_start_workload(&work, H_ARGV(h_workload("threads"), "8", "2", "0"));
	snprintf(tid, sizeof(tid), "%d", (int)a_thread_of(work.pid));
	assert_true(atoi(tid) > 0);
	h_run_folded(
		&r, 30, out, &f,
		H_ARGV(h_flamebpf(), "--sample", "499", "-p", tid, "-d", "1", "--pids", "-o", out));
	print_message("samples: total %llu, of threads-%d %llu\n", f.total, (int)work.pid,
		      samples_of(&f, "threads", work.pid));
	if (!f.total || samples_of(&f, "threads", work.pid) != f.total) {
		h_folded_dump(&f, 30);
		fail_msg("-p %s: not the samples of its process %d", tid, (int)work.pid);
	}
	if (!strstr(r.err, "is a thread of process")) {
		h_dump(&r, "flamebpf");
		fail_msg("no word that %s is a thread", tid);
	}
	h_result_free(&r);
	h_folded_free(&f);
	h_stop(&work);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_one_pid, h_test_teardown),
		cmocka_unit_test_teardown(test_two_pids, h_test_teardown),
		cmocka_unit_test_teardown(test_late_threads, h_test_teardown),
		cmocka_unit_test_teardown(test_thread_id, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("pid_filter", tests, h_group_setup, h_group_teardown);
}
