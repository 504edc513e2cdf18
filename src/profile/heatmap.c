// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "heatmap.h"

#define NS_PER_SEC 1000000000ULL

static enum heatmap_what what_of(const struct profile *p)
{
	if (profile__meta(p)->alloc)
		return HEAT_BYTES;
	if (profile__unit(p) == UNIT_SAMPLES)
		return profile__meta(p)->period ? HEAT_COUNTED : HEAT_SAMPLES;
	return profile__is_offcpu(p) ? HEAT_NS : HEAT_CALLS;
}

/* Saturates: a hostile file's ts + dur must not wrap to before its ts. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The span of the events: [*t0, *end). */
static void span_of(const struct profile *p, enum heatmap_what what, uint64_t *t0, uint64_t *end)
{
	*t0 = UINT64_MAX;
	*end = 0;
	for (size_t i = 0; i < profile__nr_events(p); i++) {
		const struct profile_event *e = profile__event(p, i);
		uint64_t from = profile__event_from(p, e);
		uint64_t to = sat_add(from, what == HEAT_NS ? e->dur : 1);

		if (from < *t0)
			*t0 = from;
		if (to > *end)
			*end = to;
	}
}

static uint64_t *cell_at(struct heatmap *h, uint64_t ns)
{
	uint64_t col = ns / NS_PER_SEC, row = ns % NS_PER_SEC * h->nrows / NS_PER_SEC;

	return &h->cells[col * h->nrows + row];
}

/* Time within the capture [from, to) into the cells it crosses. */
static void spread(struct heatmap *h, uint64_t from, uint64_t to)
{
	uint64_t slice = NS_PER_SEC / h->nrows;

	while (from < to) {
		/* the end of from's cell: rows need not divide a second evenly */
		uint64_t col = from / NS_PER_SEC, row = from % NS_PER_SEC * h->nrows / NS_PER_SEC;
		uint64_t end = col * NS_PER_SEC + (row + 1) * NS_PER_SEC / h->nrows;

		if (end <= from)
			end = from + slice;
		if (end > to)
			end = to;
		*cell_at(h, from) += end - from;
		from = end;
	}
}

int heatmap__build(const struct profile *p, uint32_t rows, struct heatmap *h)
{
	uint64_t t0, end, cols;

	*h = (struct heatmap){ .nrows = rows,
			       .what = what_of(p),
			       .counted = profile__meta(p)->event };
	if (!profile__nr_events(p))
		return -ENODATA;
	if (rows < 1 || rows > HEATMAP_MAX_ROWS)
		return -EINVAL;
	span_of(p, h->what, &t0, &end);
	/* the capture's start, when known: a program that sleeps first starts
	 * on the right of the map, as it ran */
	if (profile__meta(p)->start_ns && profile__meta(p)->start_ns <= t0)
		t0 = profile__meta(p)->start_ns;
	cols = (end - t0) / NS_PER_SEC + ((end - t0) % NS_PER_SEC != 0);
	if (cols > HEATMAP_MAX_COLS)
		return -E2BIG;
	h->t0 = t0;
	h->ncols = cols ? cols : 1;
	h->cells = calloc((size_t)h->ncols * rows, sizeof(*h->cells));
	if (!h->cells)
		return -ENOMEM;
	for (size_t i = 0; i < profile__nr_events(p); i++) {
		const struct profile_event *e = profile__event(p, i);
		uint64_t from = profile__event_from(p, e);
		uint64_t *cell = cell_at(h, from - t0);

		/* time (--off-cpu, --wall) from when it began */
		if (h->what == HEAT_NS)
			spread(h, from - t0, sat_add(from, e->dur) - t0);
		else if (h->what == HEAT_BYTES)
			*cell = sat_add(*cell, e->weight);
		else if (h->what == HEAT_COUNTED) /* a sample stands for period events */
			*cell = sat_add(*cell, e->weight ? e->weight : profile__meta(p)->period);
		else
			*cell += 1;
	}
	for (size_t i = 0; i < (size_t)h->ncols * rows; i++)
		if (h->cells[i] > h->max)
			h->max = h->cells[i];
	return 0;
}

void heatmap__free(struct heatmap *h)
{
	free(h->cells);
	h->cells = NULL;
}
