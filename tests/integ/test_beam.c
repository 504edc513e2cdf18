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
#include "beam_workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOW "beam.smp 1 process, JIT's own names read from memory, no perf map, "

/* heavy and light (frames "$" NAME) right under loop, 70/30 within 10
 * points, in most of the samples in module: the Erlang callers walked. */
static void expect_walked(const struct h_folded *f, const char *module, const char *loop,
			  const char *heavy, const char *light)
{
	char hseq[128], lseq[128];

	snprintf(hseq, sizeof(hseq), "$%s;$%s", loop, heavy);
	snprintf(lseq, sizeof(lseq), "$%s;$%s", loop, light);
	bw_expect_split(f, module, hseq, lseq);
}

/* The summary says the frames were named from the JIT's memory, nearly
 * all of them, and gives no advice. */
static void expect_summary(const struct h_result *r)
{
	char line[1024], advice[1024];

	if (!h_find_line(r->err, "flamebpf: runtimes: ", line, sizeof(line)) ||
	    !strstr(line, HOW) || bw_named_share(line) < 90 ||
	    h_find_line(r->err, "flamebpf: beam.smp (pid ", advice, sizeof(advice))) {
		h_dump(r, "flamebpf");
		fail_msg("the summary does not say the node was named from its JIT's memory");
	}
	print_message("%s\n", line);
}

static void test_erlang_unflagged(void **state)
{
	const char *out = h_path("erlang.folded");
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	bw_require_program("/usr/bin/erlc", "erlang-base");
	bw_run_node(NULL, out, &r, &f,
		    H_ARGV("erl", "-noshell", "-pa", bw_compile_busy_erl(), "-eval",
			   "busy:run(" BEAM_MS "), halt()."));
	expect_summary(&r);
	expect_walked(&f, "$busy:", "busy:loop/1", "busy:heavy/0", "busy:light/0");
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
	bw_require_program("/usr/bin/elixir", "elixir");
	bw_run_node(NULL, out, &r, &f, H_ARGV("elixir", "tests/workloads/busy.exs", BEAM_MS));
	expect_summary(&r);
	expect_walked(&f, "$'Elixir.Busy':", "'Elixir.Busy':loop/1", "'Elixir.Busy':heavy/0",
		      "'Elixir.Busy':light/0");
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
	bw_require_program("/usr/bin/erlc", "erlang-base");
	unsetenv("ERL_FLAGS");
	h_start_workload(&p, H_ARGV("erl", "-noshell", "-pa", bw_compile_busy_erl(), "-eval",
				    "busy:run(8000), halt()."));
	h_sleep(1.5);
	snprintf(spid, sizeof(spid), "%d", (int)p.pid);
	h_run_folded(
		&r, 60, out, &f,
		H_ARGV(h_flamebpf(), "-F", "499", "-p", spid, "-d", "2.5", "--pids", "-o", out));
	h_stop(&p);
	expect_summary(&r);
	expect_walked(&f, "$busy:", "busy:loop/1", "busy:heavy/0", "busy:light/0");
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
