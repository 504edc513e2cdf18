/* The kernel's record of every executable mapping as it is made (perf's
 * PERF_RECORD_MMAP2, from a dummy software event on each CPU), so that a
 * process that exits before its /proc/PID/maps is read is still named: a
 * compiler run by a build lives a few milliseconds. */
#ifndef FLAMEBPF_MMAP_EVENTS_H
#define FLAMEBPF_MMAP_EVENTS_H

#include <stdint.h>

#include "procs.h"

struct mmap_events;

struct mmap_events_stats {
	uint64_t mappings; /* executable mappings recorded */
	uint64_t lost;	   /* records the kernel could not write (ring full) */
};

/* Opens the recording on every CPU, feeding ps (which must outlive it).
 * Returns 0 or -errno. */
int mmap_events__open(struct mmap_events **out, struct procs *ps);

/* Moves the records made so far into ps. */
void mmap_events__drain(struct mmap_events *m);

void mmap_events__stats(const struct mmap_events *m, struct mmap_events_stats *st);

void mmap_events__free(struct mmap_events *m);

#endif
