/* The text `perf script` prints: one record per event (sample or call), a
 * header line, tab-led frame lines leaf first, a blank line after each. */
#ifndef FLAMEBPF_OUT_PERF_H
#define FLAMEBPF_OUT_PERF_H

#include <stdio.h>

#include "profile/profile.h"
#include "sink.h"

/* The event of uprobe mode's records: every traced call, its function the
 * record's leaf. Before, each function was its own "uprobe:FUNC", which a
 * reader of perf script reads as events not to mix; such a file's
 * "uprobe:" events are still read together (in_perf.c). */
#define PERF_CALL_EVENT	       "uprobe:calls"
#define PERF_CALL_EVENT_PREFIX "uprobe:"

/* Returns 0, -ENOMEM, or -EIO when writing failed. */
int perf__write(const struct profile *p, const struct write_opts *o, FILE *f);

#endif
