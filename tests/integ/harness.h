/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the integration tests: run build/flamebpf and the bundled
 * workloads, capture what they print, and parse folded output strictly.
 *
 * The tests run with the repository root as the working directory.
 * FLAMEBPF and WORKLOADS in the environment override build/flamebpf and
 * build/workloads.
 */
#ifndef FLAMEBPF_INTEG_HARNESS_H
#define FLAMEBPF_INTEG_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <sys/types.h>
#include <cmocka.h>

/* A NULL-terminated argv from a list: H_ARGV("a", "b") */
#define H_ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Exit status of a process: its exit code, 128 + N when killed by signal N. */
#define H_TIMED_OUT (-1)

struct h_proc {
	pid_t pid; /* also its process group: every child gets its own */
	char out_path[4096];
	char err_path[4096];
	double started;
	bool reaped;
};

struct h_result {
	int status;	/* see H_TIMED_OUT */
	double elapsed; /* seconds from start to exit */
	double cpu;	/* CPU seconds of it and the descendants it waited for */
	char *out;	/* captured stdout, NUL-terminated, never NULL */
	char *err;	/* captured stderr, likewise */
};

struct h_line {
	char *stack; /* "root;frame;...;leaf" */
	unsigned long long count;
};

struct h_folded {
	struct h_line *lines;
	size_t n;
	unsigned long long total; /* sum of all counts */
	char *buf;		  /* owns the strings the lines point into */
};

/*
 * Call first in main(): "TEST [PATTERN]" runs only the tests whose names
 * match PATTERN (cmocka's glob); stdout becomes line-buffered so that the
 * tests' messages stay in order with cmocka's.
 */
void h_init(int argc, char **argv);

/* cmocka group setup/teardown: a private temp dir for the whole group. */
int h_group_setup(void **state);
int h_group_teardown(void **state);
/* Per-test teardown: kills every process a test started and left running. */
int h_test_teardown(void **state);

const char *h_flamebpf(void);
/* Path of the workload NAME; valid until 32 more paths were asked for. */
const char *h_workload(const char *name);
/* DIR/NAME inside the group's temp dir; same lifetime as h_workload(). */
const char *h_path(const char *name);
const char *h_tmpdir(void);

double h_now(void);
void h_sleep(double seconds);

/*
 * Runs argv (no shell; argv[0] through PATH), stdin from /dev/null, stdout
 * and stderr captured.  After TIMEOUT seconds the process group is killed and
 * status is H_TIMED_OUT.  Returns 0, or -errno when it could not start.
 */
int h_run(struct h_result *r, double timeout, const char *const argv[]);
int h_start(struct h_proc *p, const char *const argv[]);
/* Likewise, with stdout going to OUT_PATH (a device or FIFO is fine). */
int h_start_to(struct h_proc *p, const char *const argv[], const char *out_path);
/* Starts a background workload (failing the test if it cannot), then gives it 0.2 s to exec. */
void h_start_workload(struct h_proc *p, const char *const argv[]);
int h_finish(struct h_proc *p, double timeout, struct h_result *r);
/*
 * h_finish for a process that must exit 0 having written folded output to
 * OUT, which is loaded into F. R keeps the result (free it); NULL: not kept.
 */
void h_finish_folded(struct h_proc *p, double timeout, struct h_result *r, const char *out,
		     struct h_folded *f);
/* Likewise, running argv as h_run does. */
void h_run_folded(struct h_result *r, double timeout, const char *out, struct h_folded *f,
		  const char *const argv[]);
/* Signals the process (not its group) / its whole group. */
void h_signal(const struct h_proc *p, int sig);
void h_signal_group(const struct h_proc *p, int sig);
/* Kills the process group with SIGKILL and reaps the leader. */
void h_stop(struct h_proc *p);
void h_result_free(struct h_result *r);
/* Prints the command's stderr (for the log of a failing test). */
void h_dump(const struct h_result *r, const char *what);

/* CPU seconds (user + system) PID used so far; -1 when it cannot be read. */
double h_cpu_time(pid_t pid);
/*
 * Waits until PID has a perf event open (it has attached), then 0.3 s more;
 * says so and returns false when it has none after TIMEOUT seconds.
 */
bool h_wait_attached(pid_t pid, double timeout);

/* The entries of dir but . and .., sorted by name, strdup'd into names
 * (at most max; free each): how many. Fails the test when dir cannot be
 * read. */
size_t h_list_dir(const char *dir, char **names, size_t max);

/* Reads a whole file; NULL and errno set on failure. */
char *h_slurp(const char *path);
/* Writes text to path, mode mode (0755: a script); fails the test if it
 * cannot. */
void h_write_file(const char *path, const char *text, mode_t mode);
bool h_exists(const char *path);
size_t h_count_lines(const char *text);

/*
 * Parses folded text strictly: every line is "STACK COUNT", COUNT a positive
 * decimal after the last space, frames non-empty, no control bytes, no
 * duplicate stacks, lines sorted, the last line ending in a newline.
 * Returns 0, or -1 with the reason (and line number) in WHY.
 */
int h_folded_parse(const char *text, struct h_folded *f, char *why, size_t whylen);
/* Loads and parses PATH, failing the current test with the reason. */
void h_folded_must_load(const char *path, struct h_folded *f);
void h_folded_must_parse(const char *text, const char *what, struct h_folded *f);
void h_folded_free(struct h_folded *f);
/*
 * Like h_folded_parse, for --flamechart output: lines in time order, so
 * neither sorted nor unique.
 */
int h_flamechart_parse(const char *text, struct h_folded *f, char *why, size_t whylen);
void h_flamechart_must_parse(const char *text, const char *what, struct h_folded *f);
void h_flamechart_must_load(const char *path, struct h_folded *f);
/* Prints up to MAX lines of F (for the log of a failing test). */
void h_folded_dump(const struct h_folded *f, size_t max);

typedef bool (*h_pred)(const char *stack, const void *arg);
unsigned long long h_sum(const struct h_folded *f, h_pred pred, const void *arg);
/* Sum of the counts of the stacks that have FRAME as one of their frames. */
unsigned long long h_sum_frame(const struct h_folded *f, const char *frame);

/* The count of the line whose stack is exactly STACK; 0 when there is none. */
unsigned long long h_count_of(const struct h_folded *f, const char *stack);
/* How deep STACK is: its frames after the root. */
size_t h_depth(const char *stack);

/* Whether FRAME is one whole frame of STACK (the root included). */
bool h_has_frame(const char *stack, const char *frame);
/* Whether SEQ ("a;b") occurs in STACK as consecutive whole frames. */
bool h_has_seq(const char *stack, const char *seq);
bool h_is_kernel_frame(const char *frame, size_t len);
/* Copies STACK's root frame into BUF (truncated to LEN - 1 bytes). */
const char *h_root(const char *stack, char *buf, size_t len);
/* Splits a root "COMM-PID" or "COMM-PID/TID"; tid is 0 when absent. -1 if neither. */
int h_root_ids(const char *root, char *comm, size_t len, long *pid, long *tid);

/* The numbers of flamebpf's summary line on stderr:
 * "flamebpf: N samples, P processes, S stacks in T s at ..." */
struct h_summary {
	unsigned long long samples, processes, stacks;
	double secs;
};

/* Parses the summary line of ERR (flamebpf's stderr); false when there is none. */
bool h_parse_summary(const char *err, struct h_summary *s);
/* The numbers of the summary of uprobe mode (-f):
 * "flamebpf: N calls of F functions in B binaries, P processes, S call paths in T s" */
struct h_trace_summary {
	unsigned long long calls, functions, binaries, processes, paths;
	double secs;
};

bool h_parse_trace_summary(const char *err, struct h_trace_summary *s);
/* The uprobe-mode summary of R's stderr; fails the test when there is none. */
struct h_trace_summary h_must_trace_summary(const struct h_result *r);
/* Fails the test unless that summary counts exactly WANT calls. */
void h_expect_calls(const struct h_result *r, unsigned long long want);
/* The wall times `tracee nest` measured and printed in OUT ("outer NS inner NS"). */
void h_nest_times(const char *out, long long *outer, long long *inner);
/*
 * From the "flamebpf: lost: ..." line of ERR, the number N of the item
 * "N WHAT" (WHAT is matched as a prefix of the item's text, e.g. "calls
 * without a return"); 0 when the line has no such item; -1 when there is no
 * "lost:" line at all.
 */
long long h_lost(const char *err, const char *what);
/* N of the summary's "unfinished: N calls without a return" line, 0 without
 * one, -1 when it does not parse. */
long long h_unfinished(const char *err);
/*
 * The blocks off the CPU the "lost:" line of ERR counts, whatever the
 * reason (--off-cpu's and --cpu-split's): a check of waits may find them
 * short by that many blocks, never by more, and never by an uncounted one.
 */
long long h_offcpu_lost(const char *err);

/* The share of a wait of ten blocks the off-CPU time must reach when lost
 * blocks (h_offcpu_lost) were counted: 0.9, less a tenth and some for each;
 * fails when more were lost than a check can allow for. */
double h_offcpu_floor(long long lost);
/* The whole line of TEXT that starts with PREFIX, copied into BUF; NULL if none. */
const char *h_find_line(const char *text, const char *prefix, char *buf, size_t len);

/* Whether LINE is one whole line of TEXT. */
bool h_has_line(const char *text, const char *line);

/* Classic uprobes (one perf event per probe, as on kernels before 6.6) for
 * the flamebpf runs of the current test: FLAMEBPF_CLASSIC_UPROBES=1 until
 * h_classic_teardown, the test's teardown. */
void h_classic_uprobes(void);
int h_classic_teardown(void **state);

/* Fails the test unless R's summary says it used classic uprobes. */
void h_expect_classic(const struct h_result *r);

/* test_NAME and test_NAME_classic: expect_NAME(false) with uprobe_multi
 * links, expect_NAME(true) with classic uprobes (teardown:
 * h_classic_teardown). */
#define H_UPROBE_TESTS(name)                                                                       \
	static void test_##name(void **state)                                                      \
	{                                                                                          \
		(void)state;                                                                       \
		expect_##name(false);                                                              \
	}                                                                                          \
	static void test_##name##_classic(void **state)                                            \
	{                                                                                          \
		(void)state;                                                                       \
		h_classic_uprobes();                                                               \
		expect_##name(true);                                                               \
	}

/* Skips the current test, with a printed reason, when real BPF cannot run. */
void h_require_bpf(void);
#define require_bpf() h_require_bpf()

/* Fails the test when R's exit status is not WANT, showing its stderr. */
#define h_assert_status(r, want)                                                                   \
	do {                                                                                       \
		if ((r)->status != (want)) {                                                       \
			h_dump((r), "command");                                                    \
			fail_msg("exit status %d, expected %d", (r)->status, (int)(want));         \
		}                                                                                  \
	} while (0)

/* Runs flamebpf with args (the first nargs, up to a NULL) and then tail
 * (NULL-ended; NULL for none) and fails the test unless it is refused as
 * a usage error (exit status 2) whose message says `said`. */
void h_assert_refused(const char *const *args, size_t nargs, const char *const *tail,
		      const char *said);
/* h_assert_refused for each of an array of cases, each with its .args
 * (an array, NULL-padded) and .said; tail after each's args. */
#define h_assert_all_refused(cases, tail)                                                          \
	for (size_t i_ = 0; i_ < sizeof(cases) / sizeof((cases)[0]); i_++)                         \
	h_assert_refused((cases)[i_].args, sizeof((cases)[i_].args) / sizeof((cases)[i_].args[0]), \
			 (tail), (cases)[i_].said)

/* Skips the current test unless a `go` is on PATH (golang-go), whose `go
 * tool pprof` is pprof's reference reader. */
void h_require_go(void);

/* The report of `go tool pprof [-sample_index=INDEX] -unit=UNIT -top FILE`
 * (INDEX NULL: the default type; every node with all_nodes), which must
 * exit 0; the caller frees it. */
char *h_pprof_top(const char *file, const char *index, const char *unit, bool all_nodes);

/* The report of `go tool pprof -tags FILE`: each label's values and their
 * shares. */
char *h_pprof_tags(const char *file);

#endif
