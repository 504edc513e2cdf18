// SPDX-License-Identifier: GPL-2.0
/* The events of the HTML report: sorted by time (ties in the order they
 * were added) and written column by column, the times as deltas, which
 * keeps them short; traced calls get their self time, which the page
 * weighs a range by. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/self_times.h"
#include "html_data.h"
#include "html_events.h"
#include "json_arg.h"
#include "json_u64.h"

static int cmp_ts(const void *a, const void *b, void *arg)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	uint64_t x = profile__event(arg, i)->ts, y = profile__event(arg, j)->ts;

	if (x != y)
		return x < y ? -1 : 1;
	return (i > j) - (i < j);
}

/* One column of the events: what(i) for each, in time order. */
static void put_column(FILE *f, const char *key, const size_t *order, size_t n,
		       uint64_t (*what)(const struct profile *, const uint64_t *, size_t, size_t),
		       const struct profile *p, const uint64_t *self)
{
	fprintf(f, ",\n\"%s\":[", key);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%s%" PRIu64, k ? (k % 32 ? "," : ",\n") : "",
			what(p, self, order[k], k ? order[k - 1] : order[k]));
	fputc(']', f);
}

static uint64_t col_stack(const struct profile *p, const uint64_t *self, size_t i, size_t prev)
{
	(void)self;
	(void)prev;
	return profile__event(p, i)->stack;
}

static uint64_t col_dt(const struct profile *p, const uint64_t *self, size_t i, size_t prev)
{
	(void)self;
	return profile__event(p, i)->ts - profile__event(p, prev)->ts;
}

static uint64_t col_dur(const struct profile *p, const uint64_t *self, size_t i, size_t prev)
{
	(void)self;
	(void)prev;
	return profile__event(p, i)->dur;
}

static uint64_t col_weight(const struct profile *p, const uint64_t *self, size_t i, size_t prev)
{
	(void)self;
	(void)prev;
	return profile__event(p, i)->weight;
}

/* Whether events weigh what they weigh themselves (allocations), not their
 * stack's mean. */
static bool has_weights(const struct profile *p)
{
	for (size_t i = 0; i < profile__nr_events(p); i++)
		if (profile__event(p, i)->weight)
			return true;
	return false;
}

static uint64_t col_self(const struct profile *p, const uint64_t *self, size_t i, size_t prev)
{
	(void)p;
	(void)prev;
	return self[i];
}

/* Whether a traced call's arguments or return are worth a column: the
 * inputs that have none (perf script) leave them all 0. */
static bool has_args(const struct profile *p)
{
	for (size_t i = 0; i < profile__nr_events(p); i++) {
		const struct profile_event *e = profile__event(p, i);

		if (e->args[0] | e->args[1] | e->args[2] | e->ret ||
		    e->flags & PROFILE_EVENT_UNFINISHED)
			return true;
	}
	return false;
}

/* Whether the events are a probe's hits (-f usdt:), each with arguments. */
static bool has_hits(const struct profile *p)
{
	for (size_t i = 0; i < profile__nr_events(p); i++)
		if (profile__event(p, i)->flags & PROFILE_EVENT_INSTANT)
			return true;
	return false;
}

/* Each event's arguments, PROFILE_NARGS values an event, under key; with
 * ret, a call's return after them, null where none came. */
static void put_args(FILE *f, const struct profile *p, const size_t *order, size_t n,
		     const char *key, bool ret)
{
	fprintf(f, ",\n\"%s\":[", key);
	for (size_t k = 0; k < n; k++) {
		const struct profile_event *e = profile__event(p, order[k]);

		fputs(k ? (k % 8 ? "," : ",\n") : "", f);
		for (int a = 0; a < PROFILE_NARGS; a++) {
			if (a)
				fputc(',', f);
			json_arg__put(f, p, e, a, true);
		}
		if (!ret)
			continue;
		fputc(',', f);
		if (e->flags & PROFILE_EVENT_UNFINISHED)
			fputs("null", f);
		else
			json_u64__put(f, e->ret);
	}
	fputc(']', f);
}

int html_events__write(const struct profile *p, FILE *f)
{
	size_t n = profile__nr_events(p), *order = malloc((n ? n : 1) * sizeof(*order));
	bool calls = !strcmp(html_data__mode(p), "trace");
	uint64_t *self = calls ? calloc(n ? n : 1, sizeof(*self)) : NULL;
	int err = !order || (calls && !self) ? -ENOMEM : 0;

	if (!err && calls)
		err = profile__self_times(p, self);
	for (size_t i = 0; i < n && !err; i++)
		order[i] = i;
	if (!err)
		qsort_r(order, n, sizeof(*order), cmp_ts, (void *)p);
	if (!err) {
		uint64_t t0 = n ? profile__event(p, order[0])->ts : 0;
		uint64_t start = profile__meta(p)->start_ns;

		fprintf(f, ",\n\"events\":{\"n\":%zu,\"t0\":\"%" PRIu64 "\"", n, t0);
		/* the capture began before its first event: the heatmap's first
		 * column is the capture's first second, as the SVG's is */
		if (start && start <= t0)
			fprintf(f, ",\"lead\":%" PRIu64, t0 - start);
		put_column(f, "stack", order, n, col_stack, p, self);
		put_column(f, "dt", order, n, col_dt, p, self);
		if (profile__unit(p) == UNIT_NANOSECONDS)
			put_column(f, "dur", order, n, col_dur, p, self);
		if (calls)
			put_column(f, "self", order, n, col_self, p, self);
		if (!calls && has_weights(p))
			put_column(f, "w", order, n, col_weight, p, self);
		if (calls && has_args(p))
			put_args(f, p, order, n, "args", true);
		if (!calls && has_hits(p))
			put_args(f, p, order, n, "hits", false);
		fputc('}', f);
	}
	free(self);
	free(order);
	return err;
}
