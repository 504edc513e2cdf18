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

#endif
