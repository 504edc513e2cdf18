// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/hashmap.h"
#include "mapped_file.h"
#include "proc_root.h"

static bool same_file(int fd, const struct map_entry *m)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_ino == m->inode && major(st.st_dev) == m->dev_major &&
	       minor(st.st_dev) == m->dev_minor;
}

/* Keeps the better of two opens: the right file, else any open one. */
static int pick(int fd, int alt, const struct map_entry *m)
{
	if (alt < 0)
		return fd;
	if (fd < 0 || (!same_file(fd, m) && same_file(alt, m))) {
		if (fd >= 0)
			close(fd);
		return alt;
	}
	close(alt);
	return fd;
}

int mapped_file__open(const char *path, const struct map_entry *m, pid_t pid, int root)
{
	char alt[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fd = -errno;
	if (root > 0 && (fd < 0 || !same_file(fd, m)))
		fd = pick(fd, proc_root__open(root, path, O_RDONLY | O_CLOEXEC), m);
	if (fd >= 0 && same_file(fd, m))
		return fd;
	snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start,
		 m->end);
	return pick(fd, open(alt, O_RDONLY | O_CLOEXEC), m);
}

uint64_t mapped_file__key(const struct map_entry *m)
{
	return hash_mix(m->inode ^ hash_mix(((uint64_t)m->dev_major << 32) | m->dev_minor));
}

char *mapped_file__path(const struct map_entry *m)
{
	static const char suffix[] = " (deleted)";
	size_t len = strlen(m->path), sl = sizeof(suffix) - 1;

	if (len > sl && !strcmp(m->path + len - sl, suffix))
		len -= sl;
	return strndup(m->path, len);
}
