/* The differential half of the HTML report's data (flamebpf diff -o
 * diff.html): the page draws the new profile's tree coloured by each
 * path's change in share against the base, as the differential SVG
 * colours it, and shows diff's table, regressions first. Written as the
 * data object's member "diff":
 *
 *   base, new    the files compared
 *   totals       [base weight, new weight]
 *   basew        per node of the tree: the same path's weight in the base,
 *                -1 where the base has no such path
 *   rgb          per node: its colour (0xRRGGBB) by the change
 *   absolute, threshold, test   how the table was made (diff.h)
 *   funcs        per function, in the table's order: [name, base incl %,
 *                new incl %, change (null: new to the profile, with
 *                --absolute), p, status in words, may fail (0/1)] */
#ifndef FLAMEBPF_HTML_DIFF_H
#define FLAMEBPF_HTML_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "profile/diff.h"
#include "profile/profile.h"

#define HTML_DIFF_ABSENT UINT64_MAX /* a path the base does not have */

/* What diff gives the page. */
struct html_diff {
	const struct profile *base;
	const struct diff_result *r;
	const struct diff_opts *o;
	const char *base_name, *new_name;
};

/* The tree of the new profile with both weights of each node. */
struct html_diff_nodes {
	size_t n;
	const uint64_t *new_w, *base_w; /* base_w: HTML_DIFF_ABSENT where none */
	uint64_t new_total, base_total;
};

/* Writes ",\"diff\":{...}". Returns 0 or -EIO. */
int html_diff__write(const struct html_diff *d, const struct html_diff_nodes *t, FILE *f);

#endif
