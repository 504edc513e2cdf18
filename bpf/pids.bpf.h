/* SPDX-License-Identifier: GPL-2.0 */
/* The pid filter's children. The includer defines the hash map pids
 * (tgid -> u8, PID_* flags) before including it. */
#ifndef FLAMEBPF_PIDS_BPF_H
#define FLAMEBPF_PIDS_BPF_H

/* Adds child's process to the filter when its parent's is in it. Returns
 * false when it should have been added but the map was full. */
static __always_inline bool follow_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = BPF_CORE_READ(parent, tgid), cpid = BPF_CORE_READ(child, tgid);
	__u8 *pflags, flags;

	if (ppid == cpid || !(pflags = bpf_map_lookup_elem(&pids, &ppid)))
		return true; /* a thread, or not a traced process's child */
	flags = *pflags & ~PID_EXEC_ONCE;
	return !bpf_map_update_elem(&pids, &cpid, &flags, BPF_ANY);
}

#endif
