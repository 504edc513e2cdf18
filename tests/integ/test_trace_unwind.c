// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing never harms the target: every function (-f '.') of programs that
 * unwind, switch stacks or are Go, and of a real Debian C++ program, and the
 * libc functions that use their own return address. Each must print what it
 * prints untraced, byte for byte, and exit the same way. A uretprobe on a
 * frame that an unwinder, the Go runtime or a stack switch walks through
 * aborts or corrupts them (tests/workloads/unwind/ says how each breaks).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TEXT without the lines flamebpf wrote (they start with "flamebpf: "). */
static char *without_ours(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	assert_non_null(out);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (strncmp(p, "flamebpf: ", 10)) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return out;
}

/* The "returns: N by uretprobe (L leaves, P in plain processes), S by
 * probes on ret instructions" line of a run. */
struct returns {
	unsigned long uret, leaves, plain, sites;
};

static struct returns returns_of(const struct h_result *r)
{
	struct returns n = {};
	char line[512];

	if (!h_find_line(r->err, "flamebpf: returns: ", line, sizeof(line)) ||
	    sscanf(line,
		   "flamebpf: returns: %lu by uretprobe (%lu leaves, %lu in plain processes), %lu "
		   "by probes on ret instructions",
		   &n.uret, &n.leaves, &n.plain, &n.sites) != 4) {
		h_dump(r, "flamebpf");
		fail_msg("no 'returns:' line in the summary");
	}
	return n;
}

/*
 * Runs argv untraced, then traced with -f SPEC and the folded output into
 * OUT: the same stdout, stderr (flamebpf's lines aside) and exit status.
 * *R keeps the traced run.
 */
static void same_as_untraced(struct h_result *r, const char *spec, const char *out,
			     const char *const argv[])
{
	const char *traced[64] = { h_flamebpf(), "-f", spec, "-o", out, "--" };
	struct h_result plain;
	char *err, *want;
	size_t n = 6;

	for (size_t i = 0; argv[i] && n < 63; i++)
		traced[n++] = argv[i];
	traced[n] = NULL;
	assert_int_equal(h_run(&plain, 120, argv), 0);
	assert_int_equal(h_run(r, 300, traced), 0);
	err = without_ours(r->err);
	want = without_ours(plain.err);
	if (r->status != plain.status || strcmp(r->out, plain.out) || strcmp(err, want)) {
		h_dump(r, "flamebpf");
		fail_msg("traced: status %d, printed '%.300s' '%.300s'; untraced: status %d, "
			 "printed '%.300s' '%.300s'",
			 r->status, r->out, err, plain.status, plain.out, want);
	}
	print_message("%s: the same output and status (%d) traced and untraced\n", argv[0],
		      plain.status);
	free(err);
	free(want);
	h_result_free(&plain);
}

static bool built(const char *name)
{
	if (h_exists(h_workload(name)))
		return true;
	print_message("SKIP: %s was not built (its compiler is not installed)\n", name);
	return false;
}

/* No frame of a split-off part: those are their functions' time. */
static void expect_no_cold_frames(const char *out)
{
	struct h_folded f;

	h_folded_must_load(out, &f);
	for (size_t i = 0; i < f.n; i++)
		if (strstr(f.lines[i].stack, "[clone .cold"))
			fail_msg("a .cold part traced as a function: %s", f.lines[i].stack);
	h_folded_free(&f);
}

/*
 * g++ -O2: throws from .cold parts, through landing pads, rethrow,
 * std::function, a shared library both ways, libc's qsort(). Every
 * function of the program and its libraries traced.
 */
static void test_cxx(void **state)
{
	const char *out = h_path("cxx.folded");
	struct h_result r;
	struct returns n;

	(void)state;
	require_bpf();
	same_as_untraced(&r, ".", out, H_ARGV(h_workload("unwind/cxx_unwind"), "200"));
	n = returns_of(&r);
	/* libstdc++ unwinds: only leaves may have their return address replaced */
	assert_int_equal(n.plain, 0);
	assert_true(n.leaves > 100 && n.sites > 1000);
	assert_true(h_has_line(r.out, "values 153247 caught 475 rethrown 134 dtors 602"));
	expect_no_cold_frames(out);
	h_result_free(&r);
}

static void test_rust(void **state)
{
	const char *out = h_path("rust.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	if (!built("unwind/rust_panics"))
		skip();
	same_as_untraced(&r, ".", out, H_ARGV(h_workload("unwind/rust_panics"), "300"));
	assert_int_equal(returns_of(&r).plain, 0);
	assert_true(h_has_line(r.out, "values 30200 caught 100 drops 4650"));
	h_result_free(&r);
}

/* The Go runtime walks every frame, a leaf's too: no uretprobe at all. */
static void test_go(void **state)
{
	const char *out = h_path("go.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	if (!built("unwind/go_stacks"))
		skip();
	same_as_untraced(&r, ".", out, H_ARGV(h_workload("unwind/go_stacks"), "20"));
	assert_int_equal(returns_of(&r).uret, 0);
	assert_true(h_has_line(r.out, "workers 8 rounds 20 total 393114"));
	/* its write barriers begin with an instruction the kernel would skip */
	assert_non_null(strstr(r.err, "runtime.gcWriteBarrier"));
	h_result_free(&r);
}

/*
 * Every call of a Go function counted once: go_calls calls three functions
 * (one of each form of Go's stack check) in new goroutines, whose small
 * stacks the check often finds short; the runtime then copies the stack
 * and runs the function's first instruction again for the same call. The
 * program says how many calls it made.
 */
static void test_go_exact_count(void **state)
{
	const char *out = h_path("go_calls.folded");
	unsigned long long want;
	struct h_result r;

	(void)state;
	require_bpf();
	if (!built("unwind/go_calls"))
		skip();
	same_as_untraced(&r, "^main\\.counted", out, H_ARGV(h_workload("unwind/go_calls"), "2000"));
	assert_int_equal(sscanf(r.out, "sum 759245246 calls %llu", &want), 1);
	assert_int_equal(want, 6000);
	h_expect_calls(&r, want);
	/* and what is not exact is said */
	assert_non_null(strstr(r.err, "flamebpf: go: 3 functions in Go binaries, 3 with their "
				      "entry probe past the stack check (calls counted once), 3 "
				      "matched to their returns across stack copies; nesting and "
				      "times are not exact: goroutines move"));
	h_result_free(&r);
}

/*
 * A Go call open while its stack is copied elsewhere (overDeep's callee
 * recursion grows it): its return, at another address, still ends it.
 * Matched by the address, it was ignored and the call ended later, at the
 * thread's next traced event, as one "without a return".
 */
static void test_go_stack_copied(void **state)
{
	const char *out = h_path("go_copied.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	if (!built("unwind/go_calls"))
		skip();
	same_as_untraced(&r, "^main\\.overDeep$", out,
			 H_ARGV(h_workload("unwind/go_calls"), "2000"));
	h_expect_calls(&r, 2000);
	assert_true(h_has_line(r.err, "flamebpf: lost: nothing"));
	assert_int_equal(h_unfinished(r.err), 0);
	assert_null(strstr(r.err, "returns of calls that began before the probes"));
	h_result_free(&r);
}

/* Coroutines switching stacks in the middle of calls (swapcontext). */
static void test_stack_switch(void **state)
{
	const char *out = h_path("ctx.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	same_as_untraced(&r, ".", out, H_ARGV(h_workload("unwind/ctx_switch"), "500"));
	assert_int_equal(returns_of(&r).plain, 0);
	assert_true(h_has_line(r.out, "argc 2 sum 248750 total 11640"));
	h_result_free(&r);
}

/* A damaged PDF, which qpdf repairs by exceptions thrown in libqpdf. */
static const char damaged_pdf[] =
	"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
	"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
	"3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >> "
	"endobj\n4 0 obj << /Length 99 >> stream\nBT /F1 12 Tf 72 712 Td (Hello) Tj ET\n"
	"endstream endobj\nxref\n0 5\n0000000000 65535 f \ntrailer << /Size 5 /Root 1 0 R >>\n"
	"startxref\n9999\n%%EOF\n";

static void test_debian_cxx_program(void **state)
{
	const char *pdf = h_path("damaged.pdf"), *out = h_path("qpdf.folded");
	struct h_result r;
	FILE *f;

	(void)state;
	require_bpf();
	if (!h_exists("/usr/bin/qpdf")) {
		print_message("SKIP: qpdf is not installed (tools/deps.sh --test installs it)\n");
		skip();
	}
	f = fopen(pdf, "w");
	assert_non_null(f);
	assert_int_equal(fputs(damaged_pdf, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	same_as_untraced(&r, ".", out, H_ARGV("/usr/bin/qpdf", "--check", pdf));
	assert_int_equal(r.status, 3); /* "operation succeeded with warnings" */
	assert_non_null(strstr(r.err, "attempting to recover stream length"));
	/* exceptions were thrown through traced frames */
	assert_true(h_unfinished(r.err) > 0);
	assert_int_equal(returns_of(&r).plain, 0);
	h_result_free(&r);
}

/*
 * Plain C: no unwinder, no Go, no stack switch: functions that are no
 * leaves have their returns caught by uretprobes too (the fast way), but
 * not setjmp (it saves its return address) nor _start (argc is where a
 * return address would be); longjmp and the entry point stay unharmed.
 */
static void test_plain_c(void **state)
{
	const char *out = h_path("plain.folded");
	struct h_result r;
	struct returns n;

	(void)state;
	require_bpf();
	same_as_untraced(&r, "libc:.", out, H_ARGV(h_workload("tracee"), "jump", "20"));
	n = returns_of(&r);
	print_message("%lu leaves, %lu more by uretprobe, %lu by ret instructions\n", n.leaves,
		      n.plain, n.sites);
	assert_true(n.plain > 500);
	assert_true(h_has_line(r.out, "jumped 20 times"));
	h_result_free(&r);
	same_as_untraced(&r, "^_start$", out, H_ARGV(h_workload("unwind/ctx_switch"), "10"));
	assert_true(strstr(r.out, "argc 2 ") == r.out);
	h_result_free(&r);
}

/*
 * The command (sh, plain C) execs a C++ program: the libc functions planned
 * for sh with uretprobes are not traced in it until flamebpf has attached
 * their probes on ret instructions for it (the BPF side knows the program
 * changed), and it runs as untraced.
 */
static void test_exec_into_unplanned(void **state)
{
	const char *out = h_path("exec.folded");
	char cmd[4200];
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	snprintf(cmd, sizeof(cmd), "exec %s 100", h_workload("unwind/cxx_unwind"));
	same_as_untraced(&r, "libc:.", out, H_ARGV("/bin/sh", "-c", cmd));
	assert_true(returns_of(&r).plain > 500);
	if (!strstr(r.err, "1 processes exec'd a program that may walk its stacks")) {
		h_dump(&r, "flamebpf");
		fail_msg("the exec'd program was not traced the safe way");
	}
	/* its qsort() calls (each a comparison's) were traced after the exec */
	h_folded_must_load(out, &f);
	assert_true(h_sum_frame(&f, "qsort_r") > 0);
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_cxx, h_test_teardown),
		cmocka_unit_test_teardown(test_rust, h_test_teardown),
		cmocka_unit_test_teardown(test_go, h_test_teardown),
		cmocka_unit_test_teardown(test_go_exact_count, h_test_teardown),
		cmocka_unit_test_teardown(test_go_stack_copied, h_test_teardown),
		cmocka_unit_test_teardown(test_stack_switch, h_test_teardown),
		cmocka_unit_test_teardown(test_debian_cxx_program, h_test_teardown),
		cmocka_unit_test_teardown(test_plain_c, h_test_teardown),
		cmocka_unit_test_teardown(test_exec_into_unplanned, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("trace_unwind", tests, h_group_setup, h_group_teardown);
}
