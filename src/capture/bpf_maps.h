/* Reading BPF maps from user space. */
#ifndef FLAMEBPF_BPF_MAPS_H
#define FLAMEBPF_BPF_MAPS_H

#include <stddef.h>
#include <stdint.h>

typedef int (*bpf_maps_fn)(void *arg, const void *key, const void *val);

/* Calls fn on each entry of the hash map fd (keys and values of the sizes
 * given) until it returns nonzero, read in batches of thousands (a key at
 * a time where the map has no batch operations). Returns fn's nonzero
 * value, 0, or -errno. */
int bpf_maps__each(int fd, size_t key_size, size_t val_size, bpf_maps_fn fn, void *arg);

/* Sums each of the first n slots of a per-CPU array over ncpus CPUs into
 * out[]. Returns 0 or -ENOMEM. */
int bpf_maps__sum_percpu(int fd, uint32_t n, int ncpus, uint64_t *out);

/* The smallest power of two >= v (ring buffer sizes). */
uint32_t bpf_maps__pow2(uint32_t v);

/* v clamped to [lo, hi]. */
uint32_t bpf_maps__clamp(double v, uint32_t lo, uint32_t hi);

#endif
