/* A subsecond-offset heatmap of a profile's events, as FlameScope draws
 * them: a column per second of the capture, each cut into rows (slices of
 * the second), each cell what happened in it. */
#ifndef FLAMEBPF_HEATMAP_H
#define FLAMEBPF_HEATMAP_H

#include <stdint.h>

#include "profile.h"

#define HEATMAP_MAX_COLS 86400 /* a day */
#define HEATMAP_MAX_ROWS 1000  /* 1 ms slices */

/* What a cell holds. */
enum heatmap_what {
	HEAT_SAMPLES, /* samples taken in it */
	HEAT_CALLS,   /* traced calls begun in it */
	HEAT_NS,      /* time off the CPU (and, with --wall, on it) within it */
	HEAT_BYTES,   /* bytes allocated in it (--alloc) */
	HEAT_COUNTED, /* a counted event's events, or a tracepoint's values, in it */
};

struct heatmap {
	uint64_t t0; /* ns, CLOCK_MONOTONIC: column 0's; the capture's start, else the first event's
		      */
	uint32_t ncols, nrows; /* seconds; slices of each */
	enum heatmap_what what;
	const char *counted; /* HEAT_COUNTED: what (the event: "page-faults") */
	uint64_t *cells;     /* cells[col * nrows + row] */
	uint64_t max;	     /* the largest cell */
};

/* Bins p's events into rows slices of a second (1 to HEATMAP_MAX_ROWS).
 * Returns 0, -ENODATA when p has no events, -E2BIG when they span more
 * than HEATMAP_MAX_COLS seconds, or -ENOMEM. */
int heatmap__build(const struct profile *p, uint32_t rows, struct heatmap *h);

void heatmap__free(struct heatmap *h);

#endif
