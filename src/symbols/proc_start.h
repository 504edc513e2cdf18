/* When a process started, on the wall clock: a file about it written
 * before then (a perf map left by an earlier process with the same pid)
 * is not its. */
#ifndef FLAMEBPF_PROC_START_H
#define FLAMEBPF_PROC_START_H

#include <sys/types.h>
#include <time.h>

/* pid's start as a CLOCK_REALTIME second, rounded down, into *out.
 * Returns 0, -ESRCH (gone), or -EINVAL (a stat line not understood). */
int proc_start__wall(pid_t pid, time_t *out);

#endif
