/* Paths as another process sees them: a process in a container (another
 * mount namespace) or a chroot names files under its own root, which
 * /proc/PID/root reaches from here. */
#ifndef FLAMEBPF_PROC_ROOT_H
#define FLAMEBPF_PROC_ROOT_H

#include <sys/types.h>

/* pid when its root directory or its mount namespace is not ours, else 0
 * (also when it is gone). */
pid_t proc_root__of(pid_t pid);

/* Opens the absolute path as root_pid sees it, or as we do when root_pid is
 * 0. Symbolic links resolve inside that root, as they would for the process,
 * not against ours. Returns an fd or -errno. */
int proc_root__open(pid_t root_pid, const char *path, int flags);

#endif
