/* The kernel's record of every executable mapping as it is made (perf's
 * PERF_RECORD_MMAP2, from a dummy software event on each CPU), so that a
 * process that exits before its /proc/PID/maps is read is still named: a
 * compiler run by a build lives a few milliseconds. */
#ifndef FLAMEBPF_MMAP_EVENTS_H
#define FLAMEBPF_MMAP_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/procs.h"

struct mmap_events;

struct mmap_events_stats {
	uint64_t mappings;  /* executable mappings recorded */
	uint64_t lost;	    /* records the kernel could not write (ring full) */
	uint64_t forgotten; /* of those, let go when their process exited unsampled */
};

/* Whether the mappings of pid matter to the capture (the kernel records
 * those of every process). */
typedef bool (*mmap_events_keep)(pid_t pid, void *arg);

/* Opens the recording on every CPU, feeding ps (which must outlive it) with
 * the mappings of the processes keep accepts (NULL: all). Returns 0 or
 * -errno. */
int mmap_events__open(struct mmap_events **out, struct procs *ps, mmap_events_keep keep, void *arg);

/* Moves the records made so far into ps; mapped (if not NULL) is told
 * each process that mapped code, once for each mapping. The mappings of a
 * process whose exit a drain saw are let go at the next one unless it had
 * a sample by then (procs__note_sampled): the caller reads the samples'
 * events between two drains. Beside a build, thousands of processes a
 * minute live too briefly to be sampled, and their mappings filled the
 * record's bound (25 MiB) within an interval. */
void mmap_events__drain(struct mmap_events *m, void (*mapped)(pid_t pid, void *arg), void *arg);

void mmap_events__stats(const struct mmap_events *m, struct mmap_events_stats *st);

void mmap_events__free(struct mmap_events *m);

#endif
