// SPDX-License-Identifier: GPL-2.0
/*
 * Uprobe mode (-f) with a COMMAND: nesting and self/inclusive wall times of
 * known calls, exact call counts (own functions, libc's malloc, threads),
 * recursion, calls whose return never comes (past the kernel's uretprobe
 * depth, longjmp, thread and process exit), C++ exceptions thrown through
 * traced frames and the unwinder, and the command's children.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000.0 /* ns */

/* F has exactly the stacks of the NULL-terminated WANT, in any order. */
static void expect_stacks(const struct h_folded *f, const char *const want[])
{
	size_t n = 0;

	for (; want[n]; n++) {
		if (h_count_of(f, want[n]))
			continue;
		h_folded_dump(f, 40);
		fail_msg("no line '%s COUNT'", want[n]);
	}
	if (f->n != n) {
		h_folded_dump(f, 40);
		fail_msg("%zu lines, expected exactly %zu", f->n, n);
	}
}

/* |got - want| <= tol * want, with a message naming WHAT. */
static void expect_near(const char *what, double got, double want, double tol)
{
	print_message("%s: %.2f ms, expected %.2f ms (+-%.0f%%)\n", what, got / MS, want / MS,
		      tol * 100);
	if (got < want * (1 - tol) || got > want * (1 + tol))
		fail_msg("%s is %.2f ms, expected %.2f ms within %.0f%%", what, got / MS, want / MS,
			 tol * 100);
}

/*
 * At least WANT (what the busy loops were asked for, -5%: wall time cannot
 * be shorter), at most the run's wall time ELAPSED: preemption makes busy
 * loops of a fraction of a millisecond longer, by several milliseconds.
 */
static void expect_busy(const char *what, double got, double want, double elapsed)
{
	print_message("%s: %.2f ms, expected %.2f ms or more\n", what, got / MS, want / MS);
	if (got < want * 0.95 || got > elapsed * 1e9)
		fail_msg("%s is %.2f ms, expected %.2f ms (or more, if preempted) up to %.2f ms",
			 what, got / MS, want / MS, elapsed * 1e3);
}

/* The summary reports between MIN and MAX calls without a return; WHY says why. */
static void expect_unfinished(const struct h_result *r, long long min, long long max,
			      const char *why)
{
	long long n = h_unfinished(r->err);

	print_message("calls without a return: %lld, expected %lld to %lld\n", n, min, max);
	if (n < min || n > max) {
		h_dump(r, "flamebpf");
		fail_msg("%lld calls without a return reported, expected %s", n, why);
	}
}

static bool says(const char *text, const char *what)
{
	return strstr(text, what) != NULL;
}

/*
 * The wall times `tracee nest` measured around its calls of outer and inner
 * (ns), from its output OUT; each at least what the busy loops were asked
 * for (more when the machine preempted them).
 */
static void nest_measured(const char *out, double want_outer, double want_inner, double *outer,
			  double *inner)
{
	long long o, i;

	h_nest_times(out, &o, &i);
	print_message("measured by tracee: outer %.2f ms, inner %.2f ms (asked for %.2f, %.2f)\n",
		      o / MS, i / MS, want_outer / MS, want_inner / MS);
	assert_true(o >= want_outer && i >= want_inner);
	*outer = o;
	*inner = i;
}

/* Whether the first lines of A and B are the same. */
static bool same_first_line(const char *a, const char *b)
{
	size_t n = strcspn(a, "\n");

	return n == strcspn(b, "\n") && !strncmp(a, b, n);
}

/* outer does X ms itself and calls inner for Y ms, K times. */
static void test_nesting_and_times(void **state)
{
	const char *out = h_path("nest.folded");
	const double x = 4, y = 6, k = 50;
	double outer, inner;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "^(outer|inner)$", "-o", out, "--",
			    h_workload("tracee"), "nest", "4", "6", "50"));
	h_expect_calls(&r, 2 * k);
	expect_stacks(&f, H_ARGV("tracee;outer", "tracee;outer;inner"));
	/* k * x and k * y ms, unless preempted; self times: a mix-up with
	 * inclusive times is off by far more */
	nest_measured(r.out, k * (x + y) * MS, k * y * MS, &outer, &inner);
	expect_near("outer self", h_count_of(&f, "tracee;outer"), outer - inner, 0.10);
	expect_near("inner self", h_count_of(&f, "tracee;outer;inner"), inner, 0.10);
	expect_near("outer inclusive", h_sum_frame(&f, "outer"), outer, 0.10);
	assert_true(f.total <= r.elapsed * 1e9);
	h_folded_free(&f);
	h_result_free(&r);
}

/* COMMAND mode attaches before exec: main's own call is seen, everything nests in it. */
static void test_command_sees_main(void **state)
{
	const char *out = h_path("main.folded");
	unsigned long long main_incl;
	double outer, inner;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "^(main|outer|inner)$", "-o", out, "--",
			    h_workload("tracee"), "nest", "1", "2", "10"));
	h_expect_calls(&r, 1 + 10 + 10);
	expect_stacks(&f, H_ARGV("tracee;main", "tracee;main;outer", "tracee;main;outer;inner"));
	nest_measured(r.out, 10 * 3 * MS, 10 * 2 * MS, &outer, &inner);
	main_incl = h_sum_frame(&f, "main");
	expect_near("main inclusive", main_incl, outer, 0.15);
	expect_near("inner self", h_count_of(&f, "tracee;main;outer;inner"), inner, 0.10);
	h_folded_free(&f);
	h_result_free(&r);
}

/* A function of the program called exactly N times: exactly N calls. */
static void test_exact_count_own_function(void **state)
{
	const char *out = h_path("count.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "^count_me$", "-o", out, "--", h_workload("tracee"),
			    "count", "10000"));
	h_expect_calls(&r, 10000);
	expect_stacks(&f, H_ARGV("tracee;count_me"));
	assert_true(h_has_line(r.err, "flamebpf: lost: nothing"));
	h_folded_free(&f);
	h_result_free(&r);
}

/* The calls of libc's malloc a run of `tracee MODE [ARG] N` makes. */
static unsigned long long malloc_calls_of(const char *mode, const char *arg, const char *n)
{
	const char *out = h_path("malloc.folded");
	struct h_result r;
	unsigned long long calls;
	const char *argv[] = {
		h_flamebpf(),	      "-f", "libc:^malloc$", "-o",	     out,  "--",
		h_workload("tracee"), mode, arg ? arg : n,   arg ? n : NULL, NULL,
	};

	assert_int_equal(h_run(&r, 60, argv), 0);
	/* no call at all is a run that captured nothing: 1 */
	if (r.status != 0 && r.status != 1) {
		h_dump(&r, "flamebpf");
		fail_msg("exit status %d, expected 0 (or 1 without calls)", r.status);
	}
	calls = h_must_trace_summary(&r).calls;
	if (r.status == 1 && calls) {
		h_dump(&r, "flamebpf");
		fail_msg("exit status 1 with %llu calls", calls);
	}
	if (arg && !strstr(r.err, "1 child processes traced in the command's libraries")) {
		h_dump(&r, "flamebpf");
		fail_msg("the summary does not say the child was traced in libc");
	}
	h_result_free(&r);
	return calls;
}

static unsigned long long malloc_calls(const char *n)
{
	return malloc_calls_of("count", NULL, n);
}

/* A child of the command calls malloc N times (after 200 ms, by when its
 * probes in libc are live): exactly N more calls. */
static void test_exact_count_child_libc(void **state)
{
	unsigned long long base, calls;

	(void)state;
	require_bpf();
	base = malloc_calls_of("forkcount", "200", "0");
	calls = malloc_calls_of("forkcount", "200", "10000");
	print_message("malloc calls: %llu without the child's loop, %llu with 10000 in it\n", base,
		      calls);
	if (calls != base + 10000)
		fail_msg("%llu calls of malloc, expected exactly %llu", calls, base + 10000);
}

/* libc's malloc called N more times in the loop: exactly N more calls. */
static void test_exact_count_libc_malloc(void **state)
{
	unsigned long long base, calls;

	(void)state;
	require_bpf();
	/* what the start-up and exit of the program call, if anything */
	base = malloc_calls("0");
	calls = malloc_calls("10000");
	print_message("malloc calls: %llu without the loop, %llu with 10000 in it\n", base, calls);
	assert_true(base < 100);
	if (calls != base + 10000)
		fail_msg("%llu calls of malloc, expected exactly %llu", calls, base + 10000);
}

/* T threads, M calls each, with --tids: every thread, exactly T * M calls. */
static void test_exact_count_threads(void **state)
{
	const char *out = h_path("threads.folded");
	long pid = 0, tids[8];
	struct h_folded f;
	struct h_result r;
	size_t n = 0;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--tids", "-f", "^count_me$", "-o", out, "--",
			    h_workload("tracee"), "threads", "4", "5000"));
	h_expect_calls(&r, 4 * 5000);
	for (size_t i = 0; i < f.n; i++) {
		char root[256], comm[64];
		long p, t;

		h_root(f.lines[i].stack, root, sizeof(root));
		if (h_root_ids(root, comm, sizeof(comm), &p, &t) || strcmp(comm, "tracee") || !t ||
		    (pid && p != pid) || n == 8) {
			h_folded_dump(&f, 20);
			fail_msg("line %zu: root '%s' is not one more 'tracee-PID/TID'", i + 1,
				 root);
		}
		pid = p;
		tids[n++] = t;
		assert_string_equal(f.lines[i].stack + strlen(root), ";count_me");
	}
	/* the main thread calls nothing; lines are unique, so tids are distinct */
	for (size_t i = 0; i < n; i++)
		assert_true(tids[i] != pid);
	if (n != 4) {
		h_folded_dump(&f, 20);
		fail_msg("%zu threads in the output, expected 4", n);
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/* 3 waves of 100 threads, 300 calls each: more threads at once than the
 * tracer keeps in array slots (64; the rest in task storage), and threads
 * that take the slots of threads ended, which must start with an empty
 * stack: exactly 3 * 100 * 300 calls, each of count_me alone. */
static void test_exact_count_waves(void **state)
{
	const char *out = h_path("waves.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "^count_me$", "-o", out, "--", h_workload("tracee"),
			    "waves", "3", "100", "300"));
	h_expect_calls(&r, 3 * 100 * 300);
	expect_stacks(&f, H_ARGV("tracee;count_me"));
	h_folded_free(&f);
	h_result_free(&r);
}

/* fib(20): 21891 calls, every depth 1..20 once, and self times adding up. */
static void test_recursion(void **state)
{
	const char *out = h_path("fib.folded");
	bool seen[21] = { false };
	long long measured = 0;
	struct h_folded f;
	struct h_result r;
	long value = 0;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "^fib$", "-o", out, "--", h_workload("tracee"),
			    "fib", "20"));
	/* fib(n) makes 2 * F(n + 1) - 1 calls */
	h_expect_calls(&r, 2 * 10946 - 1);
	if (sscanf(r.out, "fib 20 = %ld in %lld ns", &value, &measured) != 2 || value != 6765)
		fail_msg("the workload printed '%.200s'", r.out);
	for (size_t i = 0; i < f.n; i++) {
		size_t d = h_depth(f.lines[i].stack);

		if (strncmp(f.lines[i].stack, "tracee;fib", 10) || d > 20 || seen[d]) {
			h_folded_dump(&f, 30);
			fail_msg("line %zu: a stack of fib that fib(20) cannot make", i + 1);
		}
		for (const char *s = f.lines[i].stack + 6; *s; s += 4)
			if (strncmp(s, ";fib", 4))
				fail_msg("line %zu: a frame other than fib", i + 1);
		seen[d] = true;
	}
	for (size_t d = 1; d <= 20; d++)
		if (!seen[d])
			fail_msg("no call path of depth %zu (fib(20) nests 20 deep)", d);
	/* the top call's inclusive time, as the program measured it around the call */
	expect_near("sum of the self times", f.total, measured, 0.10);
	assert_true(f.total <= (unsigned long long)measured);
	if (!h_has_line(r.err, "flamebpf: lost: nothing")) {
		h_dump(&r, "flamebpf");
		fail_msg("losses reported for plain recursion");
	}
	h_folded_free(&f);
	h_result_free(&r);
}

/*
 * deep() recursing 100 levels, 3 times: past the kernel's limit of pending
 * uretprobes per thread (64) some returns never come; that is reported, and
 * the nesting stays right (the later calls of inner sit at the root).
 */
static void test_deeper_than_uretprobes(void **state)
{
	const char *out = h_path("deep.folded");
	bool seen[101] = { false };
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "^(deep|inner)$", "-o", out, "--",
			    h_workload("tracee"), "deep", "100", "3"));
	h_expect_calls(&r, 3 * 100 + 3);
	expect_busy("inner", h_count_of(&f, "tracee;inner"), 3 * 0.1 * MS, r.elapsed);
	for (size_t i = 0; i < f.n; i++) {
		const char *s = f.lines[i].stack;
		size_t d = h_depth(s);

		if (!strcmp(s, "tracee;inner"))
			continue;
		if (strncmp(s, "tracee;deep", 11) || d > 100 || h_has_frame(s, "inner")) {
			h_folded_dump(&f, 10);
			fail_msg("line %zu: a stack deep() recursing 100 deep cannot make", i + 1);
		}
		seen[d] = true;
	}
	for (size_t d = 1; d <= 100; d++)
		if (!seen[d])
			fail_msg("no call path of depth %zu", d);
	expect_unfinished(&r, 1, 3 * 100, "some: the returns the kernel did not catch");
	h_folded_free(&f);
	h_result_free(&r);
}

/*
 * jump_f calls jump_g, which longjmps back to main, 20 times; then main calls
 * after_jump (which calls after_leaf, 0.2 ms) 20 times. The abandoned calls
 * are reported, and the later calls nest under main, not under them.
 */
static void test_longjmp(void **state)
{
	const char *out = h_path("jump.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "^(jump_f|jump_g|after_jump|after_leaf)$", "-o",
			    out, "--", h_workload("tracee"), "jump", "20"));
	assert_true(says(r.err, "command exited with status 0"));
	assert_true(h_has_line(r.out, "jumped 20 times"));
	for (size_t i = 0; i < f.n; i++) {
		const char *s = f.lines[i].stack;

		if (h_has_seq(s, "jump_f;jump_f") ||
		    (h_has_frame(s, "after_jump") && strncmp(s, "tracee;after_jump", 17))) {
			h_dump(&r, "flamebpf");
			h_folded_dump(&f, 30);
			fail_msg("line %zu: a call nested under a frame that longjmp left", i + 1);
		}
	}
	expect_stacks(&f, H_ARGV("tracee;jump_f", "tracee;jump_f;jump_g", "tracee;after_jump",
				 "tracee;after_jump;after_leaf"));
	expect_busy("after_leaf self", h_count_of(&f, "tracee;after_jump;after_leaf"),
		    20 * 0.2 * MS, r.elapsed);
	expect_unfinished(&r, 40, 40, "40 (jump_f and jump_g, 20 times)");
	h_expect_calls(&r, 4 * 20);
	h_folded_free(&f);
	h_result_free(&r);
}

static size_t count_matching(const struct h_folded *f, const char *seq)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += h_has_seq(f->lines[i].stack, seq);
	return n;
}

/*
 * leave_early calls inner (1 ms), then ends its thread (pthread_exit), and
 * in the main thread the process (exit): two calls that never return, which
 * the summary reports.
 */
static void test_exit_inside_call(void **state)
{
	const char *out = h_path("exit.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--tids", "-f", "^(leave_early|inner)$", "-o", out, "--",
			    h_workload("leaver")));
	assert_true(says(r.err, "command exited with status 0"));
	/* per thread: inner, and leave_early's own time up to the exit */
	if (f.n != 4 || count_matching(&f, "leave_early;inner") != 2) {
		h_folded_dump(&f, 10);
		fail_msg("expected leave_early and leave_early;inner on each of 2 threads");
	}
	for (size_t i = 0; i < f.n; i++)
		assert_true(h_has_frame(f.lines[i].stack, "leave_early"));
	expect_busy("inner", h_sum_frame(&f, "inner"), 2 * MS, r.elapsed);
	expect_unfinished(&r, 2, 2, "2 (leave_early, left by pthread_exit and by exit)");
	h_folded_free(&f);
	h_result_free(&r);
}

#define XA	"xa_catch(int)"
#define XB	"xb_pass(int)"
#define XC	"xc_throw(int)"
#define X_REGEX "^x(a_catch|b_pass|c_throw)"

/* Whether STACK has some frame twice in a row (a frame never closed). */
static bool self_nested(const char *stack)
{
	return h_has_seq(stack, XA ";" XA) || h_has_seq(stack, XB ";" XB) ||
	       h_has_seq(stack, XC ";" XC);
}

/*
 * xa_catch calls xb_pass calls xc_throw, which throws through xb_pass to
 * xa_catch on 2000 calls of 3000: the program runs as it does untraced, and
 * the returns of the C++ binary are caught by probes on ret instructions.
 */
static void test_cxx_exceptions(void **state)
{
	const char *out = h_path("throws.folded");
	struct h_folded f;
	struct h_result plain, r;
	unsigned long ret_insn = 0, uret = 0;
	char line[512];

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&plain, 30, H_ARGV(h_workload("throws"), "3000")), 0);
	h_assert_status(&plain, 0);
	h_run_folded(
		&r, 60, out, &f,
		H_ARGV(h_flamebpf(), "-f", X_REGEX, "-o", out, "--", h_workload("throws"), "3000"));
	if (!says(r.err, "command exited with status 0") || !same_first_line(r.out, plain.out)) {
		h_dump(&r, "flamebpf");
		fail_msg("traced, the program printed '%.200s', untraced '%.200s'", r.out,
			 plain.out);
	}
	h_expect_calls(&r, 3 * 3000);
	if (!h_find_line(r.err, "flamebpf: returns: ", line, sizeof(line)) ||
	    sscanf(line,
		   "flamebpf: returns: %lu by uretprobe (%*u leaves, %*u in plain processes), "
		   "%lu by probes on ret instructions",
		   &uret, &ret_insn) != 2 ||
	    ret_insn != 3) {
		h_dump(&r, "flamebpf");
		fail_msg("no 'returns: 0 by uretprobe, 3 by probes on ret instructions' line");
	}
	/* libstdc++'s catch probe ends xb_pass and xc_throw at each catch */
	if (!h_has_line(r.err, "flamebpf: exceptions: 2000 thrown, 2000 caught, 4000 calls they "
			       "left ended at the catch (libstdc++'s probes)")) {
		h_dump(&r, "flamebpf");
		fail_msg("no 'exceptions: 2000 thrown, 2000 caught, 4000 calls ...' line");
	}
	expect_unfinished(&r, 0, 0, "none: the catch probe ended them");
	expect_stacks(&f, H_ARGV("throws;" XA, "throws;" XA ";" XB, "throws;" XA ";" XB ";" XC));
	for (size_t i = 0; i < f.n; i++)
		assert_false(self_nested(f.lines[i].stack));
	print_message("traced time %.1f ms in a %.1f ms run\n", f.total / MS, r.elapsed * 1e3);
	assert_true(f.total <= r.elapsed * 1e9);
	h_folded_free(&f);
	h_result_free(&r);
	h_result_free(&plain);
}

/*
 * The unwinder's own entry points traced (libgcc_s has no C++ exception
 * tables, but the unwinder unwinds through its own frame first): the
 * program must still run as untraced.
 */
static void test_cxx_unwinder_traced(void **state)
{
	const char *out = h_path("unwinder.folded");
	struct h_result plain, r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&plain, 30, H_ARGV(h_workload("throws"), "30")), 0);
	h_assert_status(&plain, 0);
	assert_int_equal(
		h_run(&r, 60,
		      H_ARGV(h_flamebpf(), "-f", "libgcc_s:^_Unwind_(RaiseException|Resume)$", "-f",
			     X_REGEX, "-o", out, "--", h_workload("throws"), "30")),
		0);
	if (r.status != 0 || !says(r.err, "command exited with status 0") ||
	    !same_first_line(r.out, plain.out)) {
		h_dump(&r, "flamebpf");
		fail_msg("traced, the program printed '%.200s' and ended as shown, untraced it "
			 "printed '%.200s' and exited 0",
			 r.out, plain.out);
	}
	h_result_free(&r);
	h_result_free(&plain);
}

/* The same with xc_throw busy for 200 us a call: the times stay right. */
static void test_cxx_exception_times(void **state)
{
	const char *out = h_path("throws-timed.folded");
	unsigned long long xa, xb, xc;
	long long measured = 0, busy = 0;
	const char *text;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", X_REGEX, "-o", out, "--", h_workload("throws"),
			    "600", "200"));
	assert_true(says(r.err, "command exited with status 0"));
	h_expect_calls(&r, 3 * 600);
	text = strstr(r.out, "\nxa_catch ");
	if (!text || sscanf(text, "\nxa_catch %lld\nxc_busy %lld", &measured, &busy) != 2)
		fail_msg("throws printed '%.200s', no 'xa_catch NS' and 'xc_busy NS'", r.out);
	xa = h_count_of(&f, "throws;" XA);
	xb = h_count_of(&f, "throws;" XA ";" XB);
	xc = h_count_of(&f, "throws;" XA ";" XB ";" XC);
	/* 120 ms unless preempted. xc_throw's busy waits as measured inside
	 * it, plus the unwinder's search phase when it throws; xa_catch's
	 * calls as measured around them, which adds the probes' traps: tens
	 * of microseconds a call on a loaded VM, so the traced time is only
	 * bounded by it */
	print_message("xc_throw self: %.2f ms, busy %.2f ms of %.2f ms measured\n", xc / MS,
		      busy / MS, measured / MS);
	assert_true(xc >= busy * 0.98 && xc <= busy + (measured - busy) * 0.75);
	expect_near("xa_catch inclusive", h_sum_frame(&f, XA), busy + (measured - busy) / 2.0,
		    (measured - busy) / 2.0 / (busy + (measured - busy) / 2.0) + 0.05);
	assert_true(xc >= 600 * 0.2 * MS);
	print_message(
		"self: xa_catch %.2f ms, xb_pass %.2f ms, in all %.2f ms of %.2f ms measured\n",
		xa / MS, xb / MS, (xa + xb + xc) / MS, measured / MS);
	/* Every traced nanosecond lies inside the workload's own clock reads
	 * around xa_catch, so the sum cannot exceed them; none of xc_throw's
	 * busy time may have leaked up to its callers (the unwinder's own
	 * time and the traps are theirs, and grow under ASan and load) */
	assert_true(xa + xb + xc <= (unsigned long long)measured);
	assert_true(xa + xb < (unsigned long long)busy / 2);
	h_folded_free(&f);
	h_result_free(&r);
}

/* The command forks a child that calls outer/inner: the child is traced. */
static void test_command_children(void **state)
{
	const char *out = h_path("fork.folded");
	double outer, inner;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-f", "^(outer|inner)$", "-o", out, "--",
				      h_workload("tracee"), "fork", "2", "3", "20")),
			 0);
	if (r.status == 1 && says(r.err, "no calls")) {
		h_result_free(&r);
		print_message("SKIP: COMMAND mode traces only the command process, not its "
			      "children (missing feature: -f following a COMMAND's children)\n");
		skip();
	}
	h_assert_status(&r, 0);
	h_expect_calls(&r, 2 * 20);
	h_folded_must_load(out, &f);
	expect_stacks(&f, H_ARGV("tracee;outer", "tracee;outer;inner"));
	nest_measured(r.out, 20 * 5 * MS, 20 * 3 * MS, &outer, &inner);
	expect_near("inner self", h_count_of(&f, "tracee;outer;inner"), inner, 0.10);
	expect_near("outer inclusive", h_sum_frame(&f, "outer"), outer, 0.10);
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_nesting_and_times, h_test_teardown),
		cmocka_unit_test_teardown(test_command_sees_main, h_test_teardown),
		cmocka_unit_test_teardown(test_exact_count_own_function, h_test_teardown),
		cmocka_unit_test_teardown(test_exact_count_libc_malloc, h_test_teardown),
		cmocka_unit_test_teardown(test_exact_count_child_libc, h_test_teardown),
		cmocka_unit_test_teardown(test_exact_count_threads, h_test_teardown),
		cmocka_unit_test_teardown(test_exact_count_waves, h_test_teardown),
		cmocka_unit_test_teardown(test_recursion, h_test_teardown),
		cmocka_unit_test_teardown(test_deeper_than_uretprobes, h_test_teardown),
		cmocka_unit_test_teardown(test_longjmp, h_test_teardown),
		cmocka_unit_test_teardown(test_exit_inside_call, h_test_teardown),
		cmocka_unit_test_teardown(test_cxx_exceptions, h_test_teardown),
		cmocka_unit_test_teardown(test_cxx_exception_times, h_test_teardown),
		cmocka_unit_test_teardown(test_cxx_unwinder_traced, h_test_teardown),
		cmocka_unit_test_teardown(test_command_children, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("trace", tests, h_group_setup, h_group_teardown);
}
