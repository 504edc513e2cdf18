// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "sample.h"
#include "stack_table.h"

static bool same(const struct raw_stack *s, const uint64_t *ip, uint32_t nr)
{
	return s->nr == nr && !memcmp(s->ip, ip, nr * sizeof(*ip));
}

int stack_table__add(struct stack_table *t, uint64_t id, const uint64_t *ip, uint32_t nr)
{
	/* sent again (its id taken off the sent map, or forgotten by that
	 * LRU): a sample uses it now */
	const struct raw_stack *old = stack_table__use(t, id);
	struct raw_stack *v, s = { .nr = nr, .used = t->age, .id = id };

	if (old) {
		t->collisions += !same(old, ip, nr);
		return 0;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;

		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	s.ip = malloc((nr ? nr : 1) * sizeof(*ip));
	if (!s.ip)
		return -ENOMEM;
	memcpy(s.ip, ip, nr * sizeof(*ip));
	if (hashmap__set(&t->idx, id, t->n)) {
		free(s.ip);
		return -ENOMEM;
	}
	t->v[t->n++] = s;
	return 0;
}

int stack_table__add_event(struct stack_table *t, const void *data, size_t size)
{
	const struct sample_stack_event *ev = data;
	size_t head = offsetof(struct sample_stack_event, ip);

	if (size < head || ev->nr > SAMPLE_MAX_DEPTH || size < head + ev->nr * sizeof(__u64))
		return 0;
	return stack_table__add(t, ev->id, (const uint64_t *)ev->ip, ev->nr);
}

const struct raw_stack *stack_table__find(const struct stack_table *t, uint64_t id)
{
	uint64_t i;

	return hashmap__get(&t->idx, id, &i) ? &t->v[i] : NULL;
}

const struct raw_stack *stack_table__use(struct stack_table *t, uint64_t id)
{
	uint64_t i;

	if (!hashmap__get(&t->idx, id, &i))
		return NULL;
	t->v[i].used = t->age;
	t->v[i].unsent = false;
	return &t->v[i];
}

/* Rebuilds the index of the stacks that stay (the map cannot delete); one
 * it fails to take is found no more, as if freed. */
static size_t compact(struct stack_table *t, const bool *drop)
{
	size_t n = 0, gone;

	hashmap__free(&t->idx);
	for (size_t i = 0; i < t->n; i++) {
		if (drop[i]) {
			free(t->v[i].ip);
			continue;
		}
		t->v[n] = t->v[i];
		hashmap__set(&t->idx, t->v[n].id, n);
		n++;
	}
	gone = t->n - n;
	t->n = n;
	return gone;
}

size_t stack_table__evict(struct stack_table *t, uint32_t ages,
			  void (*unsend)(uint64_t id, void *arg), void *arg)
{
	bool *drop = calloc(t->n ? t->n : 1, sizeof(*drop)), any = false;
	size_t gone = 0;

	if (!drop)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		struct raw_stack *s = &t->v[i];

		if (t->age - s->used < ages)
			continue;
		if (s->unsent) {
			drop[i] = any = true;
		} else {
			unsend(s->id, arg);
			s->unsent = true;
		}
	}
	if (any)
		gone = compact(t, drop);
	free(drop);
	t->age++;
	return gone;
}

void stack_table__free(struct stack_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].ip);
	free(t->v);
	hashmap__free(&t->idx);
	memset(t, 0, sizeof(*t));
}
