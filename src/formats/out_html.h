/* The HTML report: one self-contained page (no network) with the
 * subsecond heatmap of the capture, the flame graph of a selected time
 * range, the table of functions and the capture's metadata. */
#ifndef FLAMEBPF_OUT_HTML_H
#define FLAMEBPF_OUT_HTML_H

#include <stdio.h>

#include "profile/profile.h"
#include "sink.h"

/* Writes the page: the profile's data (html_data.h) and the script and
 * style of src/formats/html/. Returns 0, -ENOMEM, or -EIO when writing
 * failed (sink__write() gives -ENODATA for a profile without events). */
int html__write(const struct profile *p, const struct write_opts *o, FILE *f);

struct html_diff;

/* The differential page of flamebpf diff: the new profile coloured by its
 * change against the base, and diff's table (html_diff.h). Returns 0,
 * -ENOMEM, -ENODATA (a profile that weighs nothing) or -EIO. */
int html__write_diff(const struct profile *new, const struct html_diff *diff,
		     const struct write_opts *o, FILE *f);

#endif
