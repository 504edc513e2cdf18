// SPDX-License-Identifier: GPL-2.0
#include "py_workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pw_truth pw_must_truth(const char *out)
{
	struct pw_truth t;
	char line[256];

	if (!h_find_line(out, "py_busy: ", line, sizeof(line)) ||
	    sscanf(line, "py_busy: parse %lf compute %lf encode %lf total %lf", &t.parse,
		   &t.compute, &t.encode, &t.total) != 4 ||
	    t.total <= 0)
		fail_msg("py_busy printed no CPU times: '%s'", out);
	return t;
}

/* The i-th frame of stack (the root is 0) into buf; false past the leaf. */
bool pw_frame_at(const char *stack, size_t i, char *buf, size_t len)
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
bool pw_is_py_frame(const char *frame)
{
	const char *open = strstr(frame, " ("), *colon = strrchr(frame, ':');
	size_t len = strlen(frame), digits;

	if (!open || !colon || colon < open || !len || frame[len - 1] != ')')
		return false;
	digits = (size_t)(frame + len - 1 - (colon + 1));
	return digits && strspn(colon + 1, "0123456789") == digits;
}

bool pw_has_py_frame(const char *stack, const void *arg)
{
	char frame[512];

	(void)arg;
	for (size_t i = 1; pw_frame_at(stack, i, frame, sizeof(frame)); i++)
		if (pw_is_py_frame(frame))
			return true;
	return false;
}

size_t pw_find_frame(const char *stack, const char *prefix)
{
	char frame[512];

	for (size_t i = 1; pw_frame_at(stack, i, frame, sizeof(frame)); i++)
		if (!strncmp(frame, prefix, strlen(prefix)))
			return i;
	return 0;
}

bool pw_under_func(const char *stack, const void *name)
{
	return pw_find_frame(stack, name) > 0;
}

/* The nearest Python frame to the at-th on the root's side (step -1) or
 * the leaf's (+1), into buf: native frames may stand between two Python
 * ones (3.10 calls the evaluation loop again for each). */
static bool py_neighbour(const char *stack, size_t at, int step, char *buf, size_t len)
{
	for (size_t i = at + step; i > 0 && pw_frame_at(stack, i, buf, len); i += step)
		if (pw_is_py_frame(buf))
			return true;
	return false;
}

/* compute under main, as the program calls it. */
static bool compute_under_main(const char *stack, const void *arg)
{
	size_t at = pw_find_frame(stack, "compute (");
	char frame[512];

	(void)arg;
	return at > 1 && py_neighbour(stack, at, -1, frame, sizeof(frame)) &&
	       !strncmp(frame, "main (", 6);
}

/* fib under fib under compute: the recursion kept. */
static bool fib_nested(const char *stack, const void *arg)
{
	size_t at = pw_find_frame(stack, "compute (");
	char a[512], b[512];

	(void)arg;
	if (!at || !py_neighbour(stack, at, 1, a, sizeof(a)) || strncmp(a, "fib (", 5))
		return false;
	at = pw_find_frame(stack, a);
	return py_neighbour(stack, at, 1, b, sizeof(b)) && !strncmp(b, "fib (", 5);
}

/* A native frame of zlib's (libz) somewhere under encode. */
static bool zlib_under_encode(const char *stack, const void *arg)
{
	size_t at = pw_find_frame(stack, "encode (");
	char frame[512];

	(void)arg;
	for (size_t i = at + 1; at && pw_frame_at(stack, i, frame, sizeof(frame)); i++)
		if (!strncmp(frame, "deflate", 7) || !strcmp(frame, "longest_match") ||
		    !strcmp(frame, "fill_window") || strstr(frame, "libz.so"))
			return true;
	return false;
}

double pw_pct(unsigned long long part, unsigned long long all)
{
	return all ? 100.0 * part / all : 0;
}

/* Within 10% of the truth, or 2 points for small shares, or three standard
 * deviations of a share of all samples (a loaded machine gives a 4 s run
 * a few hundred: 2 points a share then). */
bool pw_share_ok(const char *name, unsigned long long part, unsigned long long all, double want)
{
	double got = pw_pct(part, all), p = want / 100;
	double sigma3 = all ? 300 * sqrt(p * (1 - p) / all) : 0;
	double tol = fmax(fmax(want / 10, 2), sigma3);

	print_message("  %-8s %5.1f%% of the samples, truth %5.1f%%\n", name, got, want);
	if (got >= want - tol && got <= want + tol)
		return true;
	print_message("%s: %.1f%% of the samples, not within %.1f points of %.1f%%\n", name, got,
		      tol, want);
	return false;
}

bool pw_shares_ok(const struct h_folded *f, const struct pw_truth *t)
{
	unsigned long long all = f->total;

	return pw_share_ok("parse", h_sum(f, pw_under_func, "parse ("), all,
			   100 * t->parse / t->total) &
	       pw_share_ok("compute", h_sum(f, pw_under_func, "compute ("), all,
			   100 * t->compute / t->total) &
	       pw_share_ok("encode", h_sum(f, pw_under_func, "encode ("), all,
			   100 * t->encode / t->total);
}

/* The innermost Python frame of stack is parse's, and when arg is set, on
 * one of its loop's lines (py_busy.py's 19 to 22). */
static bool parse_innermost(const char *stack, const void *arg)
{
	char frame[512], last[512] = "";
	long line;

	for (size_t i = 1; pw_frame_at(stack, i, frame, sizeof(frame)); i++)
		if (pw_is_py_frame(frame))
			memcpy(last, frame, sizeof(last));
	if (strncmp(last, "parse (", 7))
		return false;
	line = strtol(strrchr(last, ':') + 1, NULL, 10);
	return !arg || (line >= 19 && line <= 22);
}

/* The innermost frame's line, which the record does not carry (it moves
 * on every sample: the sample's key does), where the program runs. */
static void check_innermost_line(const struct h_folded *f)
{
	unsigned long long all = h_sum(f, parse_innermost, NULL);
	unsigned long long loop = h_sum(f, parse_innermost, "loop");

	print_message("  parse innermost in %llu samples, %.1f%% of them on its loop's lines\n",
		      all, pw_pct(loop, all));
	if (!all || loop * 100 < all * 90)
		fail_msg("parse's innermost frames are not on the lines it runs (19 to 22)");
}

/* compute under main, fib's recursion, zlib under encode. */
static void check_nesting(const struct h_folded *f)
{
	unsigned long long compute = h_sum(f, pw_under_func, "compute (");
	unsigned long long encode = h_sum(f, pw_under_func, "encode (");

	print_message("  compute under main %.1f%%, fib in fib %.1f%% of compute, zlib under "
		      "encode %.1f%% of encode\n",
		      pw_pct(h_sum(f, compute_under_main, NULL), compute),
		      pw_pct(h_sum(f, fib_nested, NULL), compute),
		      pw_pct(h_sum(f, zlib_under_encode, NULL), encode));
	if (h_sum(f, compute_under_main, NULL) * 100 < compute * 95)
		fail_msg("compute is not under main");
	if (h_sum(f, fib_nested, NULL) * 100 < compute * 80)
		fail_msg("fib's recursion is not nested under compute");
	if (h_sum(f, zlib_under_encode, NULL) * 100 < encode * 50)
		fail_msg("zlib's frames are not under encode");
}

void pw_check_profile(const struct h_folded *f, const struct h_result *r, const struct pw_truth *t,
		      const char *python)
{
	unsigned long long all = f->total, py = h_sum(f, pw_has_py_frame, NULL);
	char want[128];

	print_message("%llu samples, %.1f%% with Python frames\n", all, pw_pct(py, all));
	if (all < 300 || py * 100 < all * 95) {
		h_dump(r, "flamebpf");
		h_folded_dump(f, 30);
		fail_msg("%.1f%% of %llu samples carry Python frames, not 95%%", pw_pct(py, all),
			 all);
	}
	/* all three, then what the profile holds, so that a miss can be read */
	if (!pw_shares_ok(f, t)) {
		h_dump(r, "flamebpf");
		h_folded_dump(f, 25);
		fail_msg("a function's share is not within 10%% of the truth");
	}
	check_nesting(f);
	check_innermost_line(f);
	snprintf(want, sizeof(want), "flamebpf: python: 1 process (%s)", python);
	if (!h_find_line(r->err, want, (char[256]){ 0 }, 256))
		fail_msg("no '%s' line in the summary", want);
}

/* A run kept: the second one whatever it gives, the first one if its
 * shares are right; a miss is shown and freed for the run again. */
static bool kept(int run, struct h_result *r, struct h_folded *f, const struct pw_truth *t)
{
	if (run || pw_shares_ok(f, t))
		return true;
	h_dump(r, "flamebpf (a miss, run again)");
	h_folded_dump(f, 25);
	h_folded_free(f);
	h_result_free(r);
	return false;
}

void pw_run_command(const char *python, const char *seconds, const char *out, struct h_result *r,
		    struct h_folded *f, struct pw_truth *t)
{
	for (int run = 0;; run++) {
		h_run_folded(r, 30, out, f,
			     H_ARGV(h_flamebpf(), "-F", "499", "-o", out, "--", python, PY_BUSY,
				    seconds));
		*t = pw_must_truth(r->out);
		if (kept(run, r, f, t))
			return;
	}
}

void pw_run_attached(const char *python, const char *out, struct h_result *r, struct h_folded *f,
		     struct pw_truth *t)
{
	struct h_proc work;
	struct h_result wr;
	char pid[32];

	for (int run = 0;; run++) {
		h_start_workload(&work, H_ARGV(python, PY_BUSY, "7"));
		h_sleep(1);
		snprintf(pid, sizeof(pid), "%d", (int)work.pid);
		h_run_folded(r, 30, out, f,
			     H_ARGV(h_flamebpf(), "-F", "499", "-p", pid, "-d", "4", "-o", out));
		h_finish(&work, 30, &wr);
		assert_int_equal(wr.status, 0);
		*t = pw_must_truth(wr.out);
		h_result_free(&wr);
		if (kept(run, r, f, t))
			return;
	}
}

void pw_check_threads(const char *python, const char *mode)
{
	const char *out = h_path("py_threads.folded");
	unsigned long long own = 0, all = 0;
	bool pool = !strcmp(mode, "pool");
	struct h_result r;
	struct h_folded f;

	h_run_folded(&r, 30, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "499", "--tids", "-o", out, "--", python,
			    "tests/workloads/py_threads.py", "2", mode));
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
		if (!at || !pw_find_frame(stack, "spin ("))
			continue; /* the main thread, or outside the loop */
		all += f.lines[i].count;
		strcat(want, " (");
		/* a pool's task under its worker's loop */
		if (pw_find_frame(stack, want) && (!pool || pw_find_frame(stack, "_worker (")))
			own += f.lines[i].count;
		else
			print_message("not its own function (%s): %s\n", want, stack);
	}
	print_message("%llu samples of the threads in spin, %.1f%% under their own function\n", all,
		      pw_pct(own, all));
	if (all < 300 || own != all) {
		h_dump(&r, "flamebpf");
		fail_msg("threads' samples under another thread's function");
	}
	h_folded_free(&f);
	h_result_free(&r);
}
