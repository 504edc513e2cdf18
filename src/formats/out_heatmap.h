/* The subsecond-offset heatmap of a capture as an SVG image (--heatmap). */
#ifndef FLAMEBPF_OUT_HEATMAP_H
#define FLAMEBPF_OUT_HEATMAP_H

#include <stdio.h>

#include "profile/profile.h"
#include "sink.h"

/* Writes p's events binned into o->heatmap_rows slices of each second.
 * Returns 0; -ENODATA when p has no events; -E2BIG when they span more
 * than a day; -EINVAL for a bad number of rows; -ENOMEM; -EIO. */
int heatmap__write_svg(const struct profile *p, const struct write_opts *o, FILE *f);

#endif
