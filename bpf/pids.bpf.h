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

/* Whether task, of a process whose flags are PID_BEFORE_EXEC, still runs
 * flamebpf's program: the exec replaces the program (begin_new_exec) before
 * sched_process_exec clears the flag, and the exec's loading of the new one
 * is the command's. */
static __always_inline bool runs_spawner(struct task_struct *task)
{
	struct mm_struct *mm = task->mm;

	return mm && mm->exe_file && mm->exe_file->f_inode->i_ino == spawner_ino;
}

/* Whether pid, task's process, is in the filter, and past its exec if it
 * is the command. */
static __always_inline bool pid_traced(__u32 pid, struct task_struct *task)
{
	__u8 *flags = bpf_map_lookup_elem(&pids, &pid);

	return flags && !((*flags & PID_BEFORE_EXEC) && runs_spawner(task));
}

/* pid exec'd: the command is past its exec (its exec already counts,
 * runs_spawner() said no). Returns whether this was the command's exec. */
static __always_inline bool exec_done(__u32 pid)
{
	__u8 *flags = bpf_map_lookup_elem(&pids, &pid);

	if (!flags || !(*flags & PID_BEFORE_EXEC))
		return false;
	*flags &= ~PID_BEFORE_EXEC;
	return true;
}

#endif
