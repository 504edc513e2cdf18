/* SPDX-License-Identifier: GPL-2.0 */
/* Stacks sent to user space by content id, shared by the BPF programs that
 * take stacks. The includer defines, before including it, the maps scratch
 * (a per-CPU array of one struct sample_stack_event), sent (an LRU hash of
 * the ids already sent) and events (the ring buffer), and count(counter). */
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

/* Takes the stack (bpf_get_stack() flags) and returns its id, STACK_ID_NONE
 * when empty, STACK_ID_LOST when it could not be read (err_counter) or
 * sent (drop_counter). A stack user space has not had yet goes through the
 * ring buffer as a record of the given type, without a wakeup: user space
 * drains it on its own clock. */
static __always_inline __u64 take_stack(void *ctx, __u64 flags, __u32 type, __u32 err_counter,
					__u32 drop_counter)
{
	__u32 zero = 0, nr;
	struct sample_stack_event *st = bpf_map_lookup_elem(&scratch, &zero);
	__u8 one = 1;
	long n;
	__u64 id;

	if (!st)
		return STACK_ID_LOST;
	n = bpf_get_stack(ctx, st->ip, sizeof(st->ip), flags);
	if (n < 0) {
		count(err_counter);
		return STACK_ID_LOST;
	}
	nr = n / sizeof(__u64);
	if (nr > SAMPLE_MAX_DEPTH)
		nr = SAMPLE_MAX_DEPTH;
	if (!nr)
		return STACK_ID_NONE;
	st->nr = nr;
	id = hash_ips(st);
	if (bpf_map_lookup_elem(&sent, &id))
		return id;
	st->type = type;
	st->id = id;
	if (bpf_ringbuf_output(&events, st, offsetof(struct sample_stack_event, ip) + nr * 8,
			       BPF_RB_NO_WAKEUP)) {
		count(drop_counter);
		return STACK_ID_LOST;
	}
	bpf_map_update_elem(&sent, &id, &one, BPF_ANY);
	return id;
}

#endif
