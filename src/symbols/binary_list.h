/* A list of distinct binaries (by device and inode), the container of
 * binaries.h's targets and of what ldso.h finds a command will load. */
#ifndef FLAMEBPF_BINARY_LIST_H
#define FLAMEBPF_BINARY_LIST_H

#include <sys/types.h>

struct target_binary {
	char *path;	 /* as the target names it (a maps path without " (deleted)") */
	char *open_path; /* where to read it and attach probes: path, or a /proc/PID/
			  * view of the file when path names another file now */
	dev_t dev;
	ino_t ino;
};

/* Distinct files (by device and inode), main executable first. */
struct binaries {
	struct target_binary *v;
	size_t n;
};

/* Appends a copy of e, unless its file (e->dev, e->ino) is listed already.
 * Returns 0 or -ENOMEM. */
int binaries__add(struct binaries *b, const struct target_binary *e);

/* Appends one file by path (canonicalised), unless the list has it already.
 * Returns 0, -ENOENT, -EISDIR, -ENOEXEC when it is not an ELF file, or -errno. */
int binaries__add_path(struct binaries *b, const char *path);

/* The index of the file dev:ino in b, or -1. */
ssize_t binaries__find(const struct binaries *b, dev_t dev, ino_t ino);

void binaries__free(struct binaries *b);

#endif
