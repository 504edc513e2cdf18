/* /proc/PID/maps: which file, at which offset, backs a process address. */
#ifndef FLAMEBPF_PROC_MAPS_H
#define FLAMEBPF_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct map_entry {
	uint64_t start, end; /* [start, end) in the process */
	uint64_t offset;     /* file offset of start */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	char perms[5]; /* "r-xp" */
	char *path;    /* "" for anonymous; "[vdso]", "/usr/lib/x.so (deleted)", ... */
};

struct proc_maps {
	struct map_entry *v; /* sorted by start */
	size_t n;
};

/* Parses one line of a maps file into *e (e->path is allocated).
 * Returns 0, or -EINVAL for a malformed line, -ENOMEM. */
int proc_maps__parse_line(const char *line, struct map_entry *e);

/* Parses a whole maps text (as read from the file). Only executable mappings
 * are kept. Returns 0 or -errno; on error *out is empty. */
int proc_maps__parse(const char *text, size_t len, struct proc_maps *out);

/* Reads /proc/PID/maps. Returns 0, -ESRCH when the process is gone, or -errno. */
int proc_maps__read(pid_t pid, struct proc_maps *out);

/* The mapping that holds addr, or NULL. */
const struct map_entry *proc_maps__find(const struct proc_maps *m, uint64_t addr);

void proc_maps__free(struct proc_maps *m);

#endif
