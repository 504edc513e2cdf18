/* Open-addressing hash map from u64 keys to u64 values. */
#ifndef FLAMEBPF_HASHMAP_H
#define FLAMEBPF_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
	uint64_t key; /* 0: empty (key 0 itself is kept in the map) */
	uint64_t val;
};

struct hashmap {
	struct hashmap_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t n;   /* keys, key 0 included */
	bool has_zero;
	uint64_t zero_val;
};

/* Returns 0 or -ENOMEM. Replaces the value of an existing key. */
int hashmap__set(struct hashmap *m, uint64_t key, uint64_t val);
bool hashmap__get(const struct hashmap *m, uint64_t key, uint64_t *val);
/* Starts loading the slot of key into the cache, for a get soon after. */
void hashmap__prefetch(const struct hashmap *m, uint64_t key);
void hashmap__free(struct hashmap *m);

/* A 64-bit hash of bytes, and a finaliser for combining integers. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t hash_mix(uint64_t x);

#endif
