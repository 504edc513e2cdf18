/* The file behind a mapping of another process, opened wherever it can be
 * reached: where the mapping's path names it, under the process's root (a
 * container), or through /proc/PID/map_files (deleted or replaced since). */
#ifndef FLAMEBPF_MAPPED_FILE_H
#define FLAMEBPF_MAPPED_FILE_H

#include <stdint.h>
#include <sys/types.h>

#include "proc_maps.h"

/* Opens path (m's path without " (deleted)") read-only, preferring an open
 * of the very file m maps (same device and inode). root is pid's root
 * (proc_root__get, kept from when it ran), or 0 for ours. Returns an fd,
 * possibly of another file when the right one cannot be reached, or -errno. */
int mapped_file__open(const char *path, const struct map_entry *m, pid_t pid, int root);

/* m's path without the " (deleted)" the kernel appends to a file unlinked
 * since (allocated), or NULL when out of memory. */
char *mapped_file__path(const struct map_entry *m);

/* A key for the file m maps (device and inode), for caches shared by every
 * process that maps it. */
uint64_t mapped_file__key(const struct map_entry *m);

#endif
