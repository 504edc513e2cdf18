/* Open-addressing hash map from u64 keys to u64 values. */
#ifndef FLAMEBPF_HASHMAP_H
#define FLAMEBPF_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t cap; /* a power of two, or 0 */
	size_t n;
};

/* Returns 0 or -ENOMEM. Replaces the value of an existing key. */
int hashmap__set(struct hashmap *m, uint64_t key, uint64_t val);
bool hashmap__get(const struct hashmap *m, uint64_t key, uint64_t *val);
void hashmap__free(struct hashmap *m);

/* A 64-bit hash of bytes, and a finaliser for combining integers. */
uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t hash_mix(uint64_t x);

#endif
