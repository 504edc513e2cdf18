// SPDX-License-Identifier: GPL-2.0
/*
 * Faults, with tests/workloads/storm.c as the load: flamebpf killed with
 * SIGKILL while tracing or sampling (the target runs on at full speed, its
 * BPF programs and links are gone, no output file is left); SIGINT while the
 * probes go in and while a large output is written (a complete file or
 * none, said on stderr); write errors (/dev/full, a full tmpfs: one line
 * naming the file, exit 1, an older file kept); a ring buffer and maps
 * overflowed by stopping flamebpf (every loss in the summary); 1000 threads
 * traced and sampled; a storm of forks and execs under COMMAND mode.
 */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace.h"

#define MAX_IDS 256

/* ---- helpers ---- */

/* DIR/NAME into BUF. */
static const char *join(char *buf, size_t len, const char *dir, const char *name)
{
	if (snprintf(buf, len, "%s/%s", dir, name) >= (int)len)
		fail_msg("path too long: '%s/%s'", dir, name);
	return buf;
}

/* A fresh directory NAME in the group's temp dir, copied into BUF. */
static const char *fresh_dir(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s", h_path(name));
	if (mkdir(buf, 0755))
		fail_msg("cannot make '%s': %s", buf, strerror(errno));
	return buf;
}

/* Whether files can be made without a name in DIR (O_TMPFILE). */
static bool has_tmpfile(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_WRONLY, 0600);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Fails the test when DIR holds anything: no output, no temporary file
 * (unless the file system has no O_TMPFILE: then a ".NAME.XXXXXX" one). */
static void expect_empty_dir(const char *dir)
{
	bool tmpfile = has_tmpfile(dir);
	struct dirent *de;
	int left = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!tmpfile && de->d_name[0] == '.')
			continue;
		print_message("left in %s: %s\n", dir, de->d_name);
		left++;
	}
	closedir(d);
	if (left)
		fail_msg("%d files left in '%s'", left, dir);
}

/* Fails the test when DIR holds other files than the N NAMES. */
static void expect_only(const char *dir, const char *const *names, size_t n)
{
	struct dirent *de;
	int left = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d))) {
		bool known = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");

		for (size_t i = 0; i < n; i++)
			known |= !strcmp(de->d_name, names[i]);
		if (!known) {
			print_message("left in %s: %s\n", dir, de->d_name);
			left++;
		}
	}
	closedir(d);
	if (left)
		fail_msg("%d other files left in '%s'", left, dir);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* PATH holds exactly TEXT. */
static void expect_text(const char *path, const char *text)
{
	char *now = h_slurp(path);

	if (!now)
		fail_msg("'%s' is gone: %s", path, strerror(errno));
	if (strcmp(now, text))
		fail_msg("'%s' was overwritten: '%.100s'", path, now);
	free(now);
}

/* Whether PID, a child of ours, still runs. */
static bool child_alive(pid_t pid)
{
	siginfo_t info = { 0 };

	return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
}

/* ---- the BPF objects of a process ---- */

struct bpf_ids {
	unsigned int prog[MAX_IDS], link[MAX_IDS];
	size_t nprog, nlink;
};

/* The programs and links PID holds, from "prog_id:" and "link_id:" in the
 * fdinfo of its descriptors. */
static void bpf_ids_of(pid_t pid, struct bpf_ids *ids)
{
	char dir[64], path[128], line[256];
	struct dirent *de;
	DIR *d;

	memset(ids, 0, sizeof(*ids));
	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", (int)pid);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		FILE *f;
		unsigned int id;

		join(path, sizeof(path), dir, de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "prog_id: %u", &id) == 1 && ids->nprog < MAX_IDS)
				ids->prog[ids->nprog++] = id;
			if (sscanf(line, "link_id: %u", &id) == 1 && ids->nlink < MAX_IDS)
				ids->link[ids->nlink++] = id;
		}
		if (f)
			fclose(f);
	}
	closedir(d);
}

/* Whether the program (or link) ID still exists in the kernel. */
static bool bpf_id_exists(int cmd, unsigned int id)
{
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	if (cmd == BPF_PROG_GET_FD_BY_ID)
		attr.prog_id = id;
	else
		attr.link_id = id;
	fd = syscall(__NR_bpf, cmd, &attr, sizeof(attr));
	if (fd >= 0)
		close((int)fd);
	return fd >= 0 || errno != ENOENT;
}

static size_t count_alive(const struct bpf_ids *ids)
{
	size_t n = 0;

	for (size_t i = 0; i < ids->nprog; i++)
		n += bpf_id_exists(BPF_PROG_GET_FD_BY_ID, ids->prog[i]);
	for (size_t i = 0; i < ids->nlink; i++)
		n += bpf_id_exists(BPF_LINK_GET_FD_BY_ID, ids->link[i]);
	return n;
}

/* The kernel frees them once the last descriptor is closed (after an RCU
 * grace period): give it up to 5 s. */
static void expect_bpf_gone(const struct bpf_ids *ids)
{
	double deadline = h_now() + 5;
	size_t alive;

	while ((alive = count_alive(ids)) && h_now() < deadline)
		h_sleep(0.05);
	print_message("%zu programs and %zu links of flamebpf; %zu left\n", ids->nprog, ids->nlink,
		      alive);
	if (alive)
		fail_msg("%zu of flamebpf's BPF programs and links outlived it", alive);
}

/* Waits until PID holds a BPF link (probes attached), for up to TIMEOUT s. */
static void wait_bpf_links(pid_t pid, double timeout, struct bpf_ids *ids)
{
	double deadline = h_now() + timeout;

	do
		bpf_ids_of(pid, ids);
	while (!ids->nlink && h_now() < deadline && (h_sleep(0.02), true));
	if (!ids->nlink)
		fail_msg("flamebpf attached no BPF link in %.0f s", timeout);
}

/* ---- `storm rate`: calls per second, printed every 0.1 s ---- */

static size_t read_rates(const struct h_proc *p, double *v, size_t max)
{
	char *text = h_slurp(p->out_path), *line;
	size_t n = 0;

	for (line = text; line && *line && n < max; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (sscanf(line, "rate %lf", &v[n]) == 1)
			n++;
	}
	free(text);
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of N rates from the FROMth on, waiting up to TIMEOUT s for
 * them; *NEXT (if given) gets the index after them. */
static double median_rate(const struct h_proc *p, size_t from, size_t n, size_t *next)
{
	static double v[4096];
	double deadline = h_now() + 20;
	size_t got;

	while ((got = read_rates(p, v, 4096)) < from + n && h_now() < deadline)
		h_sleep(0.05);
	if (got < from + n)
		fail_msg("storm printed %zu rates, expected %zu", got, from + n);
	qsort(v + from, n, sizeof(v[0]), cmp_double);
	if (next)
		*next = from + n;
	return v[from + n / 2];
}

static size_t nr_rates(const struct h_proc *p)
{
	static double v[4096];

	return read_rates(p, v, 4096);
}

/* Waits until the rate falls under LIMIT (the probe is in); returns the
 * index of the rate after the first one under it. */
static size_t wait_rate_below(const struct h_proc *p, double limit)
{
	static double v[4096];
	double deadline = h_now() + 20;

	while (h_now() < deadline) {
		size_t n = read_rates(p, v, 4096);

		for (size_t i = 0; i < n; i++)
			if (v[i] < limit)
				return i + 1;
		h_sleep(0.05);
	}
	fail_msg("the call rate never fell under %.0f/s: no probe?", limit);
	return 0;
}

/* ---- SIGKILL ---- */

static void start_rate(struct h_proc *target, double *base)
{
	h_start_workload(target, H_ARGV(h_workload("storm"), "rate", "120"));
	*base = median_rate(target, 2, 5, NULL);
}

/* No uprobe of the target's binary is left where tracefs lists them
 * (uprobe_events, uprobe_profile): flamebpf makes none there, through the
 * perf uprobe PMU and uprobe_multi links, and a kill must not leave one.
 * tracefs is mounted for the look when the system has not. */
static void expect_no_uprobe_events(const char *binary)
{
	static const char *const files[] = { "uprobe_events", "uprobe_profile" };
	const char *dir = "/sys/kernel/tracing";
	char mnt[PATH_MAX], path[PATH_MAX + 32];
	bool mounted = false;

	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	if (!h_exists(path)) {
		snprintf(mnt, sizeof(mnt), "%s", h_path("tracefs"));
		if ((mkdir(mnt, 0700) && errno != EEXIST) ||
		    mount("nodev", mnt, "tracefs", 0, NULL)) {
			print_message("no tracefs to look at (%s): skipping that check\n",
				      strerror(errno));
			return;
		}
		dir = mnt;
		mounted = true;
	}
	for (size_t i = 0; i < 2; i++) {
		char *text;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		text = h_slurp(path);
		if (text && strstr(text, binary))
			fail_msg("%s still lists a uprobe of %s:\n%.2000s", files[i], binary, text);
		free(text);
	}
	if (mounted)
		umount2(dir, MNT_DETACH);
}

/* Kills flamebpf FB with SIGKILL; its programs and links must go. */
static void kill_flamebpf(struct h_proc *fb, const struct bpf_ids *ids)
{
	struct h_result r;

	h_signal(fb, SIGKILL);
	h_finish(fb, 10, &r);
	assert_int_equal(r.status, 128 + SIGKILL);
	h_result_free(&r);
	expect_bpf_gone(ids);
	expect_no_uprobe_events(h_workload("storm"));
}

/* SIGKILL while tracing: with uprobe_multi links, or (classic) one perf
 * uprobe event per probe. */
static void sigkill_uprobe(bool classic)
{
	char dir[PATH_MAX], out1[PATH_MAX], out2[PATH_MAX], pid[32];
	double base, traced, after;
	struct h_proc target, fb;
	struct bpf_ids ids;
	size_t at;

	require_bpf();
	fresh_dir(classic ? "kill-classic" : "kill-uprobe", dir, sizeof(dir));
	join(out1, sizeof(out1), dir, "out.folded");
	join(out2, sizeof(out2), dir, "out.json");
	start_rate(&target, &base);
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	if (classic)
		setenv("FLAMEBPF_CLASSIC_UPROBES", "1", 1);
	assert_int_equal(h_start(&fb, H_ARGV(h_flamebpf(), "-p", pid, "-f", "^hot$", "-o", out1,
					     "-o", out2)),
			 0);
	unsetenv("FLAMEBPF_CLASSIC_UPROBES");
	at = wait_rate_below(&target, base / 10);
	traced = median_rate(&target, at, 5, NULL);
	wait_bpf_links(fb.pid, 10, &ids);
	kill_flamebpf(&fb, &ids);
	after = median_rate(&target, nr_rates(&target) + 2, 5, NULL);
	print_message("hot() calls/s: %.3g untraced, %.3g traced, %.3g after SIGKILL\n", base,
		      traced, after);
	assert_true(child_alive(target.pid));
	if (after < traced * 10)
		fail_msg("after flamebpf died the target runs at %.3g calls/s, traced %.3g", after,
			 traced);
	expect_empty_dir(dir);
	h_stop(&target);
}

static void test_sigkill_uprobe(void **state)
{
	(void)state;
	sigkill_uprobe(false);
}

static void test_sigkill_classic_uprobes(void **state)
{
	(void)state;
	sigkill_uprobe(true);
}

static void test_sigkill_sampling(void **state)
{
	char dir[PATH_MAX], out[PATH_MAX], pid[32];
	struct h_proc target, fb;
	struct bpf_ids ids;
	double base, after;

	(void)state;
	require_bpf();
	fresh_dir("kill-sample", dir, sizeof(dir));
	join(out, sizeof(out), dir, "out.folded");
	start_rate(&target, &base);
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	assert_int_equal(h_start(&fb, H_ARGV(h_flamebpf(), "-F", "999", "-p", pid, "-o", out)), 0);
	h_wait_attached(fb.pid, 15);
	bpf_ids_of(fb.pid, &ids);
	assert_true(ids.nprog > 0);
	kill_flamebpf(&fb, &ids);
	after = median_rate(&target, nr_rates(&target) + 2, 5, NULL);
	print_message("hot() calls/s: %.3g before, %.3g after SIGKILL\n", base, after);
	assert_true(child_alive(target.pid));
	assert_true(after > base / 10);
	expect_empty_dir(dir);
	h_stop(&target);
}

/* ---- SIGINT while starting ---- */

static bool holds_fd(pid_t pid, const char *link_text)
{
	char dir[64], path[128], target[256];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	while (d && !found && (de = readdir(d))) {
		ssize_t n;

		join(path, sizeof(path), dir, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = strcmp(target, link_text) == 0;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* Waits until flamebpf PID has a BPF program loaded and no link yet: it is
 * attaching. False when it got past that first. */
static bool wait_loading(pid_t pid)
{
	double deadline = h_now() + 20;

	while (h_now() < deadline) {
		if (holds_fd(pid, "anon_inode:bpf_link"))
			return false;
		if (holds_fd(pid, "anon_inode:bpf-prog"))
			return true;
		h_sleep(0.001);
	}
	return false;
}

/*
 * SIGINT while flamebpf attaches all of libc. When it says so, the capture
 * never began: no output, no command run (MARK never made). When the signal
 * came too late for that, the run must have ended as any stopped run does.
 * Returns whether flamebpf said it stopped before the capture; *LOADING
 * counts the signals sent while it held a program and no link yet.
 */
static bool interrupt_start(const char *dir, const char *pid, int *loading)
{
	char out[PATH_MAX], mark[PATH_MAX];
	struct bpf_ids ids;
	struct h_result r;
	struct h_proc fb;
	bool in_time;

	join(out, sizeof(out), dir, "out.folded");
	join(mark, sizeof(mark), dir, "MARK");
	if (pid)
		assert_int_equal(
			h_start(&fb, H_ARGV(h_flamebpf(), "-p", pid, "-f", "libc:.*", "-o", out)),
			0);
	else
		assert_int_equal(h_start(&fb, H_ARGV(h_flamebpf(), "-f", "libc:.*", "-o", out, "--",
						     "touch", mark)),
				 0);
	in_time = wait_loading(fb.pid);
	*loading += in_time;
	bpf_ids_of(fb.pid, &ids);
	h_signal(&fb, SIGINT);
	h_finish(&fb, 30, &r);
	print_message("SIGINT %s: exit %d, %.*s\n", in_time ? "while loading" : "late", r.status,
		      (int)strcspn(r.err, "\n"), r.err);
	if (strstr(r.err, "SIGINT before the capture began")) {
		h_assert_status(&r, 1);
		assert_false(h_exists(mark));
		expect_empty_dir(dir);
	} else {
		struct h_folded f;

		if (r.status != 0 && !strstr(r.err, "no calls")) {
			h_dump(&r, "flamebpf");
			fail_msg("a run stopped by SIGINT failed otherwise");
		}
		if (r.status == 0) {
			h_folded_must_load(out, &f);
			h_folded_free(&f);
			unlink(out);
		}
		unlink(mark);
		in_time = false;
	}
	h_result_free(&r);
	expect_bpf_gone(&ids);
	return in_time;
}

static void run_interrupt_start(const char *name, const char *pid)
{
	char dir[PATH_MAX];
	int caught = 0, loading = 0;

	fresh_dir(name, dir, sizeof(dir));
	for (int i = 0; i < 3; i++)
		caught += interrupt_start(dir, pid, &loading);
	if (!caught && loading)
		fail_msg("%d SIGINTs came while flamebpf attached, and it went on to capture",
			 loading);
	if (!caught)
		fail_msg("no SIGINT came while flamebpf attached: nothing was tested");
}

static void test_sigint_starting_command(void **state)
{
	(void)state;
	require_bpf();
	run_interrupt_start("int-start-cmd", NULL);
}

static void test_sigint_starting_pid(void **state)
{
	struct h_proc target;
	double base;
	char pid[32];

	(void)state;
	require_bpf();
	start_rate(&target, &base);
	snprintf(pid, sizeof(pid), "%d", (int)target.pid);
	run_interrupt_start("int-start-pid", pid);
	assert_true(child_alive(target.pid));
	assert_true(median_rate(&target, nr_rates(&target) + 2, 5, NULL) > base / 10);
	h_stop(&target);
}

/* ---- SIGINT while writing ---- */

/* Whether flamebpf PID has written into a file it holds open in DIR. */
static bool writing_into(pid_t pid, const char *dir)
{
	char fds[64], path[128], target[PATH_MAX];
	size_t len = strlen(dir);
	struct dirent *de;
	bool writing = false;
	DIR *d;

	snprintf(fds, sizeof(fds), "/proc/%d/fd", (int)pid);
	d = opendir(fds);
	while (d && !writing && (de = readdir(d))) {
		struct stat st;
		ssize_t n;

		join(path, sizeof(path), fds, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		writing = !strncmp(target, dir, len) && target[len] == '/' && !stat(path, &st) &&
			  st.st_size > 0;
	}
	if (d)
		closedir(d);
	return writing;
}

static void test_sigint_writing(void **state)
{
	static const char *const names[] = { "big.json", "big.perf", "big.folded" };
	char dir[PATH_MAX], out[3][PATH_MAX], line[512];
	const char *said;
	struct h_result r;
	struct h_proc fb;
	double sent;
	size_t cut = 3;

	(void)state;
	require_bpf();
	fresh_dir("int-write", dir, sizeof(dir));
	for (int i = 0; i < 3; i++)
		join(out[i], sizeof(out[i]), dir, names[i]);
	write_text(out[0], "old\n");
	assert_int_equal(h_start(&fb, H_ARGV(h_flamebpf(), "-f", "^hot$", "-d", "1", "--flamechart",
					     "-o", out[0], "-o", out[1], "-o", out[2], "--",
					     h_workload("storm"), "rate", "30")),
			 0);
	while (!writing_into(fb.pid, dir) && h_now() - fb.started < 30)
		h_sleep(0.002);
	sent = h_now();
	h_signal(&fb, SIGINT);
	h_finish(&fb, 60, &r);
	print_message("SIGINT %.2f s after start: exit %d after %.2f s\n", sent - fb.started,
		      r.status, h_now() - sent);
	said = h_find_line(r.err, "flamebpf: SIGINT while writing the output: '", line,
			   sizeof(line));
	for (size_t i = 0; said && i < 3; i++)
		if (strstr(said, out[i]))
			cut = cut < i ? cut : i;
	if (r.status != 1 || cut == 3) {
		h_dump(&r, "flamebpf");
		fail_msg("no 'SIGINT while writing the output: ...' and exit 1");
	}
	assert_true(h_now() - sent < 5);
	/* what was written before is whole; from the one named on, nothing */
	for (size_t i = 0; i < 3; i++) {
		if (i >= cut && i == 0)
			expect_text(out[0], "old\n");
		else if (i >= cut)
			assert_false(h_exists(out[i]));
		else
			assert_true(h_exists(out[i]));
	}
	expect_only(dir, names, 3);
	h_result_free(&r);
}

/* ---- write errors ---- */

/* One line "flamebpf: cannot write 'PATH': No space left on device". */
static void expect_enospc(const struct h_result *r, const char *path)
{
	char want[PATH_MAX + 64], line[PATH_MAX + 128];

	snprintf(want, sizeof(want), "flamebpf: cannot write '%s': ", path);
	if (r->status != 1 || !h_find_line(r->err, want, line, sizeof(line)) ||
	    !strcasestr(line, "no space left")) {
		h_dump(r, "flamebpf");
		fail_msg("no exit 1 and line '%sNo space left on device'", want);
	}
	print_message("-> %s\n", line);
	assert_null(strstr(strstr(r->err, want) + 1, want));
}

static void test_dev_full(void **state)
{
	static const char *const formats[] = { "folded", "perf", "chrome", "svg", "pprof", "html" };
	struct stat st;
	struct h_result r;

	(void)state;
	require_bpf();
	if (stat("/dev/full", &st) || !S_ISCHR(st.st_mode)) {
		print_message("SKIP: no /dev/full\n");
		skip();
	}
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		assert_int_equal(
			h_run(&r, 30,
			      H_ARGV(h_flamebpf(), "-F", "999", "--format", formats[i], "-o",
				     "/dev/full", "--", h_workload("cpu_tree"), "0.3")),
			0);
		expect_enospc(&r, "/dev/full");
		h_result_free(&r);
	}
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

/* A 64 KiB tmpfs at DIR/NAME, or a skip. */
static const char *mount_small(const char *name, char *buf, size_t len)
{
	fresh_dir(name, buf, len);
	if (mount("flamebpf-test", buf, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")) {
		print_message("SKIP: cannot mount a tmpfs on '%s': %s\n", buf, strerror(errno));
		skip();
	}
	return buf;
}

/* Runs ARGV (its output in the small file system DIR), which must fail
 * naming OUT, leave OLD in OUT and nothing else. */
static void expect_full(const char *dir, const char *out, const char *const argv[])
{
	static const char old[] = "old;content 1\n";
	const char *name = strrchr(out, '/') + 1;
	struct h_result r;

	write_text(out, old);
	assert_int_equal(h_run(&r, 60, argv), 0);
	expect_enospc(&r, out);
	h_result_free(&r);
	expect_text(out, old);
	expect_only(dir, &name, 1);
	unlink(out);
}

/* A folded file of N lines, some 15 bytes each. */
static void write_big_folded(const char *path, int n)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (int i = 0; i < n; i++)
		fprintf(f, "big;f%07d 1\n", i);
	assert_int_equal(fclose(f), 0);
}

static void test_full_filesystem(void **state)
{
	char dir[PATH_MAX], out[PATH_MAX];

	(void)state;
	require_bpf();
	mount_small("small", dir, sizeof(dir));
	join(out, sizeof(out), dir, "calls.json");
	expect_full(dir, out,
		    H_ARGV(h_flamebpf(), "-f", "^hot$", "-o", out, "--", h_workload("storm"),
			   "rate", "0.3"));
	join(out, sizeof(out), dir, "samples.perf");
	expect_full(
		dir, out,
		H_ARGV(h_flamebpf(), "-F", "4999", "-o", out, "--", h_workload("cpu_tree"), "0.5"));
	join(out, sizeof(out), dir, "render.folded");
	write_big_folded(h_path("big-input.folded"), 20000);
	expect_full(dir, out,
		    H_ARGV(h_flamebpf(), "render", h_path("big-input.folded"), "-o", out));
}

static int teardown_small(void **state)
{
	umount2(h_path("small"), MNT_DETACH);
	return h_test_teardown(state);
}

/* ---- ring buffer and maps overflowed ---- */

/* Stops flamebpf once the command printed a rate (ran), for SECONDS or,
 * when the calls are slower than expected (a loaded machine), for as long
 * as CALLS of them take, up to 20 s. */
static void stall_after_first_rate(struct h_proc *fb, double seconds, double calls)
{
	double rate = median_rate(fb, 0, 1, NULL);

	if (rate > 0 && calls / rate > seconds)
		seconds = calls / rate < 20 ? calls / rate : 20;
	h_signal(fb, SIGSTOP);
	h_sleep(seconds);
	h_signal(fb, SIGCONT);
}

/* Timeline records the 32 MiB ring buffer holds, two and a half times
 * over: a stall that long at the rate the workload first printed must
 * overflow it even when the rate then halves (a slow hour of the host:
 * 135 k calls a second at first, 73 k later, and 1.5 times was not
 * enough). */
#define RING_OVERFLOW_CALLS (2.5 * (32 << 20) / (sizeof(struct trace_call_record) + 8))

/* Counts the records of a perf-script file, streaming: it is large. */
static unsigned long long count_records(const char *path, const char *event)
{
	unsigned long long n = 0;
	char line[4096];
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("cannot read '%s': %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		n += line[0] != '\t' && line[0] != '\n' && strstr(line, event);
	fclose(f);
	return n;
}

/* Uprobe timeline: calls = records written + records lost, to the one. */
static void test_ring_full_timeline(void **state)
{
	const char *out = h_path("ring.perf");
	long long ring, over;
	unsigned long long kept;
	struct h_trace_summary s;
	struct h_result r;
	struct h_proc fb;

	(void)state;
	require_bpf();
	assert_int_equal(h_start(&fb, H_ARGV(h_flamebpf(), "-f", "^hot$", "-d", "3", "-o", out,
					     "--", h_workload("storm"), "rate", "30")),
			 0);
	stall_after_first_rate(&fb, 2, RING_OVERFLOW_CALLS);
	h_finish(&fb, 60, &r);
	h_assert_status(&r, 0);
	s = h_must_trace_summary(&r);
	ring = h_lost(r.err, "timeline records (ring buffer full)");
	over = h_lost(r.err, "timeline records (over the --max-calls limit");
	kept = count_records(out, " uprobe:calls:");
	print_message("%llu calls: %llu records written, %lld lost in the ring buffer, %lld "
		      "over the limit\n",
		      s.calls, kept, ring, over);
	if (ring <= 0) {
		h_dump(&r, "flamebpf");
		fail_msg("a stall of %.0f calls lost no record in the ring buffer, or did not say "
			 "so",
			 RING_OVERFLOW_CALLS);
	}
	assert_int_equal(s.calls, kept + (unsigned long long)ring + (unsigned long long)over);
	h_result_free(&r);
	unlink(out);
}

/* --max-calls 100 on fib(10)'s 177 calls: the first 100 are written, the
 * other 77 counted as lost, and every call is still in the summary. */
static void test_max_calls(void **state)
{
	const char *out = h_path("capped.perf");
	struct h_trace_summary s;
	unsigned long long kept;
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "--max-calls", "100", "-f", "^fib$", "-o", out,
				      "--", h_workload("tracee"), "fib", "10")),
			 0);
	h_assert_status(&r, 0);
	s = h_must_trace_summary(&r);
	kept = count_records(out, " uprobe:calls:");
	print_message("%llu calls: %llu records written, %lld over the limit\n", s.calls, kept,
		      h_lost(r.err, "timeline records (over the --max-calls limit"));
	assert_int_equal(s.calls, 177);
	assert_int_equal(kept, 100);
	assert_int_equal(h_lost(r.err, "timeline records (over the --max-calls limit"), 77);
	h_result_free(&r);
	unlink(out);
}

/* Uprobe counts: far more call paths than the counts map holds. */
static void test_ring_full_paths(void **state)
{
	const char *out = h_path("paths.folded");
	struct h_folded f;
	struct h_result r;
	struct h_proc fb;
	long long calls, paths;

	(void)state;
	require_bpf();
	assert_int_equal(h_start(&fb, H_ARGV(h_flamebpf(), "-f", "^walk_[ab]$", "-d", "4", "-o",
					     out, "--", h_workload("storm"), "stacks", "2", "30")),
			 0);
	h_sleep(1);
	h_signal(&fb, SIGSTOP);
	h_sleep(2);
	h_signal(&fb, SIGCONT);
	h_finish_folded(&fb, 60, &r, out, &f);
	calls = h_lost(r.err, "calls (ring buffer full)");
	paths = h_lost(r.err, "call paths (ring buffer full)");
	print_message("%zu call paths written; lost %lld calls, %lld call paths\n", f.n, calls,
		      paths);
	if (calls <= 0 && paths <= 0) {
		h_dump(&r, "flamebpf");
		fail_msg("a 2 s stall with the counts map full lost nothing, or did not say so");
	}
	assert_true(f.n > 65536);
	h_folded_free(&f);
	h_result_free(&r);
}

/* Sampling: ever new stacks, more than the counts map holds. */
static void test_ring_full_sampling(void **state)
{
	const char *out = h_path("stacks.folded");
	long long samples, stacks;
	struct h_summary s;
	struct h_folded f;
	struct h_result r;
	struct h_proc fb;

	(void)state;
	require_bpf();
	assert_int_equal(h_start(&fb, H_ARGV(h_flamebpf(), "-F", "4999", "-d", "5", "-o", out, "--",
					     h_workload("storm"), "stacks", "2", "30")),
			 0);
	h_wait_attached(fb.pid, 15);
	h_signal(&fb, SIGSTOP);
	h_sleep(3);
	h_signal(&fb, SIGCONT);
	h_finish_folded(&fb, 60, &r, out, &f);
	samples = h_lost(r.err, "samples (ring buffer full)");
	stacks = h_lost(r.err, "stacks (ring buffer full)");
	if (!h_parse_summary(r.err, &s)) {
		h_dump(&r, "flamebpf");
		fail_msg("no summary");
	}
	print_message("%llu samples, %llu stacks; lost %lld samples, %lld stacks\n", s.samples,
		      s.stacks, samples, stacks);
	if (samples <= 0 && stacks <= 0) {
		h_dump(&r, "flamebpf");
		fail_msg("a 3 s stall lost nothing, or did not say so");
	}
	assert_int_equal(f.total, s.samples);
	h_folded_free(&f);
	h_result_free(&r);
}

/* ---- many threads, many processes ---- */

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Sorts the N ids of V; returns how many differ, and the smallest and
 * largest number of times one occurs. */
static size_t count_ids(long *v, size_t n, size_t *least, size_t *most)
{
	size_t distinct = 0;

	qsort(v, n, sizeof(*v), cmp_long);
	*least = n ? SIZE_MAX : 0;
	*most = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		distinct++;
		*least = j - i < *least ? j - i : *least;
		*most = j - i > *most ? j - i : *most;
	}
	return distinct;
}

#define MAX_RECORDS 1000000

/* The thread of every uprobe record of a perf-script file, into V. */
static size_t record_tids(const char *path, long *v)
{
	char line[4096];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("cannot read '%s': %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) && n < MAX_RECORDS) {
		char *slash = strchr(line, '/');

		if (line[0] == '\t' || line[0] == '\n' || !slash || !strstr(line, " uprobe:"))
			continue;
		v[n] = strtol(slash + 1, NULL, 10);
		assert_true(v[n++] > 0);
	}
	fclose(f);
	return n;
}

static void test_thousand_threads_traced(void **state)
{
	const char *out = h_path("threads.perf");
	static long tids[MAX_RECORDS];
	size_t n, threads, least, most;
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 120,
			       H_ARGV(h_flamebpf(), "-f", "^thread_call$", "-o", out, "--",
				      h_workload("storm"), "threads", "1000", "100")),
			 0);
	h_assert_status(&r, 0);
	h_expect_calls(&r, 100000);
	assert_true(h_has_line(r.err, "flamebpf: lost: nothing"));
	n = record_tids(out, tids);
	threads = count_ids(tids, n, &least, &most);
	print_message("%zu records of %zu threads, %zu to %zu calls each\n", n, threads, least,
		      most);
	assert_int_equal(n, 100000);
	assert_int_equal(threads, 1000);
	assert_int_equal(least, 100);
	assert_int_equal(most, 100);
	h_result_free(&r);
}

static void test_thousand_threads_sampled(void **state)
{
	const char *out = h_path("threads.folded");
	static long tid[MAX_RECORDS];
	size_t tids, least, most;
	char root[256], comm[64];
	struct h_summary s;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 120, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "999", "--tids", "-o", out, "--",
			    h_workload("storm"), "spin", "1000", "2"));
	assert_true(h_parse_summary(r.err, &s));
	for (size_t i = 0; i < f.n && i < MAX_RECORDS; i++) {
		long pid;

		h_root(f.lines[i].stack, root, sizeof(root));
		assert_int_equal(h_root_ids(root, comm, sizeof(comm), &pid, &tid[i]), 0);
	}
	tids = count_ids(tid, f.n < MAX_RECORDS ? f.n : MAX_RECORDS, &least, &most);
	print_message("%llu samples of %zu threads, %llu processes; %s\n", s.samples, tids,
		      s.processes, strstr(r.err, "lost: nothing") ? "nothing lost" : "losses");
	assert_int_equal(f.total, s.samples);
	assert_int_equal(s.processes, 1);
	/* 4 ms of CPU each in 2 s: most are seen, unless the machine is busy */
	assert_true(tids >= 200 && tids <= 1001);
	assert_true(h_sum_frame(&f, "thread_spin") * 10 >= f.total * 8);
	h_folded_free(&f);
	h_result_free(&r);
}

/*
 * 300 children, one after another, 8 at a time, each execs storm and calls
 * child_call() 100 times: the command's program is traced in all of them,
 * exactly. With a library function too, the first 64 children get library
 * probes of their own and the summary says how many did not.
 */
static void fork_storm(const char *out, const char *lib_func, struct h_result *r)
{
	struct h_trace_summary s;
	struct h_folded f;

	if (lib_func)
		h_run_folded(r, 120, out, &f,
			     H_ARGV(h_flamebpf(), "-f", "^child_call$", "-f", lib_func, "-o", out,
				    "--", h_workload("storm"), "forks", "300", "100"));
	else
		h_run_folded(r, 120, out, &f,
			     H_ARGV(h_flamebpf(), "-f", "^child_call$", "-o", out, "--",
				    h_workload("storm"), "forks", "300", "100"));
	s = h_must_trace_summary(r);
	print_message("%llu calls in %llu processes, %llu binaries\n", s.calls, s.processes,
		      s.binaries);
	assert_true(h_sum_frame(&f, "child_call") > 0);
	if (!lib_func) {
		h_expect_calls(r, 30000);
		assert_int_equal(s.processes, 300);
		assert_int_equal(f.n, 1);
	}
	assert_true(h_has_line(r->err, "flamebpf: lost: nothing"));
	h_folded_free(&f);
}

static void test_fork_storm_traced(void **state)
{
	const char *libs = "child processes traced in the command's libraries";
	const char *over = "child processes traced in the command's program only";
	struct h_result r;

	(void)state;
	require_bpf();
	fork_storm(h_path("forks.folded"), NULL, &r);
	if (strstr(r.err, libs) || strstr(r.err, over)) {
		h_dump(&r, "flamebpf");
		fail_msg("the summary counts children traced in libraries, and none is traced");
	}
	h_result_free(&r);
	fork_storm(h_path("forks-lib.folded"), "libc:^strtod$", &r);
	if (!strstr(r.err, libs) || !strstr(r.err, over)) {
		h_dump(&r, "flamebpf");
		fail_msg("the summary does not say how many children were traced in libraries");
	}
	h_result_free(&r);
}

static void test_fork_storm_sampled(void **state)
{
	const char *out = h_path("forks-sampled.folded");
	struct h_summary s;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 120, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "999", "--pids", "-o", out, "--",
			    h_workload("storm"), "forks", "500", "200000"));
	assert_true(h_parse_summary(r.err, &s));
	print_message("%llu samples of %llu processes, %llu stacks; %llu in child_call or "
		      "run_child\n",
		      s.samples, s.processes, s.stacks,
		      h_sum_frame(&f, "child_call") + h_sum_frame(&f, "run_child"));
	assert_int_equal(f.total, s.samples);
	assert_true(s.processes >= 20 && s.processes <= 501);
	assert_non_null(strstr(r.err, "flamebpf: command exited with status 0"));
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sigkill_uprobe, h_test_teardown),
		cmocka_unit_test_teardown(test_sigkill_classic_uprobes, h_test_teardown),
		cmocka_unit_test_teardown(test_sigkill_sampling, h_test_teardown),
		cmocka_unit_test_teardown(test_sigint_starting_command, h_test_teardown),
		cmocka_unit_test_teardown(test_sigint_starting_pid, h_test_teardown),
		cmocka_unit_test_teardown(test_sigint_writing, h_test_teardown),
		cmocka_unit_test_teardown(test_dev_full, h_test_teardown),
		cmocka_unit_test_teardown(test_full_filesystem, teardown_small),
		cmocka_unit_test_teardown(test_ring_full_timeline, h_test_teardown),
		cmocka_unit_test_teardown(test_max_calls, h_test_teardown),
		cmocka_unit_test_teardown(test_ring_full_paths, h_test_teardown),
		cmocka_unit_test_teardown(test_ring_full_sampling, h_test_teardown),
		cmocka_unit_test_teardown(test_thousand_threads_traced, h_test_teardown),
		cmocka_unit_test_teardown(test_thousand_threads_sampled, h_test_teardown),
		cmocka_unit_test_teardown(test_fork_storm_traced, h_test_teardown),
		cmocka_unit_test_teardown(test_fork_storm_sampled, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("faults", tests, h_group_setup, h_group_teardown);
}
