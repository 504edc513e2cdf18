/* The process a thread id belongs to: -p takes a thread's id as its
 * process's, as perf record -p does. */
#ifndef FLAMEBPF_PROC_TGID_H
#define FLAMEBPF_PROC_TGID_H

#include <sys/types.h>

/* The process of thread tid (tid itself for a process's main thread) into
 * *tgid. Returns 0, -ESRCH (no such thread), or -EINVAL (a status file
 * without its Tgid line). */
int proc_tgid__of(pid_t tid, pid_t *tgid);

#endif
