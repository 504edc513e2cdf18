// SPDX-License-Identifier: GPL-2.0
/*
 * Names that are not in the sampled binary's own symbol table, under real
 * sampling: a stripped build of tests/workloads/cpu_tree.c whose functions
 * are in its .gnu_debuglink file, and the JIT code of tests/workloads/jit.c
 * named by the perf map its process wrote; processes that exit long
 * before the capture ends; a binary deleted while it runs; a program in a
 * chroot directory; inlined functions and source lines from DWARF; the
 * JavaScript of node --perf-basic-prof; the kernel's vDSO. Also: a stripped build whose debug
 * file is installed by build-id for the run; processes gone before their
 * maps could be read (the mapping history); programs in another mount
 * namespace, whose files only it sees.
 */
#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void profile(const char *workload, const char *out, struct h_folded *f)
{
	const char *const argv[] = { h_flamebpf(), "--sample", "999hz",
				     "-U",	   "--pids",   "-o",
				     out,	   "--",       h_workload(workload),
				     "1",	   NULL };

	h_run_folded(NULL, 30, out, f, argv);
	if (f->total < 100) {
		h_folded_dump(f, 20);
		fail_msg("only %llu samples of %s in 1 s at 999 Hz", f->total, workload);
	}
}

/* Whether the file (a small workload) holds the name of a .symtab section. */
static bool has_symtab(const char *path)
{
	static char buf[4 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		fail_msg("cannot read '%s': run 'make test-integ'", path);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 0 && n < sizeof(buf));
	return memmem(buf, n, ".symtab", sizeof(".symtab")) != NULL;
}

static void test_stripped_debuglink(void **state)
{
	struct h_folded f;

	(void)state;
	require_bpf();
	if (has_symtab(h_workload("stripped/cpu_tree")))
		fail_msg("%s is not stripped", h_workload("stripped/cpu_tree"));
	profile("stripped/cpu_tree", h_path("stripped.folded"), &f);
	if (!h_sum_frame(&f, "tree_a") || !h_sum_frame(&f, "tree_c") || !h_sum_frame(&f, "burn")) {
		h_folded_dump(&f, 30);
		fail_msg("no tree_a, tree_c or burn frame: the debuglink file was not used");
	}
	assert_true(h_sum_frame(&f, "main") * 100 >= f.total * 80);
	h_folded_free(&f);
}

/* The map outlives the process: the test removes it. */
static void remove_perf_map(const struct h_folded *f)
{
	char root[256], comm[64], path[64];
	long pid, tid;

	for (size_t i = 0; i < f->n; i++) {
		h_root(f->lines[i].stack, root, sizeof(root));
		if (h_root_ids(root, comm, sizeof(comm), &pid, &tid) || strcmp(comm, "jit"))
			continue;
		snprintf(path, sizeof(path), "/tmp/perf-%ld.map", pid);
		unlink(path);
	}
}

static bool jit_under_main(const char *stack, const void *arg)
{
	(void)arg;
	return h_has_seq(stack, "main;jitted_loop");
}

static void test_jit_perf_map(void **state)
{
	unsigned long long jit;
	struct h_folded f;

	(void)state;
	require_bpf();
	profile("jit", h_path("jit.folded"), &f);
	remove_perf_map(&f);
	jit = h_sum_frame(&f, "jitted_loop");
	print_message("samples: total %llu, jitted_loop %llu, under main %llu\n", f.total, jit,
		      h_sum(&f, jit_under_main, NULL));
	if (jit * 100 < f.total * 70) {
		h_folded_dump(&f, 30);
		fail_msg("jitted_loop has %llu of %llu samples", jit, f.total);
	}
	/* the frame pointer chain runs through the JIT frame on to main */
	assert_true(h_sum(&f, jit_under_main, NULL) * 100 >= jit * 70);
	h_folded_free(&f);
}

/* A stack of cpu_tree whose user frames all have names. */
static bool named_cpu_tree(const char *stack, const void *want_named)
{
	const char *f = strchr(stack, ';');
	bool named = true, user = false;

	if (strncmp(stack, "cpu_tree;", 9))
		return false;
	for (; f; f = strchr(f, ';')) {
		size_t len = strcspn(++f, ";");

		if (h_is_kernel_frame(f, len))
			continue;
		user = true;
		if (memmem(f, len, "+0x", 3) || !strncmp(f, "[unknown]", len))
			named = false;
	}
	return user && (!want_named || named);
}

/* A stack holding the substring arg (frames joined by ';'). */
static bool holds(const char *stack, const void *arg)
{
	return strstr(stack, arg) != NULL;
}

/* A stack through the vDSO with a frame unnamed (a Go thread's first
 * stack, at runtime.clone, may have one at its root: not the vDSO's). */
static bool vdso_unknown(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, "__vdso_clock_gettime") && strstr(stack, "[unknown]");
}

/* A frame of the vDSO's unnamed code by its address ("[vdso]+0x79d"): one
 * frame per address, which split its time into slivers. */
static bool vdso_by_address(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, "[vdso]+0x") != NULL;
}

/* [vdso] frames of workload, reading the clock for a second: named from
 * the kernel's vDSO as perf names them (__vdso_clock_gettime), its unnamed
 * helpers (kvm-clock's read) one "[vdso]" frame, and their callers (the
 * substring callers) all there. On a clock source the vDSO
 * cannot read, each read is a system call: nothing to see, the test says
 * so. */
static void check_vdso(const char *workload, const char *callers)
{
	unsigned long long vdso, whole;
	struct h_folded f;

	profile(workload, h_path("clocks.folded"), &f);
	vdso = h_sum_frame(&f, "__vdso_clock_gettime");
	whole = h_sum(&f, holds, callers);
	print_message("%s: total %llu, in the vDSO %llu, with its callers %llu, [unknown] %llu, "
		      "in its helpers %llu\n",
		      workload, f.total, vdso, whole, h_sum(&f, vdso_unknown, NULL),
		      h_sum(&f, holds, "__vdso_clock_gettime;[vdso]"));
	if (vdso * 100 < f.total * 30 && h_sum(&f, holds, "_[k]") * 2 > f.total) {
		h_folded_free(&f);
		print_message("SKIP: the clock is read by system calls here, not in the vDSO\n");
		skip();
	}
	if (vdso * 100 < f.total * 30 || whole * 100 < vdso * 95 || h_sum(&f, vdso_unknown, NULL) ||
	    h_sum(&f, vdso_by_address, NULL)) {
		h_folded_dump(&f, 20);
		fail_msg("%llu of %llu samples in __vdso_clock_gettime, %llu under '%s'", vdso,
			 f.total, whole, callers);
	}
	h_folded_free(&f);
}

/* C: unwound by the vDSO's own call-frame information (by frame pointers
 * from its inner function, libc's clock_gettime had been skipped). */
static void test_vdso(void **state)
{
	(void)state;
	require_bpf();
	check_vdso("clocks", ";main;read_clock;clock_gettime;__vdso_clock_gettime");
}

/* Go: the runtime calls the vDSO on the thread's system stack, time.now's
 * frame on the goroutine's below it, whose frame pointer is followed down
 * once (Go's own .debug_frame, which describes the stack time.now left,
 * had read a nanosecond count as its return address: 1901 of 2088 stacks
 * cut after time.now). */
static void test_vdso_go(void **state)
{
	(void)state;
	require_bpf();
	if (access(h_workload("unwind/go_clock"), X_OK)) {
		print_message("SKIP: no Go workload (golang-go is not installed)\n");
		skip();
	}
	check_vdso("unwind/go_clock",
		   ";main.main;main.spin;time.Now;time.now;__vdso_clock_gettime");
}

/* Go: main.work, a leaf without a frame, under main.batch: its return
 * address is read at the stack pointer, where Go's own .debug_frame says
 * it is (kept for such code alone); frame pointers had found main.batch's
 * caller instead, main.batch gone from 96% of the samples. */
static void test_go_frameless_leaf(void **state)
{
	unsigned long long work, under;
	struct h_folded f;

	(void)state;
	require_bpf();
	if (access(h_workload("unwind/go_leaf"), X_OK)) {
		print_message("SKIP: no Go workload (golang-go is not installed)\n");
		skip();
	}
	profile("unwind/go_leaf", h_path("go_leaf.folded"), &f);
	work = h_sum_frame(&f, "main.work");
	under = h_sum(&f, holds, ";main.batch;main.work");
	print_message("main.work: %llu samples of %llu, %llu under main.batch\n", work, f.total,
		      under);
	if (work * 100 < f.total * 50 || under * 100 < work * 95) {
		h_folded_dump(&f, 20);
		fail_msg("%llu of main.work's %llu samples under main.batch", under, work);
	}
	h_folded_free(&f);
}

/* A storm of processes that live 20 ms each, exited long before the
 * capture ends: their mappings were taken while they ran. */
static void test_short_lived(void **state)
{
	const char *out = h_path("storm.folded");
	char loop[512];
	unsigned long long all, named;
	struct h_folded f;

	(void)state;
	require_bpf();
	snprintf(loop, sizeof(loop), "for i in $(seq 60); do %s 0.02; done",
		 h_workload("nofp/cpu_tree"));
	h_run_folded(NULL, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "999hz", "-o", out, "--", "sh", "-c", loop));
	all = h_sum(&f, named_cpu_tree, NULL);
	named = h_sum(&f, named_cpu_tree, "");
	print_message("%llu of %llu samples of 60 short-lived processes have every user frame "
		      "named; %llu under main\n",
		      named, all, h_sum_frame(&f, "main"));
	if (all < 300 || named * 100 < all * 90) {
		h_folded_dump(&f, 30);
		fail_msg("%llu of %llu samples named", named, all);
	}
	h_folded_free(&f);
}

/* The share (percent) of cpu_tree's samples with user frames that are all
 * named and reach main. */
static double named_main_share(const struct h_folded *f)
{
	unsigned long long all = h_sum(f, named_cpu_tree, NULL);
	unsigned long long good = 0;

	for (size_t i = 0; i < f->n; i++)
		if (named_cpu_tree(f->lines[i].stack, "") && h_has_frame(f->lines[i].stack, "main"))
			good += f->lines[i].count;
	print_message("%llu of %llu samples named and under main\n", good, all);
	return all ? 100.0 * good / all : 0;
}

static void copy_file(const char *from, const char *to)
{
	struct h_result r;

	assert_int_equal(h_run(&r, 10, H_ARGV("cp", from, to)), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
}

/* Samples the running workload p for a second by -p, then stops it: 90%
 * of its samples must be named and reach main, or fail with WHY. */
static void expect_pid_named(struct h_proc *p, const char *out, const char *why)
{
	struct h_folded f;
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)p->pid);
	h_run_folded(NULL, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "999hz", "-p", pid, "-d", "1", "-o", out));
	h_stop(p);
	if (named_main_share(&f) < 90) {
		h_folded_dump(&f, 20);
		fail_msg("%s", why);
	}
	h_folded_free(&f);
}

/* A binary deleted while it runs: read through /proc/PID/map_files. */
static void test_deleted_binary(void **state)
{
	const char *bin = h_path("cpu_tree"), *out = h_path("deleted.folded");
	struct h_proc p;

	(void)state;
	require_bpf();
	copy_file(h_workload("nofp/cpu_tree"), bin);
	h_start_workload(&p, H_ARGV(bin, "3"));
	assert_int_equal(unlink(bin), 0);
	expect_pid_named(&p, out, "the deleted binary's stacks are not named and unwound");
}

/* A program started in a chroot directory: its paths are under its root. */
static void test_chroot(void **state)
{
	const char *root = h_path("jail"), *out = h_path("chroot.folded");
	char bin[4200], dir[4100];
	struct h_folded f;

	(void)state;
	require_bpf();
	snprintf(dir, sizeof(dir), "%s/bin", root);
	snprintf(bin, sizeof(bin), "%s/cpu_tree", dir);
	assert_true(mkdir(root, 0755) == 0 || errno == EEXIST);
	assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
	copy_file(h_workload("static/cpu_tree"), bin);
	h_run_folded(NULL, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "999hz", "-o", out, "--", "chroot", root,
			    "/bin/cpu_tree", "1"));
	if (named_main_share(&f) < 90) {
		h_folded_dump(&f, 20);
		fail_msg("the chrooted program's stacks are not named and unwound");
	}
	h_folded_free(&f);
}

/* Samples "BIN 1" (its process named cpu_tree) into F. */
static void sample_cpu_tree(const char *bin, const char *name, struct h_folded *f)
{
	const char *out = h_path(name);

	h_run_folded(NULL, 30, out, f,
		     H_ARGV(h_flamebpf(), "--sample", "999hz", "-o", out, "--", bin, "1"));
}

/* The debug file test_buildid_debug installed, and the directories it made
 * for it (removed in that order when empty). */
static char installed[PATH_MAX];
static char made_dirs[3][PATH_MAX];
static int nmade;

static int teardown_debug_file(void **state)
{
	if (installed[0] && unlink(installed))
		print_message("cannot remove '%s': %s\n", installed, strerror(errno));
	installed[0] = '\0';
	while (nmade > 0)
		rmdir(made_dirs[--nmade]);
	return h_test_teardown(state);
}

static void make_dir(const char *path)
{
	if (!mkdir(path, 0755)) {
		snprintf(made_dirs[nmade++], PATH_MAX, "%s", path);
		return;
	}
	if (errno != EEXIST)
		fail_msg("cannot create '%s': %s", path, strerror(errno));
}

/* The build-id (hex) of PATH, as readelf -n shows it. */
static void build_id_of(const char *path, char *id, size_t len)
{
	struct h_result r;
	const char *at;
	size_t n;

	assert_int_equal(h_run(&r, 10, H_ARGV("readelf", "-n", path)), 0);
	h_assert_status(&r, 0);
	at = strstr(r.out, "Build ID: ");
	if (!at)
		fail_msg("readelf shows no build-id for '%s'", path);
	at += strlen("Build ID: ");
	n = strspn(at, "0123456789abcdef");
	assert_true(n >= 4 && n < len);
	memcpy(id, at, n);
	id[n] = '\0';
	h_result_free(&r);
}

/* Copies DEBUG to /usr/lib/debug/.build-id/xx/yyyy.debug for BIN. */
static void install_by_build_id(const char *bin, const char *debug)
{
	char id[128], dir[64];

	build_id_of(bin, id, sizeof(id));
	make_dir("/usr/lib/debug");
	make_dir("/usr/lib/debug/.build-id");
	snprintf(dir, sizeof(dir), "/usr/lib/debug/.build-id/%.2s", id);
	make_dir(dir);
	snprintf(installed, sizeof(installed), "%s/%s.debug", dir, id + 2);
	copy_file(debug, installed);
}

/* nofp/cpu_tree stripped, no debuglink: names only from its debug file,
 * found by build-id; unwound by its .eh_frame (no frame pointers). */
static void test_buildid_debug(void **state)
{
	const char *bin = h_workload("buildid/cpu_tree");
	char debug[PATH_MAX];
	double without, with;
	struct h_folded f;

	(void)state;
	require_bpf();
	if (has_symtab(bin))
		fail_msg("%s is not stripped", bin);
	snprintf(debug, sizeof(debug), "%s.dbg", bin);
	sample_cpu_tree(bin, "buildid-none.folded", &f);
	without = named_main_share(&f);
	h_folded_free(&f);
	install_by_build_id(bin, debug);
	sample_cpu_tree(bin, "buildid.folded", &f);
	with = named_main_share(&f);
	print_message("named and under main: %.1f%% with %s, %.1f%% without it\n", with, installed,
		      without);
	if (without > 10)
		fail_msg("%.1f%% named without the debug file: the test proves nothing", without);
	if (with < 80) {
		h_folded_dump(&f, 20);
		fail_msg("the debug file installed by build-id was not used");
	}
	h_folded_free(&f);
}

/* The last user frame of a stack of cpu_tree: the sampled function. */
static bool leaf_named(const char *stack, const void *arg)
{
	const char *f = strchr(stack, ';'), *leaf = NULL;
	size_t len = 0;

	(void)arg;
	if (strncmp(stack, "cpu_tree;", 9))
		return false;
	for (; f; f = strchr(f, ';')) {
		size_t n = strcspn(++f, ";");

		if (!h_is_kernel_frame(f, n)) {
			leaf = f;
			len = n;
		}
	}
	return leaf && !memmem(leaf, len, "+0x", 3) && strncmp(leaf, "[unknown]", len);
}

/* The first CPU this process may run on. */
static void first_cpu(char *buf, size_t len)
{
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &set)) {
			snprintf(buf, len, "%d", c);
			return;
		}
	}
	fail_msg("no CPU to run on");
}

/*
 * Processes gone before their maps could be read: flamebpf at nice 19 and a
 * loop of short processes (about 3 ms each, most of it exec) at nice 0 share
 * one CPU, so the events that have a process's maps read are handled after
 * it exited. Only the mapping history (PERF_RECORD_MMAP2, src/capture/mmap_events.c)
 * names their samples: measured 97-99.6% with the sampled function named
 * (73-77% with every user frame named: stacks unwound by frame pointers
 * before the tables were loaded stop early or go astray), and 1-22% (1-17%)
 * with that path turned off.
 */
static void test_exited_before_snapshot(void **state)
{
	const char *out = h_path("starved.folded");
	char loop[512], cpu[16];
	unsigned long long all, leaf, every;
	struct h_folded f;

	(void)state;
	require_bpf();
	first_cpu(cpu, sizeof(cpu));
	snprintf(loop, sizeof(loop), "for i in $(seq 150); do %s 0; done",
		 h_workload("nofp/cpu_tree"));
	h_run_folded(NULL, 60, out, &f,
		     H_ARGV("taskset", "-c", cpu, "nice", "-n", "19", h_flamebpf(), "--sample",
			    "999hz", "-o", out, "--", "nice", "-n", "-19", "sh", "-c", loop));
	all = h_sum(&f, named_cpu_tree, NULL);
	leaf = h_sum(&f, leaf_named, NULL);
	every = h_sum(&f, named_cpu_tree, "");
	print_message("of %llu samples of 150 processes that exited unread, %llu have the sampled "
		      "function named, %llu every user frame\n",
		      all, leaf, every);
	if (all < 100 || leaf * 100 < all * 80 || every * 100 < all * 50) {
		h_folded_dump(&f, 30);
		fail_msg("the mapping history did not name the processes that exited");
	}
	h_folded_free(&f);
}

/*
 * The shell script that, in a new mount namespace, mounts a tmpfs over DIR,
 * copies stripped/cpu_tree and its .gnu_debuglink file there and runs that
 * copy for SECONDS. Our namespace sees DIR empty: the binary is read
 * through /proc/PID/map_files too, but the debug file only through
 * /proc/PID/root.
 */
static void mount_ns_script(char *buf, size_t len, const char *dir, const char *seconds)
{
	const char *bin = h_workload("stripped/cpu_tree");

	snprintf(buf, len,
		 "mount -t tmpfs tmpfs '%s' && cp '%s' '%s.debug' '%s/' && exec '%s/cpu_tree' %s",
		 dir, bin, bin, dir, dir, seconds);
}

/* Waits until the process runs DIR/cpu_tree. */
static void wait_exec(pid_t pid, const char *dir)
{
	char link[64], exe[PATH_MAX], want[PATH_MAX];
	double until = h_now() + 10;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	snprintf(want, sizeof(want), "%s/cpu_tree", dir);
	do {
		n = readlink(link, exe, sizeof(exe) - 1);
		if (n > 0) {
			exe[n] = '\0';
			if (!strcmp(exe, want))
				return;
		}
		h_sleep(0.02);
	} while (h_now() < until);
	fail_msg("the process in the new mount namespace did not start %s", want);
}

static void make_ns_dir(const char *dir)
{
	assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
}

/* A running program in another mount namespace, profiled by pid. */
static void test_mount_ns(void **state)
{
	const char *dir = h_path("ns"), *out = h_path("ns.folded");
	char script[8192], bin[PATH_MAX];
	struct h_proc p;

	(void)state;
	require_bpf();
	make_ns_dir(dir);
	mount_ns_script(script, sizeof(script), dir, "3");
	h_start_workload(&p,
			 H_ARGV("unshare", "-m", "--propagation", "private", "sh", "-c", script));
	wait_exec(p.pid, dir);
	snprintf(bin, sizeof(bin), "%s/cpu_tree", dir);
	assert_false(h_exists(bin)); /* only in its namespace */
	expect_pid_named(&p, out, "the program in another mount namespace is not named");
}

/* The same as a COMMAND: named though it exited before the end. */
static void test_mount_ns_command(void **state)
{
	const char *dir = h_path("ns-command"), *out = h_path("ns-command.folded");
	char script[8192];
	struct h_folded f;

	(void)state;
	require_bpf();
	make_ns_dir(dir);
	mount_ns_script(script, sizeof(script), dir, "1");
	h_run_folded(NULL, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "999hz", "-o", out, "--", "unshare", "-m",
			    "--propagation", "private", "sh", "-c", script));
	if (named_main_share(&f) < 90) {
		h_folded_dump(&f, 20);
		fail_msg("the program that ran in another mount namespace is not named");
	}
	h_folded_free(&f);
}

/* The line of tests/workloads/inlined.c that holds marker. */
static int marker_line(const char *marker)
{
	char *src = h_slurp("tests/workloads/inlined.c"), *at;
	int line = 1;

	if (!src || !(at = strstr(src, marker)))
		fail_msg("cannot find %s in tests/workloads/inlined.c", marker);
	for (char *c = src; c < at; c++)
		line += *c == '\n';
	free(src);
	return line;
}

static bool user_sample_of_inlined(const char *stack, const void *seq)
{
	return !strncmp(stack, "inlined;", 8) && h_has_frame(stack, "_start") &&
	       (!seq || strstr(stack, seq));
}

static void profile_inlined(const char *opt1, const char *opt2, struct h_folded *f)
{
	const char *out = h_path("inlined.folded");

	h_run_folded(NULL, 30, out, f,
		     H_ARGV(h_flamebpf(), "--sample", "499hz", "-o", out, opt1, opt2, "--",
			    h_workload("inlined"), "1"));
}

/* --inline and --file-line: the functions inlined into outer, with lines. */
static void test_inline_file_line(void **state)
{
	char want[256];
	unsigned long long all, hit;
	struct h_folded f;

	(void)state;
	require_bpf();
	snprintf(want, sizeof(want),
		 ";outer (inlined.c:%d);middle (inlined.c:%d);inner (inlined.c:",
		 marker_line("LINE-OUTER"), marker_line("LINE-MIDDLE"));
	profile_inlined("--inline", "--file-line", &f);
	all = h_sum(&f, user_sample_of_inlined, NULL);
	hit = h_sum(&f, user_sample_of_inlined, want);
	print_message("%llu of %llu samples have '%s'\n", hit, all, want);
	if (all < 50 || hit * 100 < all * 90) {
		h_folded_dump(&f, 10);
		fail_msg("the inlined calls are not shown with their lines");
	}
	h_folded_free(&f);
	/* without them, the symbol table's view: no middle or inner */
	profile_inlined("--pids", "-U", &f);
	assert_int_equal(h_sum_frame(&f, "middle") + h_sum_frame(&f, "inner"), 0);
	assert_true(h_sum_frame(&f, "outer") * 100 >= f.total * 90);
	h_folded_free(&f);
	/* --inline alone: the frames without lines */
	profile_inlined("--inline", "-U", &f);
	all = h_sum(&f, user_sample_of_inlined, NULL);
	assert_true(h_sum(&f, user_sample_of_inlined, ";main;outer;middle;inner") * 100 >=
		    all * 90);
	h_folded_free(&f);
}

static bool node_js_frame(const char *stack, const void *arg)
{
	(void)arg;
	return !strncmp(stack, "node;", 5) && strstr(stack, ";JS:") && strstr(stack, "hot.js:");
}

/* JavaScript names from the perf map node writes with --perf-basic-prof. */
static void test_node_perf_map(void **state)
{
	static const char script[] = "function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) "
				     "s += Math.sqrt(i) * (i & 7); return s; }\n"
				     "function driver() { const t = Date.now(); let x = 0; while "
				     "(Date.now() - t < 1500) x += hotLoop(100000); return x; }\n"
				     "console.log(driver() > 0);\n";
	const char *js = h_path("hot.js"), *out = h_path("node.folded");
	char v8log[4200];
	unsigned long long named, under_main;
	struct h_folded f;
	FILE *fp;

	(void)state;
	require_bpf();
	if (access("/usr/bin/node", X_OK)) {
		print_message("SKIP: node is not installed (Debian's nodejs)\n");
		skip();
	}
	/* node writes its log (isolate-*.log) in the working directory */
	snprintf(v8log, sizeof(v8log), "--logfile=%s", h_path("v8.log"));
	fp = fopen(js, "w");
	assert_non_null(fp);
	fputs(script, fp);
	fclose(fp);
	h_run_folded(NULL, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "499hz", "-o", out, "--", "/usr/bin/node",
			    "--perf-basic-prof", "--no-logfile-per-isolate", v8log, js));
	named = h_sum(&f, node_js_frame, NULL);
	under_main = 0;
	for (size_t i = 0; i < f.n; i++)
		if (node_js_frame(f.lines[i].stack, NULL) &&
		    h_has_frame(f.lines[i].stack, "_start"))
			under_main += f.lines[i].count;
	print_message("%llu of %llu samples in named JavaScript (hot.js), %llu of them from "
		      "_start\n",
		      named, f.total, under_main);
	if (named * 100 < f.total * 60) {
		h_folded_dump(&f, 10);
		fail_msg("the JavaScript functions are not named");
	}
	/* through the JIT frames by frame pointers, node's own by tables */
	assert_true(under_main * 100 >= named * 90);
	h_folded_free(&f);
}

/* The names `-l 'main\\.' -- PROGRAM` prints, without the path before them. */
static char *list_main(const char *program)
{
	struct h_result r;
	char *names;

	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "-l", "main\\.", "--", program)), 0);
	h_assert_status(&r, 0);
	names = r.out;
	r.out = NULL;
	h_result_free(&r);
	for (char *line = names, *w = names; *line; w += strlen(w)) {
		char *colon = strchr(line, ':'), *nl = strchr(line, '\n');

		if (!colon || !nl || colon > nl)
			fail_msg("not a PATH:NAME line: %s", line);
		memmove(w, colon + 1, nl - colon);
		w[nl - colon] = '\0';
		line = nl + 1;
		if (!*line)
			break;
	}
	return names;
}

static bool go_user_frame_is_hex(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, "go_stacks+0x") != NULL;
}

static bool from_goexit(const char *stack, const void *arg)
{
	(void)arg;
	return !strncmp(stack, "go_stacks;runtime.goexit;", 25);
}

/* Debian strips its Go programs: their names are in Go's own table
 * (.gopclntab), which the runtime keeps. The stripped binary lists the
 * same main functions as the one with its symbol table, and a capture of
 * it names its frames; a goroutine's stack walked to runtime.goexit, where
 * its frame-pointer chain ends, counts as whole, not truncated. */
static void test_go_stripped(void **state)
{
	const char *stripped = h_workload("unwind/stripped/go_stacks");
	const char *out = h_path("go.folded");
	unsigned long long hex, exits, tables = 0, mixed = 0, early = 0;
	char *want, *got, line[512];
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	if (!h_exists(stripped)) {
		print_message("SKIP: %s was not built (go is not installed)\n", stripped);
		skip();
	}
	if (has_symtab(stripped))
		fail_msg("%s is not stripped", stripped);
	want = list_main(h_workload("unwind/go_stacks"));
	got = list_main(stripped);
	print_message("main functions: %zu with a symbol table, %zu stripped\n",
		      h_count_lines(want), h_count_lines(got));
	assert_true(h_count_lines(want) >= 8);
	assert_string_equal(got, want);
	free(want);
	free(got);
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "999hz", "-o", out, "--", stripped, "1500"));
	hex = h_sum(&f, go_user_frame_is_hex, NULL);
	exits = h_sum(&f, from_goexit, NULL);
	if (h_find_line(r.err, "flamebpf: user stacks: ", line, sizeof(line)))
		sscanf(line,
		       "flamebpf: user stacks: %llu by unwind tables, %llu by tables and frame "
		       "pointers, %*u truncated, %llu",
		       &tables, &mixed, &early);
	print_message("%llu samples: %llu in main.grow, %llu with a frame unnamed, %llu from "
		      "runtime.goexit; %s\n",
		      f.total, h_sum_frame(&f, "main.grow"), hex, exits, line);
	if (!h_sum_frame(&f, "main.grow") || hex * 100 > f.total || !exits) {
		h_folded_dump(&f, 20);
		fail_msg("the stripped Go program's frames are not named from .gopclntab");
	}
	/* Go keeps frame pointers: a sample taken before the tables were in
	 * may be whole too */
	if (tables + mixed + early < exits)
		fail_msg("%llu stacks from runtime.goexit, %llu counted whole", exits,
			 tables + mixed + early);
	h_result_free(&r);
	h_folded_free(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_stripped_debuglink, h_test_teardown),
		cmocka_unit_test_teardown(test_jit_perf_map, h_test_teardown),
		cmocka_unit_test_teardown(test_vdso, h_test_teardown),
		cmocka_unit_test_teardown(test_vdso_go, h_test_teardown),
		cmocka_unit_test_teardown(test_go_frameless_leaf, h_test_teardown),
		cmocka_unit_test_teardown(test_short_lived, h_test_teardown),
		cmocka_unit_test_teardown(test_deleted_binary, h_test_teardown),
		cmocka_unit_test_teardown(test_chroot, h_test_teardown),
		cmocka_unit_test_teardown(test_buildid_debug, teardown_debug_file),
		cmocka_unit_test_teardown(test_exited_before_snapshot, h_test_teardown),
		cmocka_unit_test_teardown(test_mount_ns, h_test_teardown),
		cmocka_unit_test_teardown(test_mount_ns_command, h_test_teardown),
		cmocka_unit_test_teardown(test_inline_file_line, h_test_teardown),
		cmocka_unit_test_teardown(test_node_perf_map, h_test_teardown),
		cmocka_unit_test_teardown(test_go_stripped, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("names", tests, h_group_setup, h_group_teardown);
}
