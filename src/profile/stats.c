// SPDX-License-Identifier: GPL-2.0
/* The significance tests of `flamebpf diff` (see stats.h). */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

double stats__norm_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

double stats__prop_greater(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2)
{
	double p1, p2, pooled, var;

	if (!n1 || !n2)
		return 1;
	p1 = (double)x1 / n1;
	p2 = (double)x2 / n2;
	pooled = (double)(x1 + x2) / (n1 + n2);
	var = pooled * (1 - pooled) * (1.0 / n1 + 1.0 / n2);
	if (var <= 0)
		return 1; /* both 0, or both all: nothing moved */
	return stats__norm_sf((p2 - p1) / sqrt(var));
}

double stats__poisson_greater(uint64_t x1, uint64_t x2)
{
	double n = (double)x1 + x2;

	if (!n)
		return 1;
	return stats__norm_sf(((double)x2 - x1 - 1) / sqrt(n));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The run of values equal to v at *i in the sorted v[]: its length. */
static size_t run_of(const uint64_t *v, size_t n, size_t *i, uint64_t at)
{
	size_t start = *i;

	while (*i < n && v[*i] == at)
		(*i)++;
	return *i - start;
}

/* Walks the two sorted samples as one: the rank sum of b, and the sum of
 * t^3 - t over the groups of t tied values. */
static void rank_b(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, double *rb,
		   double *ties)
{
	size_t i = 0, j = 0;
	double next = 1; /* the rank the next value starts at */

	*rb = *ties = 0;
	while (i < na || j < nb) {
		uint64_t v = j >= nb || (i < na && a[i] < b[j]) ? a[i] : b[j];
		double ta = run_of(a, na, &i, v), tb = run_of(b, nb, &j, v), t = ta + tb;

		*rb += tb * (next + (t - 1) / 2);
		*ties += t * t * t - t;
		next += t;
	}
}

double stats__mwu_greater(uint64_t *a, size_t na, uint64_t *b, size_t nb)
{
	double n = (double)na + nb, rb, ties, u, var;

	if (!na || !nb)
		return 1;
	qsort(a, na, sizeof(*a), cmp_u64);
	qsort(b, nb, sizeof(*b), cmp_u64);
	rank_b(a, na, b, nb, &rb, &ties);
	u = rb - (double)nb * (nb + 1) / 2;
	var = (double)na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
	if (var <= 0)
		return 1; /* every value the same */
	return stats__norm_sf((u - (double)na * nb / 2 - 0.5) / sqrt(var));
}

double stats__mean_greater(double mean1, uint64_t n1, double mean2, uint64_t n2)
{
	if (!n1 || !n2 || mean1 <= 0 || mean2 <= 0)
		return 1;
	return stats__norm_sf(log(mean2 / mean1) / sqrt(1.0 / n1 + 1.0 / n2));
}
