/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Python workloads profiled, for every CPython the tests run them
 * under (test_python, test_python_versions): tests/workloads/py_busy.py's
 * own measure of its CPU per function (the truth) and the checks of a
 * profile against it; tests/workloads/py_threads.py's threads each under
 * its own function.
 */
#ifndef FLAMEBPF_INTEG_PY_WORKLOADS_H
#define FLAMEBPF_INTEG_PY_WORKLOADS_H

#include <stdbool.h>
#include <stddef.h>

#include "harness.h"

#define PY_BUSY "tests/workloads/py_busy.py"

struct pw_truth {
	double parse, compute, encode, total;
};

/* "py_busy: parse S compute S encode S total S" in the workload's output;
 * fails the test without it. */
struct pw_truth pw_must_truth(const char *out);

/* The index of the first frame of stack starting with prefix, or 0 (the
 * root). */
size_t pw_find_frame(const char *stack, const char *prefix);

/* An h_pred: a frame starting with name (a const char *) in the stack. */
bool pw_under_func(const char *stack, const void *name);

double pw_pct(unsigned long long part, unsigned long long all);

/* parse's, compute's and encode's shares within 10% of the truth, each
 * printed. */
bool pw_shares_ok(const struct h_folded *f, const struct pw_truth *t);

/* The profile of py_busy under python (its summary's name, "python3.11"):
 * at least 95% of its samples with Python frames, the shares right, the
 * nesting as the program calls (compute under main, fib under fib, zlib
 * under encode), and the summary's "python:" line. Fails the test,
 * showing the profile, otherwise. */
void pw_check_profile(const struct h_folded *f, const struct h_result *r, const struct pw_truth *t,
		      const char *python);

/* py_busy run for seconds as flamebpf's COMMAND under python, at 499 Hz,
 * into out, f and r, with its truth in t. A miss of the shares is shown
 * and run once more (CI saw one function at 0% once: a code object's
 * address reused), the second run kept whatever it gives. */
void pw_run_command(const char *python, const char *seconds, const char *out, struct h_result *r,
		    struct h_folded *f, struct pw_truth *t);

/* py_busy started under python, attached to with -p for 4 s at 499 Hz,
 * into out, f and r, with its truth (of its whole run) in t; a miss is
 * run once more, as pw_run_command's. */
void pw_run_attached(const char *python, const char *out, struct h_result *r, struct h_folded *f,
		     struct pw_truth *t);

/* py_threads.py under python as COMMAND (--tids), its threads started as
 * mode says ("threads": threading.Thread; "pool": a ThreadPoolExecutor's
 * workers): every sample of its three threads in spin under the thread's
 * own function (spin_K, as the program prints "thread TID spin_K"), a
 * pool's under its worker's loop too, at least 300. Fails the test
 * otherwise. */
void pw_check_threads(const char *python, const char *mode);

/* The i-th frame of stack (the root is 0) into buf; false past the leaf. */
bool pw_frame_at(const char *stack, size_t i, char *buf, size_t len);

/* "NAME (FILE:LINE)": a Python frame. */
bool pw_is_py_frame(const char *frame);

/* An h_pred: the stack has a Python frame. */
bool pw_has_py_frame(const char *stack, const void *arg);

/* Whether part of all samples is within 10% of want (a share in %), or
 * the noise of so many samples, said either way. */
bool pw_share_ok(const char *name, unsigned long long part, unsigned long long all, double want);

#endif
