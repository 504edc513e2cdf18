/* SPDX-License-Identifier: GPL-2.0 */
/* Stacks sent to user space by content id, shared by the BPF programs that
 * take stacks. The includer defines, before including it, the maps scratch
 * (a per-CPU array of one struct sample_stack_event), sent (an LRU hash of
 * the ids already sent) and events (the ring buffer), and count(counter). */
#ifndef FLAMEBPF_STACK_BPF_H
#define FLAMEBPF_STACK_BPF_H

#include "sample.h"

/* One word into a lane of hash_ips(). */
static __always_inline __u64 hash_mix(__u64 h, __u64 word)
{
	h = (h ^ word) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/* A 64-bit hash of the stack's instruction pointers; never one of the
 * reserved ids. A global function: the verifier checks its loop once, not
 * for every stack taken on every path of its callers (14 k of the
 * sampler's 59 k instructions processed, before). */
__noinline __u64 hash_ips(const struct sample_stack_event *st)
{
	__u64 a, b = 0x2545f4914f6cdd1dULL, c = 0x5851f42d4c957f2dULL, d = 0x14057b7ef767814fULL;
	__u32 nr;

	if (!st)
		return STACK_ID_FIRST;
	nr = st->nr < SAMPLE_MAX_DEPTH ? st->nr : SAMPLE_MAX_DEPTH;
	a = 0x9e3779b97f4a7c15ULL ^ nr;
	/* four lanes: a word's multiply does not wait for the one before it
	 * (a stack of 40 words took 100 ns in one lane here) */
	for (__u32 i = 0; i < SAMPLE_MAX_DEPTH; i += 4) {
		if (i >= nr)
			break;
		a = hash_mix(a, st->ip[i]);
		if (i + 1 < nr)
			b = hash_mix(b, st->ip[i + 1]);
		if (i + 2 < nr)
			c = hash_mix(c, st->ip[i + 2]);
		if (i + 3 < nr)
			d = hash_mix(d, st->ip[i + 3]);
	}
	a = hash_mix(hash_mix(hash_mix(a, b), c), d) * 0xc4ceb9fe1a85ec53ULL;
	a ^= a >> 29;
	return a < STACK_ID_FIRST ? a + STACK_ID_FIRST : a;
}

/* Sends the record in st, its type and id set, of nr frames, to user
 * space without a wakeup: user space drains the ring buffer on its own
 * clock. False when the ring buffer is full (drop_counter). */
static __always_inline bool output_record(const struct sample_stack_event *st, __u32 nr,
					  __u32 drop_counter)
{
	if (bpf_ringbuf_output(&events, (void *)st,
			       offsetof(struct sample_stack_event, ip) + nr * 8,
			       BPF_RB_NO_WAKEUP)) {
		count(drop_counter);
		return false;
	}
	return true;
}

/* output_record() of the nr frames in st as a record of type and id. */
static __always_inline bool output_stack(struct sample_stack_event *st, __u32 nr, __u64 id,
					 __u32 type, __u32 drop_counter)
{
	st->type = type;
	st->id = id;
	return output_record(st, nr, drop_counter);
}

/* Returns the id of the nr frames in st (nr > 0), sending them to user space
 * (output_stack()) unless they were sent already. STACK_ID_LOST when the
 * ring buffer is full. */
static __always_inline __u64 send_stack(struct sample_stack_event *st, __u32 nr, __u32 type,
					__u32 drop_counter)
{
	__u8 one = 1;
	__u64 id;

	if (nr > SAMPLE_MAX_DEPTH)
		nr = SAMPLE_MAX_DEPTH;
	st->nr = nr;
	id = hash_ips(st);
	if (bpf_map_lookup_elem(&sent, &id))
		return id;
	if (!output_stack(st, nr, id, type, drop_counter))
		return STACK_ID_LOST;
	bpf_map_update_elem(&sent, &id, &one, BPF_ANY);
	return id;
}

/* The per-CPU buffer stacks are taken into. */
static __always_inline struct sample_stack_event *stack_scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

/* Takes the stack (bpf_get_stack() flags) and returns its id (send_stack()),
 * STACK_ID_NONE when empty, STACK_ID_LOST when it could not be read
 * (err_counter) or sent (drop_counter). */
/* What a bpf_get_stack() (or bpf_get_task_stack()) into st that returned n
 * gives, as take_stack() returns it. */
static __always_inline __u64 taken_stack(struct sample_stack_event *st, long n, __u32 type,
					 __u32 err_counter, __u32 drop_counter)
{
	if (n < 0) {
		count(err_counter);
		return STACK_ID_LOST;
	}
	if (n < (long)sizeof(__u64))
		return STACK_ID_NONE;
	return send_stack(st, n / sizeof(__u64), type, drop_counter);
}

static __always_inline __u64 take_stack(void *ctx, __u64 flags, __u32 type, __u32 err_counter,
					__u32 drop_counter)
{
	struct sample_stack_event *st = stack_scratch();

	if (!st)
		return STACK_ID_LOST;
	return taken_stack(st, bpf_get_stack(ctx, st->ip, sizeof(st->ip), flags), type, err_counter,
			   drop_counter);
}

#endif
