/* The comparison behind `flamebpf diff`: per function (frames merged by
 * name, kernel ones as NAME_[k]), its inclusive and self share of two
 * profiles, the change, and whether the change is more than noise.
 *
 * Sampling profiles: a function's inclusive samples (each stack counted
 * once, however often it recurs in it) against all samples, a one-sided
 * two-proportion z-test (with --absolute: the two counts as Poisson
 * counts over the same time). Uprobe-mode profiles (wall time in ns): each
 * call is an observation; the function's calls against all calls (or as
 * Poisson counts) and its per-call inclusive durations, by Mann-Whitney U
 * when both profiles hold one event per call, else by a log-ratio test of
 * the mean durations that assumes a coefficient of variation of 1; the
 * smaller p-value of the two, doubled. Time off the CPU (--off-cpu) and
 * wall time (--wall), in ns: where both profiles hold one event per block
 * and sample (chrome, perf script), each is an observation, tested as
 * calls are (blocks holding the function, and their durations by
 * Mann-Whitney U); where either does not (folded), the time is counted in
 * quanta (1 ms, or --wall's sampling period when longer), each taken for
 * a sample, and tested as samples are. Every p-value is compared with
 * alpha over the number of functions tested (Bonferroni). */
#ifndef FLAMEBPF_DIFF_H
#define FLAMEBPF_DIFF_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* What a profile measures: two profiles of different modes cannot be compared. */
enum diff_mode {
	DIFF_SAMPLES, /* sampling: samples */
	DIFF_CALLS,   /* uprobe mode: wall time of calls, ns */
	DIFF_OFFCPU,  /* --off-cpu: time off the CPU, ns */
	DIFF_WALL,    /* --wall: time on and off the CPU, ns */
	DIFF_MEMORY,  /* --alloc: bytes, counted in quanta (DIFF_MEMORY_QUANTUM) */
};

/* Bytes counted as one observation when a memory profile is compared: a
 * page. A program allocates the same each run, or nearly: what matters is
 * a share that moved, not each byte as a sample. */
#define DIFF_MEMORY_QUANTUM 4096

enum diff_status {
	DIFF_FEW,	 /* fewer than min_samples observations in both: not tested */
	DIFF_NOISE,	 /* the change is within noise */
	DIFF_SHRANK,	 /* shrank significantly */
	DIFF_GREW,	 /* grew significantly, but not a regression (see below) */
	DIFF_REGRESSION, /* grew significantly by more than the threshold, and may fail */
};

/* What one profile says of a function. */
struct diff_side {
	uint64_t incl, self; /* weight of the stacks holding it / ending in it */
	/* observations of the stacks holding it: samples, blocks and samples,
	 * quanta of time; uprobe mode: its calls */
	uint64_t n;
	double incl_pct, self_pct; /* of the profile's total weight */
};

struct diff_func {
	char *name;
	struct diff_side base, new;
	/* points of inclusive share; with absolute, % growth of the inclusive
	 * weight (INFINITY for a function new to the profile) */
	double change;
	double p;      /* one-sided p-value in the direction of the change; 1 untested */
	bool may_fail; /* matches fail_on */
	enum diff_status status;
};

struct diff_opts {
	double threshold; /* points of share, or % with absolute */
	double alpha;	  /* the family-wise significance level */
	uint64_t min_samples;
	bool absolute;
	const regex_t *fail_on; /* only these can be regressions; NULL: all */
	const regex_t *ignore;	/* left out altogether; NULL: none */
};

struct diff_result {
	enum profile_unit unit;
	enum diff_mode mode;
	bool per_event; /* one event per call, or per block and sample, on both sides */
	/* ns of time counted as one sample (off-CPU or wall time without
	 * events on both sides); 0 otherwise */
	uint64_t quantum;
	uint64_t weight[2], count[2]; /* base, new: totals (count: observations, as n) */
	uint64_t seen[2];	      /* off-CPU, wall: blocks and samples; 0 not known */
	struct diff_func *funcs;      /* regressions first, then by the size of the change */
	size_t nfuncs, ntested, nregressions;
	const char *test; /* the test used, in words */
	/* what the samples count when they are events (-e page-faults: the
	 * base's event, a string of its profile); NULL when they are time */
	const char *events;
};

/* The mode of a profile; "a sampling profile (samples)" and the like. */
enum diff_mode diff__mode(const struct profile *p);
const char *diff__mode_name(enum diff_mode m);

/* Compares base with new, which must be of the same mode. Returns 0, or
 * -EINVAL (modes differ), -ENOMEM. */
int diff__compare(const struct profile *base, const struct profile *new, const struct diff_opts *o,
		  struct diff_result *r);
void diff__free(struct diff_result *r);

/* "REGRESSION", "grew", "shrank", "noise", "few samples" / "few calls" /
 * "few blocks" / "few events" (wall: blocks and samples) / "little time"
 * (counted in quanta). */
const char *diff__status_name(enum diff_status s, const struct diff_result *r);

/* The ns of time that count as one sample for two profiles of time off
 * the CPU without events: 1 ms, or --wall's sampling period (from the
 * frequency, or the largest common divisor of the weights of the stacks
 * without a state) when longer. */
uint64_t diff__quantum(const struct profile *base, const struct profile *new);

/* What an observation is, in words: "samples", "calls", "blocks", "blocks
 * and samples", "quanta". */
const char *diff__obs_name(const struct diff_result *r);

#endif
