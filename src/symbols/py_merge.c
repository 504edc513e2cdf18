// SPDX-License-Identifier: GPL-2.0
#include <errno.h>

#include "py_merge.h"

/* Where run k starts in py (runs begin at entry frames; the first at 0). */
static size_t run_start(const bool *entry, size_t np, size_t k)
{
	if (!k)
		return 0;
	for (size_t i = 1; i < np; i++)
		if (entry[i] && !--k)
			return i;
	return np;
}

static size_t count_runs(const bool *entry, size_t np)
{
	size_t runs = np ? 1 : 0;

	for (size_t i = 1; i < np; i++)
		runs += entry[i];
	return runs;
}

static int put(uint32_t *out, size_t cap, size_t *n, const uint32_t *v, size_t k)
{
	if (*n + k > cap)
		return -ENOSPC;
	for (size_t i = 0; i < k; i++)
		out[(*n)++] = v[i];
	return 0;
}

int py_merge(const uint32_t *native, const bool *is_eval, size_t nn, const uint32_t *py,
	     const bool *entry, size_t np, uint32_t *out, size_t cap)
{
	size_t runs = count_runs(entry, np), calls = 0, call = 0, n = 0;
	size_t shift;
	int err = 0;

	for (size_t i = 0; i < nn; i++)
		calls += is_eval[i];
	if (!calls)
		err = put(out, cap, &n, py, np);
	shift = runs > calls ? runs - calls : 0;
	for (size_t i = 0; i < nn && !err; i++) {
		size_t lo, hi;

		if (!is_eval[i] || !calls) {
			err = put(out, cap, &n, &native[i], 1);
			continue;
		}
		/* runs [lo, hi] of this call; none: it stays as it is */
		lo = call ? call + shift : 0;
		hi = call + shift;
		call++;
		if (lo >= runs) {
			err = put(out, cap, &n, &native[i], 1);
			continue;
		}
		lo = run_start(entry, np, lo);
		hi = run_start(entry, np, hi + 1);
		err = put(out, cap, &n, &py[lo], hi - lo);
	}
	return err ? err : (int)n;
}
