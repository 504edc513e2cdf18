// SPDX-License-Identifier: GPL-2.0
/*
 * Python frames in CPU samples of Debian's python3.11, unmodified:
 * tests/workloads/py_busy.py spends known shares of its CPU in parse,
 * compute (through the recursive fib) and encode (in zlib), measured by
 * itself. Attached with -p and started as COMMAND, its samples must carry
 * Python frames ("compute (FILE:LINE)") in place of the evaluation loop's,
 * nested as the program called them, with zlib's native frames under
 * encode, in shares within 10% of the truth. And each thread of
 * tests/workloads/py_threads.py under its own function, and time off the
 * CPU (--off-cpu) under the function that slept. Likewise each worker of
 * a thread pool (concurrent.futures); and asyncio's coroutines
 * (tests/workloads/py_async.py) nested as Python shows them, in shares
 * within 10% of the truth. And a thread's frames in a sub-interpreter
 * (tests/workloads/py_subinterp.py) above its main interpreter's.
 * FLAMEBPF_NO_PYTHON=1 leaves the frames unwalked.
 */
#include "py_workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PYTHON "/usr/bin/python3.11"

static void require_python(void)
{
	if (access(PYTHON, X_OK)) {
		print_message("SKIP: Debian's python3.11 is not installed\n");
		skip();
	}
}

/* python3.11 PROG ARGS, attached 1 s in (-F 499 -p) for 4 s: the profile
 * into r and f, the program's own output into wr (its status 0). */
static void run_attached(struct h_result *r, struct h_result *wr, struct h_folded *f,
			 const char *out, const char *prog, const char *secs)
{
	struct h_proc work;
	char pid[32];

	require_bpf();
	require_python();
	h_start_workload(&work, H_ARGV(PYTHON, prog, secs));
	h_sleep(1);
	snprintf(pid, sizeof(pid), "%d", (int)work.pid);
	h_run_folded(r, 30, out, f,
		     H_ARGV(h_flamebpf(), "-F", "499", "-p", pid, "-d", "4", "-o", out));
	h_finish(&work, 30, wr);
	assert_int_equal(wr->status, 0);
}

/* flamebpf FLAGS -o OUT -- python3.11 PROG ARGS: into r and f. */
static void run_command(struct h_result *r, struct h_folded *f, const char *out,
			const char *const flags[], const char *const prog[])
{
	const char *argv[32] = { h_flamebpf() };
	size_t n = 1;

	require_bpf();
	require_python();
	for (size_t i = 0; flags[i] && n < 20; i++)
		argv[n++] = flags[i];
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = "--";
	argv[n++] = PYTHON;
	for (size_t i = 0; prog[i] && n < 31; i++)
		argv[n++] = prog[i];
	h_run_folded(r, 30, out, f, argv);
}

static void test_attached(void **state)
{
	const char *out = h_path("py_attached.folded");
	struct h_result r;
	struct h_folded f;
	struct pw_truth t;

	(void)state;
	require_bpf();
	require_python();
	pw_run_attached(PYTHON, out, &r, &f, &t);
	pw_check_profile(&f, &r, &t, "python3.11");
	h_folded_free(&f);
	h_result_free(&r);
}

static void test_command(void **state)
{
	const char *out = h_path("py_command.folded");
	struct h_result r;
	struct h_folded f;
	struct pw_truth t;

	(void)state;
	require_bpf();
	require_python();
	/* Twice in CI one function had no frame of its name (0.0%, with all
	 * samples carrying Python frames), never in 11 runs by hand: taken for
	 * a code object freed in start-up and its address reused by that
	 * function's, which kept the old name (now checked as records come).
	 * A miss is shown whole and run once more; a second one fails. */
	pw_run_command(PYTHON, "4", out, &r, &f, &t);
	pw_check_profile(&f, &r, &t, "python3.11");
	h_folded_free(&f);
	h_result_free(&r);
}

/* Each thread's samples carry its own function: the walk finds the
 * sampled thread's state among the interpreter's by native thread id. */
static void test_threads(void **state)
{
	(void)state;
	require_bpf();
	require_python();
	pw_check_threads(PYTHON, "threads");
}

static void test_thread_pool(void **state)
{
	(void)state;
	require_bpf();
	require_python();
	pw_check_threads(PYTHON, "pool");
}

/* The Python frame nearest above frame AT of stack (native frames
 * skipped) starts with prefix. */
static bool py_parent_is(const char *stack, size_t at, const char *prefix)
{
	char frame[512];

	while (at > 1 && pw_frame_at(stack, --at, frame, sizeof(frame)))
		if (pw_is_py_frame(frame))
			return !strncmp(frame, prefix, strlen(prefix));
	return false;
}

/* inner's Python caller is outer: the awaited coroutine under the one
 * awaiting it. */
static bool inner_under_outer(const char *stack, const void *arg)
{
	size_t at = pw_find_frame(stack, "inner (");

	(void)arg;
	return at && py_parent_is(stack, at, "outer (");
}

/* The task's coroutine (arg) right under the event loop's callback,
 * under the loop's _run_once. */
static bool task_under_loop(const char *stack, const void *arg)
{
	size_t at = pw_find_frame(stack, arg);

	return at && py_parent_is(stack, at, "Handle._run (") &&
	       pw_find_frame(stack, "BaseEventLoop._run_once (") > 0;
}

/* "py_async: crunch S outer S inner S total S" in the workload's output;
 * outer's time is its own, without inner's. */
static void must_async_truth(const char *out, double t[4])
{
	char line[256];

	if (!h_find_line(out, "py_async: ", line, sizeof(line)) ||
	    sscanf(line, "py_async: crunch %lf outer %lf inner %lf total %lf", &t[0], &t[1], &t[2],
		   &t[3]) != 4 ||
	    t[3] <= 0)
		fail_msg("py_async printed no CPU times: '%s'", out);
}

/* asyncio: two tasks gathered, one awaiting a nested coroutine. Their
 * coroutines' frames as Python shows them: each task's under the event
 * loop's frames (Handle._run), inner under outer, in their shares. */
static void test_asyncio(void **state)
{
	const char *out = h_path("py_async.folded");
	unsigned long long all, py, crunch, outer, inner;
	struct h_result r, wr;
	struct h_folded f;
	double t[4];
	bool ok;

	(void)state;
	run_attached(&r, &wr, &f, out, "tests/workloads/py_async.py", "6");
	must_async_truth(wr.out, t);
	all = f.total;
	py = h_sum(&f, pw_has_py_frame, NULL);
	crunch = h_sum(&f, pw_under_func, "crunch (");
	outer = h_sum(&f, pw_under_func, "outer (");
	inner = h_sum(&f, pw_under_func, "inner (");
	print_message("%llu samples, %.1f%% with Python frames\n", all, pw_pct(py, all));
	ok = pw_share_ok("crunch", crunch, all, 100 * t[0] / t[3]) &
	     pw_share_ok("outer", outer, all, 100 * (t[1] + t[2]) / t[3]) &
	     pw_share_ok("inner", inner, all, 100 * t[2] / t[3]);
	print_message("  inner under outer %.1f%% of inner; under the loop: crunch %.1f%%, "
		      "outer %.1f%%\n",
		      pw_pct(h_sum(&f, inner_under_outer, NULL), inner),
		      pw_pct(h_sum(&f, task_under_loop, "crunch ("), crunch),
		      pw_pct(h_sum(&f, task_under_loop, "outer ("), outer));
	if (all < 300 || py * 100 < all * 95 || !ok ||
	    h_sum(&f, inner_under_outer, NULL) * 100 < inner * 95 ||
	    h_sum(&f, task_under_loop, "crunch (") * 100 < crunch * 95 ||
	    h_sum(&f, task_under_loop, "outer (") * 100 < outer * 95) {
		h_dump(&r, "flamebpf");
		h_folded_dump(&f, 25);
		fail_msg("the coroutines are not named, nested or in their shares");
	}
	h_folded_free(&f);
	h_result_free(&r);
	h_result_free(&wr);
}

/* sub_spin in the sub-interpreter's code, under its <module>, under the
 * thread's in_sub that ran it. */
static bool sub_nested(const char *stack, const void *arg)
{
	size_t at = pw_find_frame(stack, "sub_spin (<string>:");
	size_t mod = pw_find_frame(stack, "<module> (<string>:");

	(void)arg;
	return at && mod && py_parent_is(stack, at, "<module> (<string>:") &&
	       py_parent_is(stack, mod, "in_sub (");
}

/* The stack is the thread's (arg: "/TID;") and has sub_spin. */
static bool sub_thread(const char *stack, const void *arg)
{
	return strstr(stack, arg) && pw_find_frame(stack, "sub_spin (");
}

static bool of_thread(const char *stack, const void *arg)
{
	return strstr(stack, arg) != NULL;
}

/* A sub-interpreter made and run by a thread (_xxsubinterpreters): the
 * walk finds the thread's states in every interpreter, and its frames in
 * the sub-interpreter lie above those of the main one that called in. */
static void test_subinterpreter(void **state)
{
	const char *out = h_path("py_subinterp.folded");
	unsigned long long all, busy, nested;
	char line[64], tid[32];
	struct h_result r;
	struct h_folded f;

	(void)state;
	run_command(&r, &f, out, H_ARGV("-F", "499", "--tids"),
		    H_ARGV("tests/workloads/py_subinterp.py", "3"));
	if (!h_find_line(r.out, "sub ", line, sizeof(line)))
		fail_msg("py_subinterp printed no thread id: '%s'", r.out);
	snprintf(tid, sizeof(tid), "/%ld;", strtol(line + 4, NULL, 10));
	all = h_sum(&f, of_thread, tid);
	busy = h_sum(&f, sub_thread, tid);
	nested = h_sum(&f, sub_nested, NULL);
	print_message("%llu samples of the thread, %.1f%% in sub_spin, %.1f%% of those under "
		      "<module> under in_sub\n",
		      all, pw_pct(busy, all), pw_pct(nested, busy));
	/* a sample may fall while the thread switches interpreters (CI's ASan
	 * pass once saw 1 of 1523 not nested) */
	if (all < 300 || busy * 100 < all * 90 || nested * 1000 < busy * 995) {
		h_dump(&r, "flamebpf");
		h_folded_dump(&f, 20);
		fail_msg("the sub-interpreter's frames are not named or not nested");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/* The stack is the thread's (arg: "/TID;") and has after_sub under in_sub. */
static bool after_thread(const char *stack, const void *arg)
{
	size_t at = pw_find_frame(stack, "after_sub (");

	return strstr(stack, arg) && at && py_parent_is(stack, at, "in_sub (");
}

/* The thread goes on in the main interpreter once the sub-interpreter it
 * made is destroyed: its states are looked up again (the list's head
 * kept may be the ended interpreter's), and its frames there are named
 * as before (1.5 s of sub_spin, then 1.5 s of after_sub). */
static void test_subinterpreter_ended(void **state)
{
	const char *out = h_path("py_subinterp_after.folded");
	unsigned long long all, after;
	char line[64], tid[32];
	struct h_result r;
	struct h_folded f;

	(void)state;
	run_command(&r, &f, out, H_ARGV("-F", "499", "--tids"),
		    H_ARGV("tests/workloads/py_subinterp.py", "1.5", "1.5"));
	if (!h_find_line(r.out, "sub ", line, sizeof(line)))
		fail_msg("py_subinterp printed no thread id: '%s'", r.out);
	snprintf(tid, sizeof(tid), "/%ld;", strtol(line + 4, NULL, 10));
	all = h_sum(&f, of_thread, tid);
	after = h_sum(&f, after_thread, tid);
	print_message("%llu samples of the thread, %.1f%% in after_sub under in_sub\n", all,
		      pw_pct(after, all));
	/* about half, a second and a half of three */
	if (all < 300 || after * 100 < all * 35) {
		h_dump(&r, "flamebpf");
		h_folded_dump(&f, 20);
		fail_msg("the thread's frames after its sub-interpreter ended are not named");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/* --off-cpu: time blocked carries the Python frames where it blocked. */
/* Time asleep ("[sleeping]" at the leaf) under nap (arg "nap (") or not
 * (NULL): a loaded machine adds run-queue time ("[preempted]") to work's
 * share, which says nothing of where sleeps are. */
static bool asleep(const char *stack, const void *under)
{
	const char *leaf = strrchr(stack, ';');

	return leaf && !strcmp(leaf, ";[sleeping]") && (!under || pw_under_func(stack, under));
}

static void test_offcpu(void **state)
{
	const char *out = h_path("py_nap.folded");
	unsigned long long nap, slept;
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	require_python();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--off-cpu", "-o", out, "--", PYTHON,
			    "tests/workloads/py_nap.py", "2"));
	nap = h_sum(&f, asleep, "nap (");
	slept = h_sum(&f, asleep, NULL);
	print_message("%.1f%% of %.2f s asleep under nap (%.2f s off the CPU in all)\n",
		      pw_pct(nap, slept), slept / 1e9, f.total / 1e9);
	/* nap sleeps about 1.3 s of the 2: the rest is startup and exit */
	if (slept < 5e8 || nap * 100 < slept * 80) {
		h_folded_dump(&f, 20);
		fail_msg("blocked time is not under nap");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/* A frame of the evaluation loop, run by the script, and no Python frame:
 * a sample whose Python record never came. (The interpreter's start,
 * before the script, may have no Python frames found yet, and its imports
 * leave an evaluation frame among Python ones now and then.) */
static bool has_eval_frame(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, ";_PyEval_EvalFrameDefault") && strstr(stack, ";Py_RunMain;") &&
	       !strstr(stack, ".py:") && !strstr(stack, "<frozen");
}

/* A frame of spurt's, or a sample whose Python record never came. */
static bool in_spurt(const char *stack, const void *arg)
{
	return strstr(stack, "spurt (") || has_eval_frame(stack, arg);
}

/* Python records are kept by the CPU that made them and sent together:
 * the last ones of a spurt of CPU, which no sample follows for a while,
 * must come all the same (user space asks each CPU for them), else the
 * samples that took them fall back to the evaluation loop's frames. A
 * spurt shorter than the 20 ms a record may be kept sends none of its
 * own; with none asked for, a spurt's came with the next spurt, and the
 * last spurt's never: 4-6 samples of 93-101 in three runs of a build that
 * never asked, none in three of this one. The spurts begin after the
 * process's first second, in which records are sent at once. */
static void test_kept_records_come(void **state)
{
	const char *out = h_path("py_spurts.folded");
	unsigned long long all, eval;
	struct h_result r;
	struct h_folded f;

	(void)state;
	run_command(&r, &f, out, H_ARGV("-F", "999"),
		    H_ARGV("tests/workloads/py_spurts.py", "6", "0.015", "0.3", "1.2"));
	all = h_sum(&f, in_spurt, NULL);
	eval = h_sum(&f, has_eval_frame, NULL);
	print_message("%llu samples in spurt, %llu of them (%.1f%%) without Python frames\n", all,
		      eval, pw_pct(eval, all));
	/* 6 spurts of 15 ms at 999 Hz; a sample taken as a frame is made may
	 * show the evaluation loop */
	if (all < 50 || eval > 1 + all / 100) {
		h_dump(&r, "flamebpf");
		h_folded_dump(&f, 20);
		fail_msg("Python records kept by the kernel side did not come");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

static int walk_off_teardown(void **state)
{
	unsetenv("FLAMEBPF_NO_PYTHON");
	return h_test_teardown(state);
}

/* FLAMEBPF_NO_PYTHON=1 (tools/bench_python.sh's native-only baseline):
 * the process is found, its frames are not walked, its samples keep the
 * evaluation loop's native frames, and the summary says why. */
static void test_walk_off(void **state)
{
	const char *out = h_path("py_off.folded");
	unsigned long long py, eval;
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	require_python();
	setenv("FLAMEBPF_NO_PYTHON", "1", 1);
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "499", "-o", out, "--", PYTHON, PY_BUSY, "2"));
	py = h_sum(&f, pw_has_py_frame, NULL);
	eval = h_sum(&f, has_eval_frame, NULL);
	print_message("%llu samples, %llu with Python frames, %.1f%% in the evaluation loop\n",
		      f.total, py, pw_pct(eval, f.total));
	if (f.total < 100 || py || eval * 100 < f.total * 80) {
		h_dump(&r, "flamebpf");
		h_folded_dump(&f, 20);
		fail_msg("Python frames walked, or the evaluation loop's frames missing");
	}
	if (!h_has_line(r.err, "flamebpf: python: 1 process (python3.11), frames not walked: "
			       "FLAMEBPF_NO_PYTHON=1")) {
		h_dump(&r, "flamebpf");
		fail_msg("the summary does not say the frames were not walked");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_attached, h_test_teardown),
		cmocka_unit_test_teardown(test_command, h_test_teardown),
		cmocka_unit_test_teardown(test_threads, h_test_teardown),
		cmocka_unit_test_teardown(test_thread_pool, h_test_teardown),
		cmocka_unit_test_teardown(test_offcpu, h_test_teardown),
		cmocka_unit_test_teardown(test_asyncio, h_test_teardown),
		cmocka_unit_test_teardown(test_subinterpreter, h_test_teardown),
		cmocka_unit_test_teardown(test_subinterpreter_ended, h_test_teardown),
		cmocka_unit_test_teardown(test_kept_records_come, h_test_teardown),
		cmocka_unit_test_teardown(test_walk_off, walk_off_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("python", tests, h_group_setup, h_group_teardown);
}
