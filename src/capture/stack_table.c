// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
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
	const struct raw_stack *old = stack_table__find(t, id);
	struct raw_stack *v, s = { nr, NULL };

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

void stack_table__free(struct stack_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].ip);
	free(t->v);
	hashmap__free(&t->idx);
	memset(t, 0, sizeof(*t));
}
