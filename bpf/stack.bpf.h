/* SPDX-License-Identifier: GPL-2.0 */
/* Stack ids by content, shared by the BPF programs that send stacks. */
#ifndef FLAMEBPF_STACK_BPF_H
#define FLAMEBPF_STACK_BPF_H

#include "sample.h"

/* A 64-bit hash of the stack's instruction pointers; never one of the
 * reserved ids. */
static __always_inline __u64 hash_ips(const struct sample_stack_event *st)
{
	__u64 h = 0x9e3779b97f4a7c15ULL ^ st->nr;

	for (int i = 0; i < SAMPLE_MAX_DEPTH; i++) {
		if (i >= st->nr)
			break;
		h = (h ^ st->ip[i]) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return h < STACK_ID_FIRST ? h + STACK_ID_FIRST : h;
}

#endif
