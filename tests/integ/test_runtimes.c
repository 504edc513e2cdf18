// SPDX-License-Identifier: GPL-2.0
/*
 * Language runtimes whose JIT code only a perf map names, sampled for
 * real: an Erlang module and an Elixir script (tests/workloads/busy.erl,
 * busy.exs) on Debian's BEAM with +JPperf true, named and split as they
 * run (heavy/0 about 70%, light/0 30%; without +JPperf: test_beam.c),
 * whose samples in the JIT's shared fragments keep their Erlang callers; a
 * Java program (tests/workloads/Hot.java) without a perf map, which
 * flamebpf asks the JVM for at the end (jcmd Compiler.perfmap) and names
 * its hot method with, and through whose frames -XX:+PreserveFramePointer
 * lets stacks go on (without it, the summary says to add it); a JVM that
 * refuses jcmd, whose capture still succeeds, saying why; a JVM under
 * -Xint, whose interpreted frames are named as the methods they run (read
 * from the JVM's memory), attached and as COMMAND; and node
 * (tests/workloads/hot.js) with a function left interpreted, named only
 * with --interpreted-frames-native-stack, which the summary says to add
 * when it is missing (those samples not counted as named), and named from
 * its perf map under --unwind fp too, where the summary's named share is
 * the output's. Each skips, saying so, where its runtime is not installed
 * (tools/deps.sh --test installs them).
 */
#include "beam_workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A node started with +JPperf true: its functions named through its perf
 * map, heavy/0 and light/0 in their shares, the summary's runtimes line
 * saying so. */
static void check_jpperf(const char *out, const char *module, const char *heavy, const char *light,
			 const char *const cmd[])
{
	char line[1024];
	struct h_result r;
	struct h_folded f;

	bw_run_node("+JPperf true", out, &r, &f, cmd);
	bw_runtimes_line(&r, line, sizeof(line));
	print_message("%s\n", line);
	bw_expect_split(&f, module, heavy, light);
	assert_non_null(strstr(line, "beam.smp 1 process, perf map, "));
	assert_true(bw_named_share(line) >= 90);
	h_folded_free(&f);
	h_result_free(&r);
}

static void test_erlang_jpperf(void **state)
{
	(void)state;
	require_bpf();
	bw_require_program("/usr/bin/erlc", "erlang-base");
	check_jpperf(h_path("erlang.folded"), "$busy:", "busy:heavy/0", "busy:light/0",
		     H_ARGV("erl", "-noshell", "-pa", bw_compile_busy_erl(), "-eval",
			    "busy:run(" BEAM_MS "), halt()."));
}

static void test_elixir_jpperf(void **state)
{
	(void)state;
	require_bpf();
	bw_require_program("/usr/bin/elixir", "elixir");
	check_jpperf(h_path("elixir.folded"), "$'Elixir.Busy':", "'Elixir.Busy':heavy/0",
		     "'Elixir.Busy':light/0",
		     H_ARGV("elixir", "tests/workloads/busy.exs", BEAM_MS));
}

/* An h_pred: the stack runs in one of the JIT's shared fragments (GC, BIF
 * calls), not in the scheduler's loop. */
static bool in_fragment(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, ";$global::") && !strstr(stack, ";$global::process_main");
}

static bool fragment_rooted(const char *stack, const void *arg)
{
	return in_fragment(stack, arg) && strstr(stack, ";$erts_beamasm:normal_exit");
}

/* The shared fragments run C on the scheduler's stack while their frame
 * pointer is on the process's Erlang stack: their samples keep their
 * Erlang callers down to the process's first frame (normal_exit), at
 * least 90% of them (0% when the walk stopped at the fragment). */
static void test_erlang_fragments(void **state)
{
	unsigned long long frag, rooted;
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	bw_require_program("/usr/bin/erlc", "erlang-base");
	bw_run_node("+JPperf true", h_path("fragments.folded"), &r, &f,
		    H_ARGV("erl", "-noshell", "-pa", bw_compile_busy_erl(), "-eval",
			   "busy:sorts(" BEAM_MS "), halt()."));
	frag = h_sum(&f, in_fragment, NULL);
	rooted = h_sum(&f, fragment_rooted, NULL);
	print_message("%llu samples in $global:: fragments, %llu reach normal_exit\n", frag,
		      rooted);
	if (frag < 50 || rooted * 100 < frag * 90) {
		h_folded_dump(&f, 20);
		fail_msg("%llu of %llu samples in fragments reach normal_exit, expected 90%%",
			 rooted, frag);
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/* Starts Hot (compiled now) for 10 s with extra, a JVM option or NULL, and
 * gives the JIT time to compile hot(). */
static void start_hot(struct h_proc *p, const char *extra)
{
	struct h_result r;

	assert_int_equal(
		h_run(&r, 120, H_ARGV("javac", "-d", h_tmpdir(), "tests/workloads/Hot.java")), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	/* hot() stays a method of its own: inlined, its time would be main's */
	h_start_workload(p, H_ARGV("java", "-XX:CompileCommand=quiet",
				   "-XX:CompileCommand=dontinline,Hot::hot",
				   extra ? extra : "-Xshare:auto", "-cp", h_tmpdir(), "Hot", "10"));
	h_sleep(2);
}

static void sample_pid(pid_t pid, const char *out, struct h_result *r, struct h_folded *f)
{
	char spid[16];

	snprintf(spid, sizeof(spid), "%d", (int)pid);
	h_run_folded(r, 60, out, f,
		     H_ARGV(h_flamebpf(), "-F", "499", "-p", spid, "-d", "2", "--pids", "-o", out));
}

/* Hot started with extra (as start_hot) and sampled for 2 s; skips where
 * no JDK is installed. */
static void sample_hot(const char *extra, const char *out, struct h_result *r, struct h_folded *f)
{
	struct h_proc p;

	require_bpf();
	bw_require_program("/usr/bin/javac", "openjdk-17-jdk-headless");
	bw_require_program("/usr/bin/jcmd", "openjdk-17-jdk-headless");
	start_hot(&p, extra);
	sample_pid(p.pid, out, r, f);
	h_stop(&p);
	bw_remove_perf_maps(f, "java");
}

/* The share the summary's advice to add -XX:+PreserveFramePointer gives
 * ("java: N% of its samples in stacks that end in JIT-compiled code"),
 * or -1 if it gave none. */
static int frame_pointer_advice(const struct h_result *r)
{
	char line[1024];
	int pct = -1;

	if (h_find_line(r->err, "flamebpf: java: ", line, sizeof(line)) &&
	    strstr(line, "-XX:+PreserveFramePointer"))
		sscanf(line, "flamebpf: java: %d%%", &pct);
	if (pct >= 0)
		print_message("%s\n", line);
	return pct;
}

/* No perf map: flamebpf asks the JVM for one with jcmd and names hot().
 * Without -XX:+PreserveFramePointer nearly every sample of Hot.hot is
 * that one frame, its callers lost, which the summary says with the flag
 * that keeps them (it said nothing, and "100% named"). */
static void test_java_jcmd(void **state)
{
	const char *out = h_path("java.folded");
	unsigned long long hot, java;
	char line[1024];
	struct h_result r;
	struct h_folded f;

	(void)state;
	sample_hot(NULL, out, &r, &f);
	bw_runtimes_line(&r, line, sizeof(line));
	hot = h_sum(&f, bw_has_text, "Hot.hot");
	java = h_sum(&f, bw_of_comm, "java");
	print_message("%s\n%llu of %llu samples of the JVM in Hot.hot\n", line, hot, java);
	/* "interpreted methods named from memory, " may come between: a
	 * sample of the JVM's start-up may have caught one */
	if (!strstr(line, "java 1 process, ") || !strstr(line, "perf map (1 asked of the JVM") ||
	    hot * 100 < java * 60) {
		h_dump(&r, "flamebpf");
		h_folded_dump(&f, 20);
		fail_msg("the JVM's perf map was not asked for, or hot() is not named");
	}
	/* hot() is 60% and more of the samples, each a stack cut at it */
	if (frame_pointer_advice(&r) < 40) {
		h_dump(&r, "flamebpf");
		fail_msg("the summary does not say that stacks end in JIT code, or says too few");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

#define HOT_HOT	 "long Hot.hot(long, long)"
#define HOT_MAIN "void Hot.main(java.lang.String[])"

static bool hot_from_main(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, "Hot.hot") && h_has_frame(stack, HOT_MAIN) &&
	       h_has_frame(stack, "JavaMain");
}

/* With -XX:+PreserveFramePointer the JIT's frames keep the chain: stacks
 * go on from Hot.hot (compiled, named by the perf map) through Hot.main
 * (interpreted, named from the JVM's memory) to the launcher's JavaMain
 * (without it they stop at the first JIT frame), and the summary says
 * nothing of stacks ending in JIT code. */
static void test_java_frame_pointers(void **state)
{
	const char *out = h_path("java-fp.folded");
	unsigned long long hot, whole;
	struct h_result r;
	struct h_folded f;

	(void)state;
	sample_hot("-XX:+PreserveFramePointer", out, &r, &f);
	hot = h_sum(&f, bw_has_text, "Hot.hot");
	whole = h_sum(&f, hot_from_main, NULL);
	print_message("%llu samples in Hot.hot, %llu of them from JavaMain\n", hot, whole);
	if (hot < 200 || whole * 100 < hot * 90) {
		h_folded_dump(&f, 10);
		fail_msg("the JIT frames do not chain up to JavaMain");
	}
	if (frame_pointer_advice(&r) >= 0) {
		h_dump(&r, "flamebpf");
		fail_msg("the summary says to add -XX:+PreserveFramePointer, which is there");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/* Whether the innermost user frame of stack (the one under its kernel
 * frames) is frame. */
static bool user_leaf_is(const char *stack, const void *frame)
{
	const char *end = stack + strlen(stack), *start;

	for (;;) {
		start = end;
		while (start > stack && start[-1] != ';')
			start--;
		if (start == stack || !h_is_kernel_frame(start, (size_t)(end - start)))
			break;
		end = start - 1;
	}
	return start > stack && (size_t)(end - start) == strlen(frame) &&
	       !memcmp(start, frame, (size_t)(end - start));
}

/* Hot.hot, named as itself, innermost, right under Hot.main, from the
 * launcher's JavaMain through the call stub. */
static bool hot_named_under_main(const char *stack, const void *arg)
{
	const char *main = strstr(stack, ";" HOT_MAIN ";" HOT_HOT);

	(void)arg;
	return user_leaf_is(stack, HOT_HOT) && main && h_has_frame(stack, "JavaMain") &&
	       h_has_frame(stack, "StubRoutines (1)");
}

static bool has_interpreter_frame(const char *stack, const void *arg)
{
	(void)arg;
	return h_has_frame(stack, "Interpreter");
}

/* A JVM under -Xint, sampled as out says (its summary into r, its
 * profile f): Hot.hot and Hot.main named as the methods they are, in 90%
 * of its samples, and no word of methods left as Interpreter. A frame
 * sampled in a method's first instructions may be (its frame half made:
 * unwind.bpf.h), 2% of the samples at most. */
static void check_interpreted(struct h_result *r, struct h_folded *f)
{
	unsigned long long named, java, unnamed;
	char advice[1024];

	java = h_sum(f, bw_of_comm, "java");
	named = h_sum(f, hot_named_under_main, NULL);
	unnamed = h_sum(f, has_interpreter_frame, NULL);
	print_message("%llu of %llu samples of the JVM in " HOT_HOT " under " HOT_MAIN
		      ", %llu with an Interpreter frame\n",
		      named, java, unnamed);
	if (java < 200 || named * 100 < java * 90 || unnamed * 100 > java * 2) {
		h_dump(r, "flamebpf");
		h_folded_dump(f, 10);
		fail_msg("the interpreted methods are not named as themselves under JavaMain");
	}
	if (!strstr(bw_runtimes_line(r, advice, sizeof(advice)),
		    "java 1 process, interpreted methods named from memory, ")) {
		h_dump(r, "flamebpf");
		fail_msg("the runtimes line does not say the methods were named from memory");
	}
	if (h_find_line(r->err, "flamebpf: java: ", advice, sizeof(advice)) &&
	    strstr(advice, "interpreter")) {
		h_dump(r, "flamebpf");
		fail_msg("the summary says methods were left to the interpreter's name");
	}
}

/* -Xint: Hot.hot runs in HotSpot's template interpreter, one piece of code
 * for every method, whose perf map name is Interpreter; flamebpf reads the
 * method each of its frames runs (its Method*, 3 words under rbp) and
 * names it from the JVM's memory. Attached (-p) to a running JVM. */
static void test_java_interpreted(void **state)
{
	const char *out = h_path("java-xint.folded");
	struct h_result r;
	struct h_folded f;

	(void)state;
	sample_hot("-Xint", out, &r, &f);
	check_interpreted(&r, &f);
	h_folded_free(&f);
	h_result_free(&r);
}

/* The same under -- java: found once it has made its interpreter (after
 * the first look at it, at its exec), its methods named while it lives
 * (it exits before the end, and no perf map is asked of it). */
static void test_java_interpreted_command(void **state)
{
	const char *out = h_path("java-xint-cmd.folded");
	struct h_result r, jr;
	struct h_folded f;

	(void)state;
	require_bpf();
	bw_require_program("/usr/bin/javac", "openjdk-17-jdk-headless");
	assert_int_equal(
		h_run(&jr, 120, H_ARGV("javac", "-d", h_tmpdir(), "tests/workloads/Hot.java")), 0);
	h_result_free(&jr);
	/* 6 s: the JVM's start, in the samples too, is a fixed amount of CPU,
	 * and Hot's seconds are wall time (3 s beside other work had 88% of
	 * the samples in Hot.hot) */
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "499", "--pids", "-o", out, "--", "java", "-Xint",
			    "-cp", h_tmpdir(), "Hot", "6"));
	h_assert_status(&r, 0);
	check_interpreted(&r, &f);
	h_folded_free(&f);
	h_result_free(&r);
}

/* A JVM that takes no jcmd: the capture succeeds and says why it has no
 * names. */
static void test_java_jcmd_refused(void **state)
{
	const char *out = h_path("refused.folded");
	char advice[1024];
	struct h_result r;
	struct h_folded f;
	struct h_proc p;

	(void)state;
	require_bpf();
	bw_require_program("/usr/bin/javac", "openjdk-17-jdk-headless");
	start_hot(&p, "-XX:+DisableAttachMechanism");
	sample_pid(p.pid, out, &r, &f);
	h_stop(&p);
	if (!h_find_line(r.err, "flamebpf: java (pid ", advice, sizeof(advice)) ||
	    !strstr(advice, "no perf map")) {
		h_dump(&r, "flamebpf");
		fail_msg("the summary does not say why the JVM has no perf map");
	}
	print_message("%s\n", advice);
	h_folded_free(&f);
	h_result_free(&r);
}

/* Runs tests/workloads/hot.js for 3 s under -F 499 with --perf-basic-prof,
 * its hotLoop() compiled and its warmLoop() left to V8's interpreter, and
 * with --interpreted-frames-native-stack too when native_stack; user
 * stacks taken as --unwind unwind says. */
static void run_hot_js(bool native_stack, const char *unwind, const char *out, struct h_result *r,
		       struct h_folded *f)
{
	char v8log[256];

	/* node writes its log (isolate-*.log) in the working directory */
	snprintf(v8log, sizeof(v8log), "--logfile=%s", h_path("v8.log"));
	h_run_folded(r, 90, out, f,
		     H_ARGV(h_flamebpf(), "-F", "499", "--pids", "--unwind", unwind, "-o", out,
			    "--", "node", "--no-logfile-per-isolate", v8log, "--perf-basic-prof",
			    "--turbo-filter=hotLoop", "--sparkplug-filter=hotLoop",
			    native_stack ? "--interpreted-frames-native-stack"
					 : "--no-interpreted-frames-native-stack",
			    "tests/workloads/hot.js", "3"));
	bw_remove_perf_maps(f, "node");
}

/* The summary's advice to add --interpreted-frames-native-stack; NULL if
 * it gave none. */
static const char *node_advice(const struct h_result *r, char *buf, size_t len)
{
	const char *line = h_find_line(r->err, "flamebpf: node: ", buf, len);

	return line && strstr(line, "--interpreted-frames-native-stack") ? line : NULL;
}

/* node's perf map names compiled functions only: an interpreted one runs
 * in V8's one interpreter entry, so warmLoop() has no frame of its own and
 * the summary says which flag gives it one, and does not count its
 * samples as named (it said 100%); with that flag it is named
 * (JS:~warmLoop, ~ for interpreted), under main() named too. warmLoop()
 * is 30% of the work: the named share is 90% at most without the flag
 * (41% measured), 90% at least with it (99%). */
static void test_node_interpreted(void **state)
{
	const char *out = h_path("node.folded");
	unsigned long long node, warm, hot;
	struct h_result r;
	struct h_folded f;
	char advice[1024], line[1024];
	bool advised;
	int named;

	(void)state;
	require_bpf();
	bw_require_program("/usr/bin/node", "nodejs");
	for (int native_stack = 0; native_stack < 2; native_stack++) {
		run_hot_js(native_stack, "auto", out, &r, &f);
		advised = node_advice(&r, advice, sizeof(advice)) != NULL;
		node = h_sum(&f, bw_of_comm, "node");
		warm = h_sum(&f, bw_has_text, "JS:~warmLoop ");
		hot = h_sum(&f, bw_has_text, "JS:*hotLoop ");
		named = bw_named_share(bw_runtimes_line(&r, line, sizeof(line)));
		print_message("%s: %llu samples of node, %llu in warmLoop, %llu in hotLoop\n%s\n",
			      native_stack ? "--interpreted-frames-native-stack" : "without it",
			      node, warm, hot, line);
		if (advised)
			print_message("%s\n", advice);
		if (node < 300 || hot * 10 < node || (native_stack ? warm * 10 < node : warm) ||
		    advised == (bool)native_stack || (native_stack ? named < 90 : named > 90)) {
			h_dump(&r, "flamebpf");
			h_folded_dump(&f, 10);
			fail_msg("interpreted functions named %s, or the advice %s, or %d%% "
				 "named",
				 native_stack ? "not with the flag" : "without it",
				 native_stack ? "given" : "missing", named);
		}
		h_folded_free(&f);
		h_result_free(&r);
	}
}

/* A node stack with a frame of JIT code left unnamed: [unknown], or named
 * after the kernel's record of its anonymous mapping ("//anon"). */
static bool unnamed_node(const char *stack, const void *arg)
{
	(void)arg;
	return bw_of_comm(stack, "node") &&
	       (strstr(stack, ";[unknown]") || strstr(stack, ";anon+0x"));
}

/* Frame pointers alone (--unwind fp) name JIT code from the perf map too,
 * and the summary's named share is the output's: JIT code mapped after
 * the process's maps were read was named "anon+0x..." from the kernel's
 * record of the mapping, where the summary said 96% named. */
static void test_node_unwind_fp(void **state)
{
	const char *out = h_path("node_fp.folded");
	unsigned long long node, hot, unnamed;
	int said, shown;
	struct h_result r;
	struct h_folded f;
	char line[1024];

	(void)state;
	require_bpf();
	bw_require_program("/usr/bin/node", "nodejs");
	run_hot_js(true, "fp", out, &r, &f);
	bw_runtimes_line(&r, line, sizeof(line));
	node = h_sum(&f, bw_of_comm, "node");
	hot = h_sum(&f, bw_has_text, "JS:*hotLoop ");
	unnamed = h_sum(&f, unnamed_node, NULL);
	said = bw_named_share(line);
	shown = node ? (int)((node - unnamed) * 100 / node) : -1;
	print_message("%s\n%llu samples of node, %llu in hotLoop, %d%% named in the output\n", line,
		      node, hot, shown);
	if (node < 300 || hot * 10 < node || said < shown - 3 || said > shown + 3) {
		h_dump(&r, "flamebpf");
		h_folded_dump(&f, 10);
		fail_msg("hotLoop not named with --unwind fp, or the summary's share (%d%%) is "
			 "not the output's (%d%%)",
			 said, shown);
	}
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_erlang_jpperf, h_test_teardown),
		cmocka_unit_test_teardown(test_erlang_fragments, h_test_teardown),
		cmocka_unit_test_teardown(test_elixir_jpperf, h_test_teardown),
		cmocka_unit_test_teardown(test_java_jcmd, h_test_teardown),
		cmocka_unit_test_teardown(test_java_frame_pointers, h_test_teardown),
		cmocka_unit_test_teardown(test_java_jcmd_refused, h_test_teardown),
		cmocka_unit_test_teardown(test_java_interpreted, h_test_teardown),
		cmocka_unit_test_teardown(test_java_interpreted_command, h_test_teardown),
		cmocka_unit_test_teardown(test_node_interpreted, h_test_teardown),
		cmocka_unit_test_teardown(test_node_unwind_fp, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("runtimes", tests, h_group_setup, h_group_teardown);
}
