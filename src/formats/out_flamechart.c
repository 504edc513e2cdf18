// SPDX-License-Identifier: GPL-2.0
/* Folded lines in time order (--flamechart), from the profile's events:
 * calls split into self-time stretches, samples in runs of identical stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "out_folded.h"

struct open_call {
	size_t ev;
	uint64_t cursor; /* where its next self-time segment starts */
};

struct sweep {
	const struct profile *p;
	const struct write_opts *o;
	FILE *f;
	struct strbuf line;
	struct open_call *open;
	size_t depth;
};

static uint64_t end_of(const struct profile_event *e)
{
	return e->ts + e->dur;
}

static int emit(struct sweep *sw, const struct profile_event *e, uint64_t from, uint64_t to)
{
	if (to <= from)
		return 0;
	strbuf__reset(&sw->line);
	if (folded__format_stack(sw->p, profile__stack(sw->p, e->stack), sw->o, &sw->line))
		return -ENOMEM;
	return fprintf(sw->f, "%s %" PRIu64 "\n", sw->line.s, to - from) < 0 ? -EIO : 0;
}

/* Closes the innermost open call: its last segment, then its parent resumes. */
static int close_top(struct sweep *sw)
{
	const struct profile_event *e = profile__event(sw->p, sw->open[sw->depth - 1].ev);
	int err = emit(sw, e, sw->open[sw->depth - 1].cursor, end_of(e));

	sw->depth--;
	if (sw->depth && sw->open[sw->depth - 1].cursor < end_of(e))
		sw->open[sw->depth - 1].cursor = end_of(e);
	return err;
}

static int step(struct sweep *sw, size_t ev, bool new_thread)
{
	const struct profile_event *e = profile__event(sw->p, ev);
	int err = 0;

	while (sw->depth && !err &&
	       (new_thread || end_of(profile__event(sw->p, sw->open[sw->depth - 1].ev)) <= e->ts))
		err = close_top(sw);
	if (!err && sw->depth) {
		struct open_call *top = &sw->open[sw->depth - 1];

		err = emit(sw, profile__event(sw->p, top->ev), top->cursor, e->ts);
		if (top->cursor < e->ts)
			top->cursor = e->ts;
	}
	sw->open[sw->depth++] = (struct open_call){ ev, e->ts };
	return err;
}

static bool same_thread(const struct profile *p, size_t a, size_t b)
{
	const struct stack_owner *wa = &profile__stack(p, profile__event(p, a)->stack)->who;
	const struct stack_owner *wb = &profile__stack(p, profile__event(p, b)->stack)->who;

	return wa->pid == wb->pid && wa->tid == wb->tid;
}

static int print_run(FILE *f, const struct strbuf *line, uint64_t n)
{
	return n && fprintf(f, "%s %" PRIu64 "\n", line->s, n) < 0 ? -EIO : 0;
}

/* Samples: one line per run of identical stacks on one thread, the number
 * of samples in the run as its count (an allocation counts its bytes). */
static int write_runs(const struct profile *p, const struct write_opts *o, const size_t *order,
		      size_t n, FILE *f)
{
	struct strbuf prev = {}, cur = {}, tmp;
	uint64_t run = 0, w;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		strbuf__reset(&cur);
		if (folded__format_stack(p, profile__stack(p, profile__event(p, order[i])->stack),
					 o, &cur)) {
			err = -ENOMEM;
			break;
		}
		w = profile__event(p, order[i])->weight ? profile__event(p, order[i])->weight : 1;
		if (run && same_thread(p, order[i - 1], order[i]) && !strcmp(cur.s, prev.s)) {
			run += w;
			continue;
		}
		err = print_run(f, &prev, run);
		tmp = prev;
		prev = cur;
		cur = tmp;
		run = w;
	}
	if (!err)
		err = print_run(f, &prev, run);
	strbuf__free(&prev);
	strbuf__free(&cur);
	return err;
}

int folded__write_flamechart(const struct profile *p, const struct write_opts *o, FILE *f)
{
	size_t n = profile__nr_events(p), *order = NULL;
	struct sweep sw = { p, o, f, {}, NULL, 0 };
	int err = 0;

	if (!n)
		return -ENODATA;
	sw.open = malloc(n * sizeof(*sw.open));
	if (!sw.open || profile__events_in_order(p, &order)) {
		err = -ENOMEM;
		goto out;
	}
	if (profile__unit(p) == UNIT_SAMPLES) {
		err = write_runs(p, o, order, n, f);
		goto out;
	}
	for (size_t i = 0; i < n && !err; i++)
		err = step(&sw, order[i], i && !same_thread(p, order[i - 1], order[i]));
	while (sw.depth && !err)
		err = close_top(&sw);
out:
	strbuf__free(&sw.line);
	free(sw.open);
	free(order);
	return err;
}
