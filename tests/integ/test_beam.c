// SPDX-License-Identifier: GPL-2.0
/*
 * Erlang nodes started without +JPperf (no perf map, no frame pointers in
 * the JIT's code), as production runs them, sampled for real on Debian's
 * OTP 25: an Erlang module and an Elixir script (tests/workloads/busy.erl,
 * busy.exs) as COMMANDs, and a node already running when flamebpf attaches
 * with -p. Their functions must be named from the JIT's own records in the
 * node's memory, their Erlang callers walked (heavy/0 and light/0 under
 * loop/1, split 70/30 within 10 points), and the summary must say how the
 * frames were named and give no advice. Each skips, saying so, where its
 * runtime is not installed (tools/deps.sh --test installs them).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BEAM_MS "3000"
#define HOW	"beam.smp 1 process, JIT's own names read from memory, no perf map, "

static void require_program(const char *path, const char *package)
{
	if (access(path, X_OK)) {
		print_message("SKIP: %s is not installed (Debian's %s)\n", path, package);
		skip();
	}
}

static bool in_text(const char *stack, const void *text)
{
	return strstr(stack, text) != NULL;
}

static bool of_node(const char *stack, const void *arg)
{
	(void)arg;
	return !strncmp(stack, "beam.smp-", 9);
}

/* The percentage before "% of its samples named" in line, or -1. */
static int share_named(const char *line)
{
	const char *p = strstr(line, "% of its samples named");
	int pct = -1;

	while (p && p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p)
		sscanf(p, "%d", &pct);
	return pct;
}

/* heavy and light (frames "$" NAME) under loop, 70/30 within 10 points,
 * in most of the node's samples. */
static void expect_walked(const struct h_folded *f, const char *loop, const char *heavy,
			  const char *light)
{
	char hseq[128], lseq[128];
	unsigned long long h, l, node = h_sum(f, of_node, NULL);

	snprintf(hseq, sizeof(hseq), "$%s;$%s", loop, heavy);
	snprintf(lseq, sizeof(lseq), "$%s;$%s", loop, light);
	h = h_sum(f, in_text, hseq);
	l = h_sum(f, in_text, lseq);
	print_message("%llu samples of beam.smp: %llu in %s, %llu in %s (%.1f%% : %.1f%%)\n", node,
		      h, hseq, l, lseq, h + l ? 100.0 * h / (h + l) : 0,
		      h + l ? 100.0 * l / (h + l) : 0);
	if (node < 200 || h + l < node / 2) {
		h_folded_dump(f, 20);
		fail_msg("%s and %s under %s are not in most of the node's samples", heavy, light,
			 loop);
	}
	if (h * 100 < (h + l) * 60 || h * 100 > (h + l) * 80)
		fail_msg("%s has %.1f%% of the work, expected 70%% within 10", heavy,
			 100.0 * h / (h + l));
}

/* The summary says the frames were named from the JIT's memory, nearly
 * all of them, and gives no advice. */
static void expect_summary(const struct h_result *r)
{
	char line[1024], advice[1024];

	if (!h_find_line(r->err, "flamebpf: runtimes: ", line, sizeof(line)) ||
	    !strstr(line, HOW) || share_named(line) < 90 ||
	    h_find_line(r->err, "flamebpf: beam.smp (pid ", advice, sizeof(advice))) {
		h_dump(r, "flamebpf");
		fail_msg("the summary does not say the node was named from its JIT's memory");
	}
	print_message("%s\n", line);
}

static const char *compile_busy_erl(void)
{
	struct h_result r;

	assert_int_equal(
		h_run(&r, 60, H_ARGV("erlc", "-o", h_tmpdir(), "tests/workloads/busy.erl")), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	return h_tmpdir();
}

/* cmd under -F 499 as a COMMAND, without ERL_FLAGS. */
static void run_node(const char *out, struct h_result *r, struct h_folded *f,
		     const char *const cmd[])
{
	const char *argv[16] = { h_flamebpf(), "-F", "499", "--pids", "-o", out, "--" };
	size_t n = 7;

	for (size_t i = 0; cmd[i] && n < 15; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	unsetenv("ERL_FLAGS");
	h_run_folded(r, 90, out, f, argv);
}

static void test_erlang_unflagged(void **state)
{
	const char *out = h_path("erlang.folded");
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	require_program("/usr/bin/erlc", "erlang-base");
	run_node(out, &r, &f,
		 H_ARGV("erl", "-noshell", "-pa", compile_busy_erl(), "-eval",
			"busy:run(" BEAM_MS "), halt()."));
	expect_summary(&r);
	expect_walked(&f, "busy:loop/1", "busy:heavy/0", "busy:light/0");
	h_folded_free(&f);
	h_result_free(&r);
}

static void test_elixir_unflagged(void **state)
{
	const char *out = h_path("elixir.folded");
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	require_program("/usr/bin/elixir", "elixir");
	run_node(out, &r, &f, H_ARGV("elixir", "tests/workloads/busy.exs", BEAM_MS));
	expect_summary(&r);
	expect_walked(&f, "'Elixir.Busy':loop/1", "'Elixir.Busy':heavy/0", "'Elixir.Busy':light/0");
	h_folded_free(&f);
	h_result_free(&r);
}

/* A node running before flamebpf starts: its modules, loaded long before,
 * are named all the same. */
static void test_erlang_attached(void **state)
{
	const char *out = h_path("attached.folded");
	struct h_result r;
	struct h_folded f;
	struct h_proc p;
	char spid[16];

	(void)state;
	require_bpf();
	require_program("/usr/bin/erlc", "erlang-base");
	unsetenv("ERL_FLAGS");
	h_start_workload(&p, H_ARGV("erl", "-noshell", "-pa", compile_busy_erl(), "-eval",
				    "busy:run(8000), halt()."));
	h_sleep(1.5);
	snprintf(spid, sizeof(spid), "%d", (int)p.pid);
	h_run_folded(
		&r, 60, out, &f,
		H_ARGV(h_flamebpf(), "-F", "499", "-p", spid, "-d", "2.5", "--pids", "-o", out));
	h_stop(&p);
	expect_summary(&r);
	expect_walked(&f, "busy:loop/1", "busy:heavy/0", "busy:light/0");
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_erlang_unflagged, h_test_teardown),
		cmocka_unit_test_teardown(test_elixir_unflagged, h_test_teardown),
		cmocka_unit_test_teardown(test_erlang_attached, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests(tests, h_group_setup, h_group_teardown);
}
