/* Reading BPF maps from user space. */
#ifndef FLAMEBPF_BPF_MAPS_H
#define FLAMEBPF_BPF_MAPS_H

#include <stdint.h>

/* Sums each of the first n slots of a per-CPU array over ncpus CPUs into
 * out[]. Returns 0 or -ENOMEM. */
int bpf_maps__sum_percpu(int fd, uint32_t n, int ncpus, uint64_t *out);

/* The smallest power of two >= v (ring buffer sizes). */
uint32_t bpf_maps__pow2(uint32_t v);

/* v clamped to [lo, hi]. */
uint32_t bpf_maps__clamp(double v, uint32_t lo, uint32_t hi);

#endif
