// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "mem_hint.h"

uint64_t hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t load64(const unsigned char *b)
{
	uint64_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

/* Eight bytes a step (symbol names and stacks are hashed by the million in
 * a large render); the tail is packed into one last word with its length. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ seed ^ (n * 0xff51afd7ed558ccdULL), tail = 0;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		h ^= load64(b + i) * 0x87c37b91114253d5ULL;
		h = ((h << 31) | (h >> 33)) * 0x4cf5ad432745937fULL;
	}
	for (size_t k = 0; i + k < n; k++)
		tail |= (uint64_t)b[i + k] << (8 * k);
	h ^= tail * 0x87c37b91114253d5ULL;
	return hash_mix(h);
}

/* Key 0 lives beside the table, so that 0 can mark an empty slot: one
 * cache line per probe holds both key and value. */
static size_t slot_of(const struct hashmap *m, uint64_t key)
{
	size_t i = hash_mix(key) & (m->cap - 1);

	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int grow(struct hashmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct hashmap_slot *old = m->slots, *slots = calloc(cap, sizeof(*slots));
	size_t old_cap = m->cap;

	if (!slots)
		return -ENOMEM;
	mem_hint__huge(slots, cap * sizeof(*slots));
	m->slots = slots;
	m->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].key)
			m->slots[slot_of(m, old[i].key)] = old[i];
	free(old);
	return 0;
}

int hashmap__set(struct hashmap *m, uint64_t key, uint64_t val)
{
	size_t i;

	if (!key) {
		m->n += !m->has_zero;
		m->has_zero = true;
		m->zero_val = val;
		return 0;
	}
	/* keep the load factor under 1/2 */
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -ENOMEM;
	i = slot_of(m, key);
	if (!m->slots[i].key) {
		m->slots[i].key = key;
		m->n++;
	}
	m->slots[i].val = val;
	return 0;
}

bool hashmap__get(const struct hashmap *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (!key) {
		if (m->has_zero)
			*val = m->zero_val;
		return m->has_zero;
	}
	if (!m->cap)
		return false;
	i = slot_of(m, key);
	if (!m->slots[i].key)
		return false;
	*val = m->slots[i].val;
	return true;
}

void hashmap__prefetch(const struct hashmap *m, uint64_t key)
{
	if (m->cap)
		__builtin_prefetch(&m->slots[hash_mix(key) & (m->cap - 1)]);
}

void hashmap__free(struct hashmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
