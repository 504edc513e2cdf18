// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

uint64_t hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return hash_mix(h);
}

static size_t slot_of(const struct hashmap *m, uint64_t key)
{
	size_t i = hash_mix(key) & (m->cap - 1);

	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int grow(struct hashmap *m)
{
	struct hashmap bigger = { .cap = m->cap ? m->cap * 2 : 64 };

	bigger.keys = malloc(bigger.cap * sizeof(*bigger.keys));
	bigger.vals = malloc(bigger.cap * sizeof(*bigger.vals));
	bigger.used = calloc(bigger.cap, 1);
	if (!bigger.keys || !bigger.vals || !bigger.used) {
		hashmap__free(&bigger);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		size_t j = slot_of(&bigger, m->keys[i]);

		bigger.used[j] = 1;
		bigger.keys[j] = m->keys[i];
		bigger.vals[j] = m->vals[i];
	}
	bigger.n = m->n;
	hashmap__free(m);
	*m = bigger;
	return 0;
}

int hashmap__set(struct hashmap *m, uint64_t key, uint64_t val)
{
	size_t i;

	/* keep the load factor under 1/2 */
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -ENOMEM;
	i = slot_of(m, key);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}

bool hashmap__get(const struct hashmap *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (!m->cap)
		return false;
	i = slot_of(m, key);
	if (!m->used[i])
		return false;
	*val = m->vals[i];
	return true;
}

void hashmap__free(struct hashmap *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}
