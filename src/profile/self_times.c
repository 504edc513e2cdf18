// SPDX-License-Identifier: GPL-2.0
/* Traced calls' self times, from their events: what the HTML report
 * weighs a range by, and a perf script record's period. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "self_times.h"

static bool same_thread(const struct profile *p, size_t a, size_t b)
{
	const struct stack_owner *x = &profile__stack(p, profile__event(p, a)->stack)->who;
	const struct stack_owner *y = &profile__stack(p, profile__event(p, b)->stack)->who;

	return x->pid == y->pid && x->tid == y->tid;
}

static uint64_t end_of(const struct profile *p, size_t i)
{
	return profile__event(p, i)->ts + profile__event(p, i)->dur;
}

/* Takes call i's time, up to its parent's end, from its parent's self time. */
static void charge_parent(const struct profile *p, uint64_t *self, size_t parent, size_t i)
{
	uint64_t to = end_of(p, i) < end_of(p, parent) ? end_of(p, i) : end_of(p, parent);
	uint64_t d = to - profile__event(p, i)->ts;

	self[parent] -= d < self[parent] ? d : self[parent];
}

int profile__self_times(const struct profile *p, uint64_t *self)
{
	size_t n = profile__nr_events(p), *order = NULL, *open, depth = 0;
	int err = profile__events_in_order(p, &order);

	open = err ? NULL : malloc((n ? n : 1) * sizeof(*open));
	if (!open) {
		free(order);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];

		if (k && !same_thread(p, order[k - 1], i))
			depth = 0;
		while (depth && end_of(p, open[depth - 1]) <= profile__event(p, i)->ts)
			depth--;
		self[i] = profile__event(p, i)->dur;
		if (depth)
			charge_parent(p, self, open[depth - 1], i);
		open[depth++] = i;
	}
	free(open);
	free(order);
	return 0;
}
