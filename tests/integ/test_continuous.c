// SPDX-License-Identifier: GPL-2.0
/*
 * --continuous: a complete file per interval, whose samples add up to one
 * capture of the same length, exactly the samples the kernel counted (none
 * lost or counted twice at the swaps); --keep; SIGHUP ends an interval
 * early, SIGTERM writes the partial last; a full disk loses an interval,
 * said and counted, and the run goes on; Python records let go and sent
 * again; usage errors.
 */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 64

struct listing {
	char *names[MAX_FILES];
	size_t n;
};

/* The entries of dir but . and .., sorted (the patterns sort by time). */
static void list_dir(const char *dir, struct listing *l)
{
	l->n = h_list_dir(dir, l->names, MAX_FILES);
}

static void free_listing(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	l->n = 0;
}

static const char *make_dir(const char *name)
{
	const char *dir = h_path(name);

	if (mkdir(dir, 0755) && errno != EEXIST)
		fail_msg("mkdir '%s': %s", dir, strerror(errno));
	return dir;
}

/* The pattern of files in dir, by the second. */
static char *pattern_in(const char *dir, const char *ext)
{
	char *p;

	assert_true(asprintf(&p, "%s/cont-{host}-%%Y%%m%%d-%%H%%M%%S.%s", dir, ext) > 0);
	return p;
}

/* The second of the day a file of pattern_in() was named at. */
static long secs_of(const char *name)
{
	const char *dot = strrchr(name, '.');
	int h, m, sec;

	if (!dot || dot - name < 6 || sscanf(dot - 6, "%2d%2d%2d", &h, &m, &sec) != 3)
		fail_msg("'%s' is not named by its time", name);
	return h * 3600L + m * 60 + sec;
}

/* Loads every file of l (in dir) strictly; returns the samples of all, each
 * file's into each (may be NULL). */
static unsigned long long load_all(const char *dir, const struct listing *l,
				   unsigned long long *each)
{
	unsigned long long sum = 0;

	for (size_t i = 0; i < l->n; i++) {
		char path[4096];
		struct h_folded f;

		snprintf(path, sizeof(path), "%s/%s", dir, l->names[i]);
		h_folded_must_load(path, &f);
		if (each)
			each[i] = f.total;
		sum += f.total;
		h_folded_free(&f);
	}
	return sum;
}

/* "flamebpf: N intervals written, S samples counted in all" (-v). */
static unsigned long long counted_in_all(const struct h_result *r, unsigned long *written)
{
	const char *at = strstr(r->err, "intervals written, ");
	const char *line = at;
	unsigned long long s = 0;

	while (line && line > r->err && line[-1] != '\n')
		line--;
	if (!at ||
	    sscanf(line, "flamebpf: %lu intervals written, %llu samples", written, &s) != 2) {
		h_dump(r, "flamebpf");
		fail_msg("no 'intervals written' line");
	}
	return s;
}

/* Five intervals of 1 s: five complete files, none empty, adding
 * up to what one 5 s capture of the same process at the same time gets,
 * and exactly to what the kernel counted. */
static void test_five_intervals(void **state)
{
	const char *dir = make_dir("five"), *whole = h_path("whole.folded");
	char *pat = pattern_in(dir, "folded"), pid[16];
	unsigned long long each[MAX_FILES], sum, counted;
	unsigned long written;
	struct h_proc w, one, cont;
	struct h_folded f;
	struct h_result r;
	struct listing l;

	(void)state;
	require_bpf();
	h_start_workload(&w, H_ARGV(h_workload("cpu_tree"), "30"));
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	assert_int_equal(
		h_start(&cont, H_ARGV(h_flamebpf(), "-F", "199", "--continuous", "--interval", "1s",
				      "-d", "5", "-v", "-o", pat, "-p", pid)),
		0);
	assert_int_equal(
		h_start(&one, H_ARGV(h_flamebpf(), "-F", "199", "-d", "5", "-o", whole, "-p", pid)),
		0);
	h_finish_folded(&one, 30, NULL, whole, &f);
	h_finish(&cont, 30, &r);
	h_stop(&w);
	h_assert_status(&r, 0);
	list_dir(dir, &l);
	if (l.n != 5) {
		h_dump(&r, "flamebpf");
		fail_msg("%zu files, expected 5", l.n);
	}
	sum = load_all(dir, &l, each);
	counted = counted_in_all(&r, &written);
	assert_int_equal(written, 5);
	if (sum != counted)
		fail_msg("the files hold %llu samples, the kernel counted %llu", sum, counted);
	/* each a share of the time: none empty (the machine may be busy, and
	 * the share of one second uneven) */
	for (size_t i = 0; i < l.n; i++)
		if (!each[i])
			fail_msg("'%s': no samples", l.names[i]);
	for (int i = 1; i <= 5; i++) {
		char want[32];

		snprintf(want, sizeof(want), "interval %d (", i);
		if (!strstr(r.err, want) || strstr(strstr(r.err, want) + 1, want))
			fail_msg("'%s' not said once: %s", want, r.err);
	}
	print_message("5 intervals: %llu samples; one 5 s capture beside them: %llu\n", sum,
		      f.total);
	if (sum < f.total * 80 / 100 || sum > f.total * 120 / 100)
		fail_msg("5 intervals hold %llu samples, one 5 s capture %llu", sum, f.total);
	h_folded_free(&f);
	h_result_free(&r);
	free_listing(&l);
	free(pat);
}

/* A fast rate, every CPU: what the files hold is what the kernel counted,
 * to the sample, across the swaps (three on a quiet machine). */
static void test_exact_at_fast_rate(void **state)
{
	const char *dir = make_dir("fast");
	char *pat = pattern_in(dir, "folded");
	unsigned long long sum, counted;
	unsigned long written;
	struct h_result r;
	struct h_proc w;
	struct listing l;

	(void)state;
	require_bpf();
	h_start_workload(&w, H_ARGV(h_workload("cpu_tree"), "10"));
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "-F", "2999", "--continuous", "--interval", "1",
				      "-d", "4", "-v", "-o", pat)),
			 0);
	h_stop(&w);
	h_assert_status(&r, 0);
	list_dir(dir, &l);
	sum = load_all(dir, &l, NULL);
	counted = counted_in_all(&r, &written);
	print_message("%zu files, %llu samples; the kernel counted %llu\n", l.n, sum, counted);
	/* 4 intervals of 1 s; on a loaded machine an interval ends late (2 s
	 * with a load of 7 on 2 CPUs: writing 6 MB of stacks), or the last
	 * right after a swap; one with nothing sampled has no file */
	assert_int_equal(l.n, written);
	if (l.n < 2 || l.n > 5)
		fail_msg("%zu files for 4 s by the second", l.n);
	if (sum != counted)
		fail_msg("the files hold %llu samples, the kernel counted %llu", sum, counted);
	h_result_free(&r);
	free_listing(&l);
	free(pat);
}

/* --keep 3: the newest three of the pattern's files; another file of the
 * directory, and one of a look-alike name, are left alone. */
static void test_keep(void **state)
{
	const char *dir = make_dir("keep");
	char *pat = pattern_in(dir, "folded"), path[4096];
	const char *others[] = { "notes.txt", "cont-other-20200101-000000.folded",
				 "cont-x-20200101-000000.svg" };
	struct h_result r;
	struct listing l;
	const char *last;

	(void)state;
	require_bpf();
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, others[i]);
		fclose(fopen(path, "w"));
	}
	assert_int_equal(
		h_run(&r, 30,
		      H_ARGV(h_flamebpf(), "-F", "99", "--continuous", "--interval", "1s", "--keep",
			     "3", "-d", "5", "-v", "-o", pat, "--", h_workload("cpu_tree"), "30")),
		0);
	h_assert_status(&r, 0);
	list_dir(dir, &l);
	if (l.n != 6) {
		h_dump(&r, "flamebpf");
		fail_msg("%zu files, expected 3 and the 3 others", l.n);
	}
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k <= l.n; k++)
			if (k == l.n)
				fail_msg("'%s' was removed", others[i]);
			else if (!strcmp(l.names[k], others[i]))
				break;
	/* the newest: the last interval's file is among those kept */
	last = strstr(r.err, "interval 5 (");
	assert_non_null(last);
	for (size_t k = 0; k <= l.n; k++) {
		char *nl = strchr(last, '\n');

		if (k == l.n)
			fail_msg("the last interval's file is gone: %.*s", (int)(nl - last), last);
		if (strstr(last, l.names[k]) && strstr(last, l.names[k]) < nl)
			break;
	}
	free_listing(&l);
	h_result_free(&r);
	free(pat);
}

#define PYTHON "/usr/bin/python3.11"

/* A sample of py_bursts.py with its Python frames. */
static bool named_digest(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, ";digest (") != NULL;
}

/* A sample of the interpreter's start: imports, named as frozen modules.
 * A loaded machine stretches the start into a tenth of the first burst's
 * interval or more. */
static bool starting(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, " (<frozen ") != NULL;
}

/* Two bursts of a Python process's CPU 7 s apart, in 1-s intervals: every
 * sample of a burst has the same Python frames, whose record no sample
 * uses between the bursts. It is let go (Python records were kept for the
 * whole run, a record a sample, new in each: memory without end) and the
 * kernel side, told so, sends it again for the second burst, whose
 * samples keep their Python frames. On one CPU: each CPU keeps the ids of
 * the records it sent for a thread, and the second burst must find the
 * first's CPU (on another, the record was sent again anyway). */
static void test_python_records_let_go(void **state)
{
	const char *dir = make_dir("py");
	char *pat = pattern_in(dir, "folded"), path[4096];
	size_t busy[MAX_FILES], nbusy = 0;
	struct h_result r;
	struct listing l;

	(void)state;
	require_bpf();
	if (access(PYTHON, X_OK)) {
		print_message("SKIP: Debian's python3.11 is not installed\n");
		skip();
	}
	assert_int_equal(h_run(&r, 40,
			       H_ARGV(h_flamebpf(), "-F", "199", "--continuous", "--interval", "1s",
				      "-d", "14", "-v", "-o", pat, "--", "taskset", "-c", "0",
				      PYTHON, "tests/workloads/py_bursts.py", "2", "1", "7")),
			 0);
	h_assert_status(&r, 0);
	if (!strstr(r.err, "stacks not seen lately")) {
		h_dump(&r, "flamebpf");
		fail_msg("no stacks let go between the bursts");
	}
	list_dir(dir, &l);
	for (size_t i = 0; i < l.n; i++) {
		unsigned long long with;
		struct h_folded f;

		snprintf(path, sizeof(path), "%s/%s", dir, l.names[i]);
		h_folded_must_load(path, &f);
		if (f.total >= 20) {
			unsigned long long start = h_sum(&f, starting, NULL);

			with = h_sum(&f, named_digest, NULL);
			print_message("'%s': %llu samples, %llu in imports, %.1f%% of the rest "
				      "under digest\n",
				      l.names[i], f.total, start,
				      100.0 * with / (f.total - start ? f.total - start : 1));
			if (with < (f.total - start) * 9 / 10) {
				h_folded_dump(&f, 20);
				fail_msg("'%s': %llu of %llu samples under digest (%llu in imports)",
					 l.names[i], with, f.total, start);
			}
			busy[nbusy++] = i;
		}
		h_folded_free(&f);
	}
	/* both bursts: the second 5 s or more after the first (intervals with
	 * nothing sampled have no file) */
	if (nbusy < 2 || secs_of(l.names[busy[nbusy - 1]]) - secs_of(l.names[busy[0]]) < 5) {
		h_dump(&r, "flamebpf");
		fail_msg("%zu intervals busy, not the two bursts 7 s apart", nbusy);
	}
	free_listing(&l);
	h_result_free(&r);
	free(pat);
}

static struct h_proc start_continuous(const char *pat, const char *interval)
{
	struct h_proc p;

	assert_int_equal(
		h_start(&p, H_ARGV(h_flamebpf(), "-F", "99", "--continuous", "--interval", interval,
				   "-v", "-o", pat, "--", h_workload("cpu_tree"), "30")),
		0);
	if (!h_wait_attached(p.pid, 15))
		fail_msg("flamebpf did not attach");
	return p;
}

/* SIGHUP mid-interval: the interval written then, the run going on; SIGTERM:
 * the partial last written, exit 0. */
static void test_sighup_then_sigterm(void **state)
{
	const char *dir = make_dir("hup");
	char *pat = pattern_in(dir, "folded");
	unsigned long long each[MAX_FILES];
	struct h_result r;
	struct h_proc p;
	struct listing l;

	(void)state;
	require_bpf();
	p = start_continuous(pat, "60s");
	h_sleep(1.2);
	h_signal(&p, SIGHUP);
	h_sleep(1.2);
	list_dir(dir, &l);
	if (l.n != 1)
		fail_msg("%zu files after SIGHUP, expected 1", l.n);
	free_listing(&l);
	h_signal(&p, SIGTERM);
	h_finish(&p, 10, &r);
	h_assert_status(&r, 0);
	list_dir(dir, &l);
	if (l.n != 2) {
		h_dump(&r, "flamebpf");
		fail_msg("%zu files after SIGTERM, expected 2", l.n);
	}
	load_all(dir, &l, each);
	/* about 1 s of cpu_tree at 99 Hz each */
	for (size_t i = 0; i < 2; i++)
		if (each[i] < 40 || each[i] > 200)
			fail_msg("'%s': %llu samples, expected about 120", l.names[i], each[i]);
	if (!strstr(r.err, "interval 2 (") || !strstr(r.err, "the last)"))
		fail_msg("the last interval not said: %s", r.err);
	free_listing(&l);
	h_result_free(&r);
	free(pat);
}

/* Fills the file system of dir: a file as large as it takes. */
static void fill(const char *path)
{
	static char block[4096];
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	while (fwrite(block, 1, sizeof(block), f) == sizeof(block) && !fflush(f))
		;
	fclose(f);
}

/* A full disk: the intervals that cannot be written are lost, each said in
 * a line and counted; the run goes on and writes the later ones once there
 * is room; nothing partial is left. */
static void test_full_disk(void **state)
{
	const char *dir = make_dir("small");
	char *pat = pattern_in(dir, "folded"), filler[4096];
	unsigned long long each[MAX_FILES];
	struct h_result r;
	struct h_proc p;
	struct listing l;

	(void)state;
	require_bpf();
	if (mount("tmpfs", dir, "tmpfs", 0, "size=512k")) {
		print_message("skipped: cannot mount a tmpfs: %s\n", strerror(errno));
		skip();
	}
	snprintf(filler, sizeof(filler), "%s/filler", dir);
	fill(filler);
	p = start_continuous(pat, "1s");
	h_sleep(2.5);
	unlink(filler);
	h_sleep(2.3);
	h_signal(&p, SIGTERM);
	h_finish(&p, 10, &r);
	list_dir(dir, &l);
	load_all(dir, &l, each);
	umount2(dir, MNT_DETACH);
	h_assert_status(&r, 1);
	if (!strstr(r.err, "No space left on device: interval 1 lost (1 so far)") ||
	    !strstr(r.err, "intervals lost (see above)")) {
		h_dump(&r, "flamebpf");
		fail_msg("the lost intervals not said");
	}
	if (l.n < 2 || l.n > 4) {
		h_dump(&r, "flamebpf");
		fail_msg("%zu files, expected those written once there was room", l.n);
	}
	for (size_t i = 0; i < l.n; i++)
		if (l.names[i][0] == '.')
			fail_msg("'%s' left behind", l.names[i]);
	free_listing(&l);
	h_result_free(&r);
	free(pat);
}

/* A process that only sleeps: its intervals have nothing sampled, which
 * is not a loss. No output can draw nothing, so none is written, and the
 * run says so once; it ends with the command's status. Chrome and HTML
 * outputs, which need samples in time, had been counted lost. */
static void test_idle_intervals(void **state)
{
	const char *dir = make_dir("idle");
	char *json = pattern_in(dir, "json"), *html = pattern_in(dir, "html");
	struct h_result r;
	struct h_proc sleeper;
	struct listing l;
	char pid[16];

	(void)state;
	require_bpf();
	assert_int_equal(h_start(&sleeper, H_ARGV("sleep", "60")), 0);
	snprintf(pid, sizeof(pid), "%d", (int)sleeper.pid);
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-F", "99", "--continuous", "--interval", "1",
				      "-d", "2.5", "-o", json, "-o", html, "-p", pid)),
			 0);
	h_stop(&sleeper);
	list_dir(dir, &l);
	h_assert_status(&r, 0);
	if (!strstr(r.err, "intervals had nothing sampled: no file written for them") ||
	    strstr(r.err, "lost")) {
		h_dump(&r, "flamebpf");
		fail_msg("idle intervals not said as such");
	}
	if (l.n)
		fail_msg("%zu files written for intervals with nothing in them ('%s')", l.n,
			 l.names[0]);
	free_listing(&l);
	h_result_free(&r);
	free(json);
	free(html);
}

/* The tmpfs of test_full_disk let go even when the test failed on it. */
static int unmount_teardown(void **state)
{
	umount2(h_path("small"), MNT_DETACH);
	return h_test_teardown(state);
}

#define DAEMON_CAPS "-all,+bpf,+perfmon,+sys_ptrace,+dac_read_search"

/* A stack of cpu_tree (its root "cpu_tree-PID") through tree_a, named. */
static bool tree_a_named(const char *stack, const void *arg)
{
	(void)arg;
	return !strncmp(stack, "cpu_tree-", 9) && strstr(stack, ";tree_a;");
}

/*
 * As examples/flamebpf.service runs it: a user of no account (nobody)
 * with only the four capabilities the unit grants, inherited through
 * ambient capabilities, no new privileges. The intervals are written and a
 * process of another user (cpu_tree, root's) is named through its maps.
 */
static void test_daemon_caps(void **state)
{
	char dir[] = "/tmp/flamebpf-caps-XXXXXX", fb[64], pat[128], pid[16];
	unsigned long long named = 0, all = 0;
	struct h_folded f;
	struct h_result r, cp;
	struct listing l;
	struct h_proc w;

	(void)state;
	require_bpf();
	if (access("/usr/bin/setpriv", X_OK)) {
		print_message("SKIP: no setpriv (util-linux) to drop to the unit's capabilities\n");
		skip();
	}
	/* a place nobody can reach, the binary copied there: ours may not be */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(fb, sizeof(fb), "%s/flamebpf", dir);
	assert_int_equal(h_run(&cp, 30, H_ARGV("cp", h_flamebpf(), fb)), 0);
	h_assert_status(&cp, 0);
	h_result_free(&cp);
	assert_int_equal(chmod(fb, 0755), 0);
	snprintf(pat, sizeof(pat), "%s/caps-%%Y%%m%%d-%%H%%M%%S.folded", dir);
	h_start_workload(&w, H_ARGV(h_workload("cpu_tree"), "30"));
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	assert_int_equal(h_run(&r, 60,
			       H_ARGV("/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
				      "--clear-groups", "--inh-caps=" DAEMON_CAPS,
				      "--ambient-caps=" DAEMON_CAPS, "--bounding-set=" DAEMON_CAPS,
				      "--no-new-privs", "--", fb, "-F", "99", "--continuous",
				      "--interval", "1s", "-d", "2.5", "--pids", "-o", pat)),
			 0);
	h_stop(&w);
	h_assert_status(&r, 0);
	unlink(fb);
	list_dir(dir, &l);
	for (size_t i = 0; i < l.n; i++) {
		char file[256];

		snprintf(file, sizeof(file), "%s/%s", dir, l.names[i]);
		h_folded_must_load(file, &f);
		named += h_sum(&f, tree_a_named, NULL);
		all += f.total;
		h_folded_free(&f);
		unlink(file);
	}
	rmdir(dir);
	print_message("%zu files as nobody with the unit's capabilities: %llu samples, %llu of "
		      "them in cpu_tree's tree_a (pid %s)\n",
		      l.n, all, named, pid);
	if (l.n < 2 || !all || !named) {
		h_dump(&r, "flamebpf");
		fail_msg("the capabilities of examples/flamebpf.service do not make a profile");
	}
	free_listing(&l);
	h_result_free(&r);
}

static void test_usage_errors(void **state)
{
	static const struct {
		const char *args[8];
		const char *said;
	} cases[] = {
		{ { "-F", "99", "--interval", "5s", "-o", "x%S.folded" },
		  "--interval is for --continuous" },
		{ { "-F", "99", "--continuous", "--interval", "500ms", "-o", "x%S.folded" },
		  "--interval 0.5 s: 1 s at least" },
		{ { "-F", "99", "--continuous", "--interval", "0", "-o", "x%S.folded" },
		  "invalid --interval '0'" },
		{ { "-F", "99", "--continuous", "--keep", "0", "-o", "x%S.folded" },
		  "invalid --keep '0'" },
		{ { "-F", "99", "--continuous", "--keep-size", "2X", "-o", "x%S.folded" },
		  "invalid --keep-size '2X'" },
		{ { "-F", "99", "--keep", "3", "-o", "x%S.folded" }, "--keep is for --continuous" },
		{ { "-F", "99", "--continuous", "-o", "x-%H%M.folded" },
		  "has no field of seconds" },
		{ { "-F", "99", "--continuous", "-o", "%Y/x-%s.folded" },
		  "time fields go in the file name, not its directory" },
		{ { "-F", "99", "--continuous" }, "--continuous writes a file per interval" },
		{ { "-f", "main", "--continuous", "-o", "x%S.folded", "--", "true" },
		  "--continuous is for sampling mode (-F FREQ): not with -f" },
		{ { "--off-cpu", "--continuous", "-o", "x%S.folded", "--", "true" },
		  "--continuous is for sampling mode (-F FREQ): not with --off-cpu" },
	};

	(void)state;
	h_assert_all_refused(cases, NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test_teardown(test_five_intervals, h_test_teardown),
		cmocka_unit_test_teardown(test_exact_at_fast_rate, h_test_teardown),
		cmocka_unit_test_teardown(test_keep, h_test_teardown),
		cmocka_unit_test_teardown(test_python_records_let_go, h_test_teardown),
		cmocka_unit_test_teardown(test_sighup_then_sigterm, h_test_teardown),
		cmocka_unit_test_teardown(test_full_disk, unmount_teardown),
		cmocka_unit_test_teardown(test_idle_intervals, h_test_teardown),
		cmocka_unit_test_teardown(test_daemon_caps, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("continuous", tests, h_group_setup, h_group_teardown);
}
