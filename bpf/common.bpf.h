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

/* The inode of flamebpf's own program, which a command runs until it
 * execs (PID_BEFORE_EXEC). */
const volatile __u64 spawner_ino = 0;

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

/* What the seen map says of a process: user space looked at its maps when
 * it exec'd (note_exec), or it had a sample since (note_process). */
#define SEEN_LOOKED  1
#define SEEN_SAMPLED 2

/* Tells user space of pid once per state of the seen map (type: what to
 * do), counting full_counter when the map is full, lost_counter when the
 * ring buffer is. A process looked at on exec and sampled now only says
 * so (EV_SAMPLED): its maps are read already, and user space keeps the
 * mappings of processes that had samples. */
static __always_inline void tell_seen(__u32 pid, __u8 how, __u32 type, __u32 full_counter,
				      __u32 lost_counter)
{
	struct sample_proc_event ev = { .type = type, .pid = pid };
	__u8 *v = bpf_map_lookup_elem(&seen, &pid);
	long err;

	/* the common case, without the bucket lock an update takes */
	if (v && *v >= how)
		return;
	if (v) {
		*v = how;
		ev.type = EV_SAMPLED;
	} else {
		err = bpf_map_update_elem(&seen, &pid, &how, BPF_NOEXIST);
		if (err == -EEXIST)
			return;
		if (err) {
			count(full_counter);
			return;
		}
	}
	/* forced: the records before it came without a wakeup, so an adaptive
	 * one would not wake user space, and it must look while pid lives */
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP))
		count(lost_counter);
}

/* The first sample of pid (again after an exec or a pid reuse): user space
 * snapshots its mappings while it lives, unless it did on the exec. */
static __always_inline void note_process(__u32 pid, __u32 full_counter, __u32 lost_counter)
{
	tell_seen(pid, SEEN_SAMPLED, EV_PROC, full_counter, lost_counter);
}

/* pid exec'd: user space looks at its maps now, before it has a sample. */
static __always_inline void note_exec(__u32 pid, __u32 full_counter, __u32 lost_counter)
{
	tell_seen(pid, SEEN_LOOKED, EV_LOOK, full_counter, lost_counter);
}

/* Whether the command is stopped at its exec until user space has its
 * unwind tables (hold_at_exec()). */
const volatile bool hold_exec = false;

#define SIGSTOP_NR 19

/* The command's exec, pid: stopped before its first instruction, until
 * user space, told after the look at its maps it was told of first (an
 * EV_HELD after the EV_LOOK), has read them and built their tables, and
 * lets it go on: its first calls unwind whole, where they had been cut
 * for the 30 ms the tables of a C++ program take. Not stopped when user
 * space could not be told. */
static __always_inline void hold_at_exec(__u32 pid, __u32 lost_counter)
{
	struct sample_proc_event ev = { .type = EV_HELD, .pid = pid };

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP)) {
		count(lost_counter);
		return;
	}
	bpf_send_signal(SIGSTOP_NR);
}

#include "pids.bpf.h"
#include "stack.bpf.h"

#endif
