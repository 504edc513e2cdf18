/* The significance tests of `flamebpf diff`. Each returns the one-sided
 * p-value of "the second sample is larger than the first", from a normal
 * approximation (the diff tests only functions with enough samples or
 * calls for one to hold), and 1 when the data cannot tell (an empty side,
 * no variance). */
#ifndef FLAMEBPF_STATS_H
#define FLAMEBPF_STATS_H

#include <stddef.h>
#include <stdint.h>

/* P(Z > z) for a standard normal Z. */
double stats__norm_sf(double z);

/* Two-proportion z-test (pooled): x1 of n1 against x2 of n2. */
double stats__prop_greater(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2);

/* Two Poisson counts over the same exposure: x2 ~ Binomial(x1 + x2, 1/2)
 * under equal rates, with a continuity correction. */
double stats__poisson_greater(uint64_t x1, uint64_t x2);

/* Mann-Whitney U: whether values b tend to be larger than values a. Ties
 * get their mean rank and shrink the variance. Sorts a and b in place. */
double stats__mwu_greater(uint64_t *a, size_t na, uint64_t *b, size_t nb);

/* Means of n1 and n2 positive durations whose spread is not known: a
 * z-test on the log of their ratio assuming a coefficient of variation of
 * 1 (exponential-like durations), so SE(ln mean) = 1 / sqrt(n). */
double stats__mean_greater(double mean1, uint64_t n1, double mean2, uint64_t n2);

#endif
