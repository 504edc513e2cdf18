/* SPDX-License-Identifier: GPL-2.0 */
/* The maps and helpers both BPF programs share: the pid filter, the
 * processes seen, the ids of the stacks sent, the stack scratch buffer, the
 * loss counters and the ring buffer. The includer defines NR_COUNTERS (the
 * size of its counter enum) first. */
#ifndef FLAMEBPF_COMMON_BPF_H
#define FLAMEBPF_COMMON_BPF_H

#include "sample.h"

#define EEXIST 17

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 16384);
} pids SEC(".maps");

/* Processes whose mappings user space has been told to snapshot. Allocated
 * as they come (the live processes, not 16384 slots): an insert that fails
 * is counted and tried again at the process's next sample. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 16384);
} seen SEC(".maps");

/* Ids of the stacks (or call paths) already sent to user space. LRU: a
 * forgotten id only means it is sent again. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, __u8);
	__uint(max_entries, 1); /* sized by user space */
} sent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct sample_stack_event);
	__uint(max_entries, 1);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, NR_COUNTERS);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20); /* sized by user space */
} events SEC(".maps");

static __always_inline void count_by(__u32 which, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		*c += n;
}

static __always_inline void count(__u32 which)
{
	count_by(which, 1);
}

/* The first time pid is seen (again after an exec or a pid reuse), tells
 * user space to snapshot its mappings while it lives. Counts full_counter
 * when the seen map is full, lost_counter when the ring buffer is. */
static __always_inline void note_process(__u32 pid, __u32 full_counter, __u32 lost_counter)
{
	struct sample_proc_event ev = { .type = EV_PROC, .pid = pid };
	__u8 one = 1;
	long err;

	/* the common case, without the bucket lock an update takes */
	if (bpf_map_lookup_elem(&seen, &pid))
		return;
	err = bpf_map_update_elem(&seen, &pid, &one, BPF_NOEXIST);
	if (err == -EEXIST)
		return;
	if (err) {
		count(full_counter);
		return;
	}
	/* forced: the records before it came without a wakeup, so an adaptive
	 * one would not wake user space, and it must look while pid lives */
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP))
		count(lost_counter);
}

#include "pids.bpf.h"
#include "stack.bpf.h"

#endif
