// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "util/hashmap.h"
#include "top.h"

struct owner {
	uint64_t key, weight;
};

/* A process by its pid, a thread by its pid and tid; records without a
 * pid (perf script's COMM-?) by their name, interned, so one pointer each.
 * Never 0: the hashmap's empty slot. */
static uint64_t owner_key(const struct stack_owner *w, bool by_thread)
{
	/* folded input has no pid (0), perf's TID-only lines an unknown one */
	if (!w->pid || w->pid == PROFILE_PID_UNKNOWN)
		return (uintptr_t)w->comm | 1ULL << 63;
	return by_thread ? (uint64_t)w->pid << 32 | w->tid : w->pid;
}

/* Heaviest first; of equal weights, the lower id. */
static int by_weight(const void *a, const void *b)
{
	const struct owner *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Each owner's weight, into a sorted array. */
static int rank(const struct profile *p, bool by_thread, struct owner **out, size_t *n)
{
	struct hashmap w = {};
	struct owner *v = NULL;
	size_t k = 0;
	int err = 0;

	for (size_t i = 0; i < profile__nr_stacks(p) && !err; i++) {
		const struct profile_stack *s = profile__stack(p, i);
		uint64_t key = owner_key(&s->who, by_thread), sum = 0;

		hashmap__get(&w, key, &sum);
		err = hashmap__set(&w, key, sum + s->weight);
	}
	if (!err && w.n && !(v = malloc(w.n * sizeof(*v))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < w.cap; i++)
		if (w.slots[i].key)
			v[k++] = (struct owner){ w.slots[i].key, w.slots[i].val };
	hashmap__free(&w);
	if (err)
		return err;
	qsort(v, k, sizeof(*v), by_weight);
	*out = v;
	*n = k;
	return 0;
}

struct keep_ctx {
	struct hashmap kept;
	bool by_thread;
};

static bool kept(const struct profile_stack *s, void *arg)
{
	struct keep_ctx *c = arg;
	uint64_t one;

	return hashmap__get(&c->kept, owner_key(&s->who, c->by_thread), &one);
}

int profile__top(const struct profile *src, size_t n, bool by_thread, struct profile **out,
		 struct top_stats *st)
{
	struct keep_ctx c = { .by_thread = by_thread };
	struct profile *dst = NULL;
	size_t nowners = 0;
	struct owner *v = NULL;
	int err = rank(src, by_thread, &v, &nowners);

	*st = (struct top_stats){ .of = nowners, .total = profile__total_weight(src) };
	for (size_t i = 0; i < n && i < nowners && !err; i++) {
		err = hashmap__set(&c.kept, v[i].key, 1);
		st->kept++;
		st->weight += v[i].weight;
	}
	if (!err && !(dst = profile__select(src, kept, &c)))
		err = -errno;
	hashmap__free(&c.kept);
	free(v);
	if (err)
		return err;
	*out = dst;
	return 0;
}
