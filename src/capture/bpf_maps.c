// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "bpf_maps.h"

int bpf_maps__sum_percpu(int fd, uint32_t n, int ncpus, uint64_t *out)
{
	__u64 *vals = calloc(ncpus > 0 ? ncpus : 1, sizeof(*vals));

	if (!vals)
		return -ENOMEM;
	for (__u32 i = 0; i < n; i++) {
		out[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (int cpu = 0; cpu < ncpus; cpu++)
			out[i] += vals[cpu];
	}
	free(vals);
	return 0;
}

uint32_t bpf_maps__pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

uint32_t bpf_maps__clamp(double v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

/* One key at a time: maps without batch operations. */
static int each_by_key(int fd, size_t key_size, size_t val_size, bpf_maps_fn fn, void *arg)
{
	char *buf = calloc(1, 2 * key_size + val_size), *key = buf, *next, *val;
	bool first = true;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	next = key + key_size;
	val = next + key_size;
	while (!err && !bpf_map_get_next_key(fd, first ? NULL : key, next)) {
		first = false;
		memcpy(key, next, key_size);
		if (!bpf_map_lookup_elem(fd, key, val))
			err = fn(arg, key, val);
	}
	free(buf);
	return err;
}

#define BATCH 4096 /* entries a lookup_batch call: a few syscalls for a full map */

int bpf_maps__each(int fd, size_t key_size, size_t val_size, bpf_maps_fn fn, void *arg)
{
	/* zeroed: valgrind does not know that the batch lookup fills them */
	char *keys = calloc(BATCH, key_size + val_size), *vals, *token = calloc(1, key_size);
	bool first = true, done = false;
	int err = 0;

	if (!keys || !token) {
		free(keys);
		free(token);
		return -ENOMEM;
	}
	vals = keys + BATCH * key_size;
	while (!err && !done) {
		__u32 n = BATCH;

		if (bpf_map_lookup_batch(fd, first ? NULL : token, token, keys, vals, &n, NULL)) {
			if (errno != ENOENT && first) {
				err = each_by_key(fd, key_size, val_size, fn, arg);
				break;
			}
			if (errno != ENOENT) {
				err = -errno;
				break;
			}
			done = true;
		}
		first = false;
		for (__u32 i = 0; i < n && !err; i++)
			err = fn(arg, keys + i * key_size, vals + i * val_size);
	}
	free(keys);
	free(token);
	return err;
}
