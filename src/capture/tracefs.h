/* tracefs, where something mounted it: flamebpf reads it, never mounts it. */
#ifndef FLAMEBPF_TRACEFS_H
#define FLAMEBPF_TRACEFS_H

#include <stddef.h>
#include <stdio.h>

/* Where mountinfo (/proc/self/mountinfo's text) says tracefs is: a tracefs
 * mount, or debugfs's tracing directory. Returns 0 or -ENOENT. */
int tracefs__find(FILE *mountinfo, char *root, size_t len);

/* The same for this process's mounts. Returns 0 or -ENOENT (not mounted). */
int tracefs__root(char *root, size_t len);

/* Reads events/CATEGORY/NAME/file under root, for spec "CATEGORY:NAME",
 * into buf, NUL-terminated; what does not fit is left out. Returns 0 or
 * -errno (-ENOENT: no such tracepoint). */
int tracefs__event_file(const char *root, const char *spec, const char *file, char *buf,
			size_t len);

#endif
