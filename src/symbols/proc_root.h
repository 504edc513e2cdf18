/* Paths as another process sees them: a process in a container (another
 * mount namespace) or a chroot names files under its own root, which
 * /proc/PID/root reaches from here. */
#ifndef FLAMEBPF_PROC_ROOT_H
#define FLAMEBPF_PROC_ROOT_H

#include <sys/types.h>

/* When pid's root directory or mount namespace is not ours: a descriptor
 * of its root (O_PATH), which the caller closes, and which keeps reaching
 * its files after it exits; else 0 (also when it is gone). Never fd 0, so
 * that 0 can say "our own root" to the functions below. */
int proc_root__get(pid_t pid);

/* Opens the absolute path as seen from root (a proc_root__get() descriptor),
 * or as we see it when root is 0. Symbolic links resolve inside that root,
 * as they would for the process, not against ours. Returns an fd or -errno. */
int proc_root__open(int root, const char *path, int flags);

#endif
