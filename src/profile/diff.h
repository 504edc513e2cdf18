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
 * smaller p-value of the two, doubled. Every p-value is compared with
 * alpha over the number of functions tested (Bonferroni). */
#ifndef FLAMEBPF_DIFF_H
#define FLAMEBPF_DIFF_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

enum diff_status {
	DIFF_FEW,	 /* fewer than min_samples samples (calls) in both: not tested */
	DIFF_NOISE,	 /* the change is within noise */
	DIFF_SHRANK,	 /* shrank significantly */
	DIFF_GREW,	 /* grew significantly, but not a regression (see below) */
	DIFF_REGRESSION, /* grew significantly by more than the threshold, and may fail */
};

/* What one profile says of a function. */
struct diff_side {
	uint64_t incl, self;	   /* weight of the stacks holding it / ending in it */
	uint64_t n;		   /* samples of the stacks holding it; uprobe mode: its calls */
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
	bool per_call;		      /* uprobe mode with one event per call on both sides */
	uint64_t weight[2], count[2]; /* base, new: totals (count: samples or calls) */
	struct diff_func *funcs;      /* regressions first, then by the size of the change */
	size_t nfuncs, ntested, nregressions;
	const char *test; /* the test used, in words */
};

/* Compares base with new, which must have the same unit. Returns 0, or
 * -EINVAL (units differ), -ENOMEM. */
int diff__compare(const struct profile *base, const struct profile *new, const struct diff_opts *o,
		  struct diff_result *r);
void diff__free(struct diff_result *r);

/* "REGRESSION", "grew", "shrank", "noise", "few samples" / "few calls". */
const char *diff__status_name(enum diff_status s, enum profile_unit unit);

#endif
