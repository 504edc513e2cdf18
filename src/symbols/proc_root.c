// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc_root.h"

/* Whether two paths name the same file (or either is gone). */
static bool same_file(const char *ours, const char *theirs)
{
	struct stat a, b;

	if (stat(ours, &a) || stat(theirs, &b))
		return true;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Another mount namespace under the same root directory still sees other
 * files (systemd's PrivateTmp, unshare -m). */
int proc_root__get(pid_t pid)
{
	char root[64], ns[64];
	int fd;

	if (pid <= 0)
		return 0;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)pid);
	if (same_file("/", root) && same_file("/proc/self/ns/mnt", ns))
		return 0;
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd == 0) { /* standard input was closed: 0 means ours */
		fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
		close(0);
	}
	return fd > 0 ? fd : 0;
}

/* RESOLVE_IN_ROOT treats the directory as "/" for every component, an
 * absolute symbolic link included (a path through /proc/PID/root would let
 * such a link escape to our root). */
static int open_beneath(int root, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)flags,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, root, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* Before Linux 5.6 there is no openat2: links then resolve against our root. */
static int open_at_root(int root, const char *path, int flags)
{
	int fd;

	while (*path == '/')
		path++;
	fd = openat(root, *path ? path : ".", flags);
	return fd < 0 ? -errno : fd;
}

int proc_root__open(int root, const char *path, int flags)
{
	int fd;

	if (path[0] != '/')
		return -EINVAL;
	if (root <= 0) {
		fd = open(path, flags);
		return fd < 0 ? -errno : fd;
	}
	fd = open_beneath(root, path, flags);
	if (fd == -ENOSYS)
		fd = open_at_root(root, path, flags);
	return fd;
}
