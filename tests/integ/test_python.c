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
 * CPU (--off-cpu) under the function that slept. FLAMEBPF_NO_PYTHON=1
 * leaves the frames unwalked.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PYTHON	 "/usr/bin/python3.11"
#define WORKLOAD "tests/workloads/py_busy.py"

struct truth {
	double parse, compute, encode, total;
};

static void require_python(void)
{
	if (access(PYTHON, X_OK)) {
		print_message("SKIP: Debian's python3.11 is not installed\n");
		skip();
	}
}

/* "py_busy: parse S compute S encode S total S" in the workload's output. */
static struct truth must_truth(const char *out)
{
	struct truth t;
	char line[256];

	if (!h_find_line(out, "py_busy: ", line, sizeof(line)) ||
	    sscanf(line, "py_busy: parse %lf compute %lf encode %lf total %lf", &t.parse,
		   &t.compute, &t.encode, &t.total) != 4 ||
	    t.total <= 0)
		fail_msg("py_busy printed no CPU times: '%s'", out);
	return t;
}

/* The i-th frame of stack (the root is 0) into buf; false past the leaf. */
static bool frame_at(const char *stack, size_t i, char *buf, size_t len)
{
	const char *p = stack, *end;

	for (; i && p; i--) {
		p = strchr(p, ';');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return false;
	end = strchr(p, ';');
	snprintf(buf, len, "%.*s", (int)(end ? (size_t)(end - p) : strlen(p)), p);
	return true;
}

/* "NAME (FILE:LINE)": a Python frame. */
static bool is_py_frame(const char *frame)
{
	const char *open = strstr(frame, " ("), *colon = strrchr(frame, ':');
	size_t len = strlen(frame), digits;

	if (!open || !colon || colon < open || !len || frame[len - 1] != ')')
		return false;
	digits = (size_t)(frame + len - 1 - (colon + 1));
	return digits && strspn(colon + 1, "0123456789") == digits;
}

static bool has_py_frame(const char *stack, const void *arg)
{
	char frame[512];

	(void)arg;
	for (size_t i = 1; frame_at(stack, i, frame, sizeof(frame)); i++)
		if (is_py_frame(frame))
			return true;
	return false;
}

/* The index of the first frame starting with prefix, or 0 (the root). */
static size_t find_frame(const char *stack, const char *prefix)
{
	char frame[512];

	for (size_t i = 1; frame_at(stack, i, frame, sizeof(frame)); i++)
		if (!strncmp(frame, prefix, strlen(prefix)))
			return i;
	return 0;
}

static bool under_func(const char *stack, const void *name)
{
	return find_frame(stack, name) > 0;
}

/* compute right under main, as the program calls it. */
static bool compute_under_main(const char *stack, const void *arg)
{
	size_t at = find_frame(stack, "compute (");
	char frame[512];

	(void)arg;
	return at > 1 && frame_at(stack, at - 1, frame, sizeof(frame)) &&
	       !strncmp(frame, "main (", 6);
}

/* fib under fib under compute: the recursion kept. */
static bool fib_nested(const char *stack, const void *arg)
{
	size_t at = find_frame(stack, "compute (");
	char a[512], b[512];

	(void)arg;
	return at && frame_at(stack, at + 1, a, sizeof(a)) &&
	       frame_at(stack, at + 2, b, sizeof(b)) && !strncmp(a, "fib (", 5) &&
	       !strncmp(b, "fib (", 5);
}

/* A native frame of zlib's (libz) somewhere under encode. */
static bool zlib_under_encode(const char *stack, const void *arg)
{
	size_t at = find_frame(stack, "encode (");
	char frame[512];

	(void)arg;
	for (size_t i = at + 1; at && frame_at(stack, i, frame, sizeof(frame)); i++)
		if (!strncmp(frame, "deflate", 7) || !strcmp(frame, "longest_match") ||
		    !strcmp(frame, "fill_window") || strstr(frame, "libz.so"))
			return true;
	return false;
}

static double pct(unsigned long long part, unsigned long long all)
{
	return all ? 100.0 * part / all : 0;
}

/* Within 10% of the truth (2 points for small shares: 200 samples of
 * encode vary by about 0.7). */
static bool share_ok(const char *name, double got, double want)
{
	double tol = want / 10 > 2 ? want / 10 : 2;

	print_message("  %-8s %5.1f%% of the samples, truth %5.1f%%\n", name, got, want);
	if (got >= want - tol && got <= want + tol)
		return true;
	print_message("%s: %.1f%% of the samples, not within %.1f points of %.1f%%\n", name, got,
		      tol, want);
	return false;
}

/* parse's, compute's and encode's shares within 10% of the truth. */
static bool shares_ok(const struct h_folded *f, const struct truth *t)
{
	unsigned long long all = f->total;

	return share_ok("parse", pct(h_sum(f, under_func, "parse ("), all),
			100 * t->parse / t->total) &
	       share_ok("compute", pct(h_sum(f, under_func, "compute ("), all),
			100 * t->compute / t->total) &
	       share_ok("encode", pct(h_sum(f, under_func, "encode ("), all),
			100 * t->encode / t->total);
}

static void check_profile(const struct h_folded *f, const struct h_result *r, const struct truth *t)
{
	unsigned long long all = f->total, py = h_sum(f, has_py_frame, NULL);
	unsigned long long compute = h_sum(f, under_func, "compute (");
	unsigned long long encode = h_sum(f, under_func, "encode (");

	print_message("%llu samples, %.1f%% with Python frames\n", all, pct(py, all));
	if (all < 300 || py * 100 < all * 95) {
		h_dump(r, "flamebpf");
		h_folded_dump(f, 30);
		fail_msg("%.1f%% of %llu samples carry Python frames, not 95%%", pct(py, all), all);
	}
	/* all three, then what the profile holds, so that a miss can be read */
	if (!shares_ok(f, t)) {
		h_dump(r, "flamebpf");
		h_folded_dump(f, 25);
		fail_msg("a function's share is not within 10%% of the truth");
	}
	print_message("  compute under main %.1f%%, fib in fib %.1f%% of compute, zlib under "
		      "encode %.1f%% of encode\n",
		      pct(h_sum(f, compute_under_main, NULL), compute),
		      pct(h_sum(f, fib_nested, NULL), compute),
		      pct(h_sum(f, zlib_under_encode, NULL), encode));
	if (h_sum(f, compute_under_main, NULL) * 100 < compute * 95)
		fail_msg("compute is not under main");
	if (h_sum(f, fib_nested, NULL) * 100 < compute * 80)
		fail_msg("fib's recursion is not nested under compute");
	if (h_sum(f, zlib_under_encode, NULL) * 100 < encode * 50)
		fail_msg("zlib's frames are not under encode");
	if (!h_find_line(r->err, "flamebpf: python: 1 process (python3.11)", (char[256]){ 0 }, 256))
		fail_msg("no 'python:' line in the summary");
}

static void test_attached(void **state)
{
	const char *out = h_path("py_attached.folded");
	struct h_proc work;
	struct h_result r, wr;
	struct h_folded f;
	struct truth t;
	char pid[32];

	(void)state;
	require_bpf();
	require_python();
	h_start_workload(&work, H_ARGV(PYTHON, WORKLOAD, "7"));
	h_sleep(1);
	snprintf(pid, sizeof(pid), "%d", (int)work.pid);
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "499", "-p", pid, "-d", "4", "-o", out));
	h_finish(&work, 30, &wr);
	assert_int_equal(wr.status, 0);
	t = must_truth(wr.out);
	check_profile(&f, &r, &t);
	h_folded_free(&f);
	h_result_free(&r);
	h_result_free(&wr);
}

static void test_command(void **state)
{
	const char *out = h_path("py_command.folded");
	struct h_result r;
	struct h_folded f;
	struct truth t;

	(void)state;
	require_bpf();
	require_python();
	/* Twice in CI one function had no frame of its name (0.0%, with all
	 * samples carrying Python frames), never in 11 runs by hand: taken for
	 * a code object freed in start-up and its address reused by that
	 * function's, which kept the old name (now checked as records come).
	 * A miss is shown whole and run once more; a second one fails. */
	for (int run = 0;; run++) {
		h_run_folded(&r, 30, out, &f,
			     H_ARGV(h_flamebpf(), "-F", "499", "-o", out, "--", PYTHON, WORKLOAD,
				    "4"));
		t = must_truth(r.out);
		if (run || shares_ok(&f, &t))
			break;
		h_dump(&r, "flamebpf (a miss, run again)");
		h_folded_dump(&f, 25);
		h_folded_free(&f);
		h_result_free(&r);
	}
	check_profile(&f, &r, &t);
	h_folded_free(&f);
	h_result_free(&r);
}

/* Each thread's samples carry its own function: the walk finds the
 * sampled thread's state among the interpreter's by native thread id. */
static void test_threads(void **state)
{
	const char *out = h_path("py_threads.folded");
	unsigned long long own = 0, all = 0;
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	require_python();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "499", "--tids", "-o", out, "--", PYTHON,
			    "tests/workloads/py_threads.py", "2"));
	for (size_t i = 0; i < f.n; i++) {
		const char *stack = f.lines[i].stack, *slash = strchr(stack, '/');
		char want[64], line[64];
		long tid = slash ? strtol(slash + 1, NULL, 10) : 0;
		const char *at = strstr(r.out, "thread ");

		/* the threads' own lines: "thread TID spin_K" */
		for (; at; at = strstr(at + 1, "thread ")) {
			if (sscanf(at, "thread %*d %63s", want) == 1 &&
			    snprintf(line, sizeof(line), "thread %ld %s", tid, want) > 0 &&
			    !strncmp(at, line, strlen(line)))
				break;
		}
		if (!at || !find_frame(stack, "spin ("))
			continue; /* the main thread, or outside the loop */
		all += f.lines[i].count;
		strcat(want, " (");
		if (find_frame(stack, want))
			own += f.lines[i].count;
		else
			print_message("not its own function (%s): %s\n", want, stack);
	}
	print_message("%llu samples of the threads in spin, %.1f%% under their own function\n", all,
		      pct(own, all));
	if (all < 300 || own != all) {
		h_dump(&r, "flamebpf");
		fail_msg("threads' samples under another thread's function");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/* --off-cpu: time blocked carries the Python frames where it blocked. */
static void test_offcpu(void **state)
{
	const char *out = h_path("py_nap.folded");
	unsigned long long nap;
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	require_python();
	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "--off-cpu", "-o", out, "--", PYTHON,
			    "tests/workloads/py_nap.py", "2"));
	nap = h_sum(&f, under_func, "nap (");
	print_message("%.1f%% of %.2f s off the CPU under nap\n", pct(nap, f.total), f.total / 1e9);
	/* nap sleeps about 1.3 s of the 2: the rest is startup and exit */
	if (nap * 100 < f.total * 80) {
		h_folded_dump(&f, 20);
		fail_msg("blocked time is not under nap");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/* A frame of the evaluation loop: what Python frames replace. */
static bool has_eval_frame(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, ";_PyEval_EvalFrameDefault") != NULL;
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
		     H_ARGV(h_flamebpf(), "-F", "499", "-o", out, "--", PYTHON, WORKLOAD, "2"));
	py = h_sum(&f, has_py_frame, NULL);
	eval = h_sum(&f, has_eval_frame, NULL);
	print_message("%llu samples, %llu with Python frames, %.1f%% in the evaluation loop\n",
		      f.total, py, pct(eval, f.total));
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
		cmocka_unit_test_teardown(test_offcpu, h_test_teardown),
		cmocka_unit_test_teardown(test_walk_off, walk_off_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("python", tests, h_group_setup, h_group_teardown);
}
