// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strpool.h"

struct pooled {
	size_t refs;
	bool in_map; /* else a text whose hash another took: freed when let go */
	char s[];
};

static struct pooled *entry_of(const char *s)
{
	return (struct pooled *)(void *)(s - offsetof(struct pooled, s));
}

static uint64_t key_of(const char *s, size_t len)
{
	uint64_t k = hash_bytes(s, len, 0);

	return k ? k : 1; /* 0 is the map's empty slot */
}

static struct pooled *pooled_new(const char *s, size_t len)
{
	struct pooled *e = malloc(sizeof(*e) + len + 1);

	if (e) {
		e->refs = 1;
		e->in_map = false;
		memcpy(e->s, s, len + 1);
	}
	return e;
}

const char *strpool__get(struct strpool *p, const char *s)
{
	size_t len = strlen(s);
	uint64_t key = key_of(s, len), v;
	struct pooled *e;

	if (hashmap__get(&p->by_hash, key, &v)) {
		e = (struct pooled *)(uintptr_t)v;
		if (!strcmp(e->s, s)) {
			p->held += !e->refs++;
			return e->s;
		}
		/* another text with its hash: not shared */
		e = pooled_new(s, len);
		return e ? e->s : NULL;
	}
	e = pooled_new(s, len);
	if (!e)
		return NULL;
	if (hashmap__set(&p->by_hash, key, (uintptr_t)e)) {
		free(e);
		return NULL;
	}
	e->in_map = true;
	p->held++;
	return e->s;
}

void strpool__put(struct strpool *p, const char *s)
{
	struct pooled *e;

	if (!s)
		return;
	e = entry_of(s);
	if (--e->refs)
		return;
	if (!e->in_map)
		free(e);
	else
		p->held--;
}

int strpool__trim(struct strpool *p)
{
	struct hashmap kept = { 0 };
	const struct hashmap_slot *sl = p->by_hash.slots;

	if (p->held == p->by_hash.n)
		return 0;
	for (size_t i = 0; i < p->by_hash.cap; i++) {
		struct pooled *e = (struct pooled *)(uintptr_t)sl[i].val;

		if (!sl[i].key || !e->refs)
			continue;
		if (hashmap__set(&kept, sl[i].key, sl[i].val)) {
			hashmap__free(&kept);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < p->by_hash.cap; i++)
		if (sl[i].key && !((struct pooled *)(uintptr_t)sl[i].val)->refs)
			free((void *)(uintptr_t)sl[i].val);
	hashmap__free(&p->by_hash);
	p->by_hash = kept;
	return 0;
}

void strpool__free(struct strpool *p)
{
	const struct hashmap_slot *sl = p->by_hash.slots;

	for (size_t i = 0; i < p->by_hash.cap; i++)
		if (sl[i].key)
			free((void *)(uintptr_t)sl[i].val);
	hashmap__free(&p->by_hash);
	p->held = 0;
}
