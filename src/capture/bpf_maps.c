// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

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
