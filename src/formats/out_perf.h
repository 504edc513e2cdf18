/* The text `perf script` prints: one record per event (sample or call), a
 * header line, tab-led frame lines leaf first, a blank line after each. */
#ifndef FLAMEBPF_OUT_PERF_H
#define FLAMEBPF_OUT_PERF_H

#include <stdio.h>

#include "profile/profile.h"
#include "sink.h"

/* Returns 0, -ENOMEM, or -EIO when writing failed. */
int perf__write(const struct profile *p, const struct write_opts *o, FILE *f);

#endif
