// SPDX-License-Identifier: GPL-2.0
/*
 * What flamebpf, often run as root, must not be made to do: write through a
 * symbolic link another user planted in /tmp (it refuses, before any work),
 * replace a link such as /dev/stdout (it writes to the descriptor), leave
 * root's files to a sudo user (they get them), trust a JIT perf map of
 * another user, or run a shell on what it was given. Without privileges it
 * says which capability is missing, and -l, render and diff still work.
 */
#include "harness.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOBODY 65534
#define OTHER  54321 /* a user that is neither root nor nobody */

static const char *join(char *buf, size_t len, const char *dir, const char *name)
{
	if (snprintf(buf, len, "%s/%s", dir, name) >= (int)len)
		fail_msg("path too long: '%s/%s'", dir, name);
	return buf;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void expect_text(const char *path, const char *text)
{
	char *now = h_slurp(path);

	if (!now)
		fail_msg("'%s' is gone: %s", path, strerror(errno));
	if (strcmp(now, text))
		fail_msg("'%s' was overwritten: '%.100s'", path, now);
	free(now);
}

static void require_root(void)
{
	if (geteuid() != 0) {
		print_message("SKIP: needs root (to act as other users)\n");
		skip();
	}
}

/* ---- a symbolic link planted in /tmp ---- */

static char planted[64]; /* /tmp/flamebpf-planted-PID.svg */

static int teardown_planted(void **state)
{
	if (planted[0])
		unlink(planted);
	return h_test_teardown(state);
}

/* A link in /tmp to a file of ours, made by OWNER. */
static const char *plant(const char *victim, uid_t owner)
{
	snprintf(planted, sizeof(planted), "/tmp/flamebpf-planted-%d.svg", (int)getpid());
	unlink(planted);
	if (symlink(victim, planted) || lchown(planted, owner, owner))
		fail_msg("cannot plant '%s': %s", planted, strerror(errno));
	return planted;
}

/* ARGV must be refused quickly with one line naming the link, exit STATUS,
 * and leave VICTIM and the link alone. */
static void expect_refused(const char *const argv[], const char *victim, int status)
{
	char want[128], line[512];
	struct h_result r;
	struct stat st;

	assert_int_equal(h_run(&r, 30, argv), 0);
	snprintf(want, sizeof(want), "flamebpf: cannot write '%s': ", planted);
	if (r.status != status || !h_find_line(r.err, want, line, sizeof(line)) ||
	    !strstr(line, "symbolic link") || !strstr(line, "world-writable")) {
		h_dump(&r, "flamebpf");
		fail_msg("no exit %d and line '%s... symbolic link ... world-writable ...'", status,
			 want);
	}
	print_message("-> %s (%.2f s)\n", line, r.elapsed);
	assert_true(r.elapsed < 5);
	h_result_free(&r);
	expect_text(victim, "precious\n");
	assert_int_equal(lstat(planted, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

static void test_planted_link_capture(void **state)
{
	char victim[PATH_MAX], *text;
	struct h_result r;

	(void)state;
	require_bpf();
	require_root();
	join(victim, sizeof(victim), h_tmpdir(), "victim");
	write_text(victim, "precious\n");
	plant(victim, NOBODY);
	expect_refused(H_ARGV(h_flamebpf(), "-F", "99", "-o", planted, "--", h_workload("cpu_tree"),
			      "0.3"),
		       victim, 1);
	expect_refused(H_ARGV(h_flamebpf(), "-f", "^hot$", "-o", planted, "--", h_workload("storm"),
			      "rate", "0.3"),
		       victim, 1);
	/* the same link made by root itself is followed: the test can fail */
	plant(victim, 0);
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "-F", "99", "-o", planted, "--",
				      h_workload("cpu_tree"), "0.3")),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	text = h_slurp(victim);
	assert_non_null(text);
	assert_non_null(strstr(text, "<svg"));
	free(text);
	assert_true(h_exists(planted));
}

static void test_planted_link_render(void **state)
{
	char victim[PATH_MAX];

	(void)state;
	require_root();
	join(victim, sizeof(victim), h_tmpdir(), "victim-render");
	write_text(victim, "precious\n");
	plant(victim, OTHER);
	expect_refused(H_ARGV(h_flamebpf(), "render", "tests/data/perf-modern.perf", "-o", planted),
		       victim, 1);
	expect_refused(H_ARGV(h_flamebpf(), "diff", "-o", planted, "tests/data/perf-old.folded",
			      "tests/data/perf-old.folded"),
		       victim, 1);
}

/* ---- links that name a descriptor ---- */

/* /dev/fd/1, or a link to /proc/self/fd/1 as /dev/stdout is, is standard
 * output: written to, the link left as it is. */
static void test_descriptor_links(void **state)
{
	char link[PATH_MAX];
	const char *outs[2];
	struct h_folded f;
	struct h_result r;
	struct stat st;

	(void)state;
	join(link, sizeof(link), h_tmpdir(), "stdout");
	assert_int_equal(symlink("/proc/self/fd/1", link), 0);
	outs[0] = "/dev/fd/1";
	outs[1] = link;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(h_run(&r, 30,
				       H_ARGV(h_flamebpf(), "render", "tests/data/perf-modern.perf",
					      "-o", outs[i])),
				 0);
		h_assert_status(&r, 0);
		h_folded_must_parse(r.out, outs[i], &f);
		assert_true(f.total > 0);
		h_folded_free(&f);
		h_result_free(&r);
	}
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

/* ---- sudo ---- */

static void expect_owner(const char *path, uid_t uid, gid_t gid)
{
	struct stat st;

	if (stat(path, &st))
		fail_msg("no '%s': %s", path, strerror(errno));
	if (st.st_uid != uid || st.st_gid != gid)
		fail_msg("'%s' belongs to %d:%d, expected %d:%d", path, (int)st.st_uid,
			 (int)st.st_gid, (int)uid, (int)gid);
}

static void test_sudo_owner(void **state)
{
	char folded[PATH_MAX], svg[PATH_MAX], rendered[PATH_MAX];
	struct h_result r;

	(void)state;
	require_bpf();
	require_root();
	join(folded, sizeof(folded), h_tmpdir(), "sudo.folded");
	join(svg, sizeof(svg), h_tmpdir(), "sudo.svg");
	join(rendered, sizeof(rendered), h_tmpdir(), "sudo-render.folded");
	write_text(folded, "old;root 1\n"); /* root's: replaced by the user's */
	assert_int_equal(setenv("SUDO_UID", "65534", 1), 0);
	assert_int_equal(setenv("SUDO_GID", "65533", 1), 0);
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "-F", "99", "-o", folded, "-o", svg, "--",
				      h_workload("cpu_tree"), "0.3")),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "render", folded, "-o", rendered)), 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	h_assert_status(&r, 0);
	h_result_free(&r);
	expect_owner(folded, NOBODY, 65533);
	expect_owner(svg, NOBODY, 65533);
	expect_owner(rendered, NOBODY, 65533);
	/* without sudo's variables root keeps what it writes */
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "render", folded, "-o", rendered)), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	expect_owner(rendered, 0, 0);
}

/* ---- perf maps ---- */

static char jit_map[64];

static int teardown_jit(void **state)
{
	char real[80];

	h_test_teardown(state);
	if (jit_map[0]) {
		snprintf(real, sizeof(real), "%s.real", jit_map);
		unlink(jit_map);
		unlink(real);
	}
	return 0;
}

/* Samples of the JIT workload PID for 1 s; returns jitted_loop's share in %. */
static unsigned long long jit_share(pid_t pid, const char *out)
{
	unsigned long long share;
	struct h_folded f;
	char p[32];

	snprintf(p, sizeof(p), "%d", (int)pid);
	h_run_folded(NULL, 30, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "999", "-U", "-p", p, "-d", "1", "-o", out));
	assert_true(f.total >= 100);
	share = h_sum_frame(&f, "jitted_loop") * 100 / f.total;
	print_message("%s: %llu samples, %llu%% in jitted_loop\n", out, f.total, share);
	h_folded_free(&f);
	return share;
}

/* The map that the JIT (run as nobody) wrote names its code only while it
 * belongs to nobody (or root): not once another user owns it, nor through
 * a link. */
static void test_perf_map_owner(void **state)
{
	char real[80];
	struct h_proc jit;
	double deadline;

	(void)state;
	require_bpf();
	require_root();
	assert_int_equal(h_start(&jit, H_ARGV("setpriv", "--reuid=65534", "--regid=65534",
					      "--clear-groups", h_workload("jit"), "8")),
			 0);
	snprintf(jit_map, sizeof(jit_map), "/tmp/perf-%d.map", (int)jit.pid);
	snprintf(real, sizeof(real), "%s.real", jit_map);
	deadline = h_now() + 5;
	while (!h_exists(jit_map) && h_now() < deadline)
		h_sleep(0.02);
	if (!h_exists(jit_map)) {
		print_message("SKIP: the JIT workload run as nobody wrote no '%s'\n", jit_map);
		skip();
	}
	expect_owner(jit_map, NOBODY, NOBODY);
	assert_true(jit_share(jit.pid, h_path("jit-own.folded")) >= 70);
	assert_int_equal(chown(jit_map, OTHER, OTHER), 0);
	assert_int_equal(jit_share(jit.pid, h_path("jit-other.folded")), 0);
	assert_int_equal(chown(jit_map, NOBODY, NOBODY), 0);
	assert_int_equal(rename(jit_map, real), 0);
	assert_int_equal(symlink(real, jit_map), 0);
	assert_int_equal(jit_share(jit.pid, h_path("jit-link.folded")), 0);
	h_stop(&jit);
}

/* ---- no shell ---- */

/* No source file (src/FOLDER/x.c) calls a shell or a function that does. */
static void test_no_shell_in_source(void **state)
{
	static const char *const calls[] = { "system(", "popen(",   "execl(",	   "execlp(",
					     "execle(", "wordexp(", "posix_spawn", "\"-c\"" };
	glob_t g;
	int found = 0;

	(void)state;
	assert_int_equal(glob("src/*/*.c", 0, NULL, &g), 0);
	assert_true(g.gl_pathc > 50);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		char *text = h_slurp(g.gl_pathv[f]);

		assert_non_null(text);
		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
			if (strstr(text, calls[i])) {
				print_message("%s calls %s\n", g.gl_pathv[f], calls[i]);
				found++;
			}
		}
		free(text);
	}
	globfree(&g);
	assert_int_equal(found, 0);
}

/* What a shell would run in the arguments is passed on as text. */
static void test_no_shell_at_run_time(void **state)
{
	char mark[128], sub[160], semi[160], out[512], want[512];
	struct h_result r;

	(void)state;
	join(mark, sizeof(mark), h_tmpdir(), "MARK");
	snprintf(sub, sizeof(sub), "$(touch %.100s)", mark);
	snprintf(semi, sizeof(semi), "; touch %.100s", mark);
	/* a shell would make MARK in the current directory */
	snprintf(out, sizeof(out), "%.100s/x;touch MARK;`touch MARK`$(touch MARK).folded",
		 h_tmpdir());
	/* an output name */
	assert_int_equal(
		h_run(&r, 30,
		      H_ARGV(h_flamebpf(), "render", "tests/data/perf-old.perf", "-o", out)),
		0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	assert_true(h_exists(out));
	assert_false(h_exists("MARK"));
	/* a -f pattern: a usage error naming it */
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "-l", sub)), 0);
	assert_true(r.status == 1 || r.status == 2);
	h_result_free(&r);
	assert_false(h_exists(mark));
	/* a command's arguments */
	require_bpf();
	assert_int_equal(h_run(&r, 30,
			       H_ARGV(h_flamebpf(), "-F", "99", "-o", h_path("echo.folded"), "--",
				      "echo", sub, semi)),
			 0);
	snprintf(want, sizeof(want), "%.160s %.160s\n", sub, semi);
	assert_string_equal(r.out, want);
	h_result_free(&r);
	assert_false(h_exists(mark));
}

/* ---- without privileges ---- */

/* Runs ARGV as nobody, with the capabilities CAPS ("" for none) in its
 * ambient set; skips when setpriv cannot. */
static void run_as_nobody(struct h_result *r, const char *caps, const char *const argv[])
{
	char inh[64], amb[64];
	const char *args[40] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups" };
	size_t n = 4;

	snprintf(inh, sizeof(inh), "--inh-caps=-all%s%s", *caps ? "," : "", caps);
	args[n++] = inh;
	if (*caps) {
		snprintf(amb, sizeof(amb), "--ambient-caps=%s", caps);
		args[n++] = amb;
	}
	for (size_t i = 0; argv[i] && n < 39; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	assert_int_equal(h_run(r, 60, args), 0);
	if (r->status == 127 || strstr(r->err, "setpriv:")) {
		print_message("SKIP: cannot run as nobody with '%s': %s\n", caps, r->err);
		h_result_free(r);
		skip();
	}
}

/* A directory nobody may write in. */
static const char *nobody_dir(char *buf, size_t len)
{
	join(buf, len, h_tmpdir(), "nobody");
	if (mkdir(buf, 0777) && errno != EEXIST)
		fail_msg("cannot make '%s': %s", buf, strerror(errno));
	assert_int_equal(chmod(buf, 0777), 0);
	assert_int_equal(chmod(h_tmpdir(), 0711), 0);
	return buf;
}

/* Exit 1, naming MISSING (and not the capability it has), no output. */
static void expect_missing(const char *caps, const char *missing, const char *const argv[],
			   const char *out)
{
	char line[512];
	struct h_result r;

	run_as_nobody(&r, caps, argv);
	if (r.status != 1 || !h_find_line(r.err, "flamebpf: ", line, sizeof(line)) ||
	    !strstr(line, missing)) {
		h_dump(&r, "flamebpf");
		fail_msg("no exit 1 and a first line naming %s", missing);
	}
	print_message("with '%s' -> %s\n", caps, line);
	if (*caps && strstr(line, "missing CAP_BPF and CAP_PERFMON"))
		fail_msg("flamebpf says it lacks the capability it has");
	assert_true(r.elapsed < 5);
	assert_false(h_exists(out));
	h_result_free(&r);
}

static void test_missing_capabilities(void **state)
{
	char dir[PATH_MAX], out[PATH_MAX];

	(void)state;
	require_root();
	join(out, sizeof(out), nobody_dir(dir, sizeof(dir)), "caps.folded");
	expect_missing("", "CAP_BPF and CAP_PERFMON",
		       H_ARGV(h_flamebpf(), "-f", "^hot$", "-o", out, "--", h_workload("storm"),
			      "rate", "0.2"),
		       out);
	expect_missing(
		"+bpf", "missing CAP_PERFMON",
		H_ARGV(h_flamebpf(), "-F", "99", "-o", out, "--", h_workload("cpu_tree"), "0.2"),
		out);
	expect_missing("+perfmon", "missing CAP_BPF",
		       H_ARGV(h_flamebpf(), "-f", "^hot$", "-o", out, "--", h_workload("storm"),
			      "rate", "0.2"),
		       out);
}

/* -l, render and diff need no privileges. */
static void test_unprivileged_tools(void **state)
{
	char dir[PATH_MAX], svg[PATH_MAX], storm[PATH_MAX], want[PATH_MAX + 16],
		spec[PATH_MAX + 16];
	struct h_result r;
	struct stat st;

	(void)state;
	require_root();
	nobody_dir(dir, sizeof(dir));
	join(svg, sizeof(svg), dir, "render.svg");
	if (!realpath(h_workload("storm"), storm))
		fail_msg("no '%s'", h_workload("storm"));
	snprintf(spec, sizeof(spec), "%s:^hot$", storm);
	snprintf(want, sizeof(want), "%s:hot", storm);
	run_as_nobody(&r, "", H_ARGV(h_flamebpf(), "-l", spec));
	h_assert_status(&r, 0);
	assert_true(h_has_line(r.out, want));
	h_result_free(&r);
	run_as_nobody(&r, "", H_ARGV(h_flamebpf(), "-l", "^hot$", "--", storm, "rate", "0"));
	h_assert_status(&r, 0);
	assert_true(h_has_line(r.out, want));
	h_result_free(&r);
	run_as_nobody(
		&r, "",
		H_ARGV(h_flamebpf(), "render", "tests/data/perf-real-cpuclock.perf", "-o", svg));
	h_assert_status(&r, 0);
	h_result_free(&r);
	assert_int_equal(stat(svg, &st), 0);
	assert_int_equal(st.st_uid, NOBODY);
	assert_true(st.st_size > 1000);
	run_as_nobody(&r, "",
		      H_ARGV(h_flamebpf(), "diff", "tests/data/perf-real-cpuclock.folded",
			     "tests/data/perf-real-cpuclock.folded"));
	h_assert_status(&r, 0);
	assert_true(strlen(r.out) > 0);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_planted_link_capture, teardown_planted),
		cmocka_unit_test_teardown(test_planted_link_render, teardown_planted),
		cmocka_unit_test_teardown(test_descriptor_links, h_test_teardown),
		cmocka_unit_test_teardown(test_sudo_owner, h_test_teardown),
		cmocka_unit_test_teardown(test_perf_map_owner, teardown_jit),
		cmocka_unit_test_teardown(test_no_shell_in_source, h_test_teardown),
		cmocka_unit_test_teardown(test_no_shell_at_run_time, h_test_teardown),
		cmocka_unit_test_teardown(test_missing_capabilities, h_test_teardown),
		cmocka_unit_test_teardown(test_unprivileged_tools, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("security", tests, h_group_setup, h_group_teardown);
}
