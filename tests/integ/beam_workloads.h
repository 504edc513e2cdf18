/* What the tests of Erlang and Elixir nodes share (test_runtimes: with
 * +JPperf; test_beam: without): tests/workloads/busy.erl compiled, a node
 * run as COMMAND under -F 499, and the checks of its heavy/0 and light/0
 * split and of the summary's runtimes line. */
#ifndef FLAMEBPF_TEST_BEAM_WORKLOADS_H
#define FLAMEBPF_TEST_BEAM_WORKLOADS_H

#include "harness.h"

#define BEAM_MS "3000" /* how long busy runs, in ms */

/* Skips the test, saying so, when path is not installed (package). */
void bw_require_program(const char *path, const char *package);

/* busy.erl compiled into the group's temp dir, which it returns. */
const char *bw_compile_busy_erl(void);

/* cmd under -F 499 --pids as a COMMAND into out, r and f, with ERL_FLAGS
 * set to erl_flags (NULL: unset); the perf maps it left removed. */
void bw_run_node(const char *erl_flags, const char *out, struct h_result *r, struct h_folded *f,
		 const char *const cmd[]);

/* The samples whose stacks hold heavy and light (texts), 70/30 within 10
 * points, in at least half of those holding module (at least 200). */
void bw_expect_split(const struct h_folded *f, const char *module, const char *heavy,
		     const char *light);

/* The "flamebpf: runtimes: " line of the summary, which must be there. */
const char *bw_runtimes_line(const struct h_result *r, char *buf, size_t len);

/* Its "N% of its samples named": N, or -1. */
int bw_named_share(const char *line);

/* An h_pred: text (a const char *) is in the stack. */
bool bw_has_text(const char *stack, const void *text);

/* An h_pred: the stack is of a process whose comm is comm. */
bool bw_of_comm(const char *stack, const void *comm);

/* Removes the /tmp/perf-PID.map of the processes of f's roots named want. */
void bw_remove_perf_maps(const struct h_folded *f, const char *want);

#endif
