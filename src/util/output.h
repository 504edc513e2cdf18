/* The output file: written to a temporary file beside it and renamed into
 * place only when complete, so a failed or interrupted run never leaves a
 * partial file that looks whole, nor clobbers an older one. */
#ifndef FLAMEBPF_OUTPUT_H
#define FLAMEBPF_OUTPUT_H

#include <stdio.h>

struct output {
	FILE *f;
	char *path; /* NULL for a descriptor, a device or a FIFO: written directly */
	char *tmp;  /* the temporary file's name, once it has one */
	int fd;
	int err; /* the first write error, -errno */
};

/*
 * Opens path: "-" (or /dev/stdout, /dev/fd/N) is that descriptor, written
 * as it is, like a device or a FIFO; a symbolic link is followed, and the
 * file it points to replaced, except that a link in a world-writable
 * directory (/tmp) must be ours or the directory owner's: -ELOOP for
 * someone else's. Fails early, before any work, when the directory is not
 * writable. Returns 0 or -errno: -ENOENT when the directory does not exist,
 * -EISDIR for a directory, -EOPNOTSUPP when no file can be made in the
 * directory (/proc), -EACCES, ... as the failing call gave it.
 */
int output__open(struct output *o, const char *path);

/* Words for an error of output__open or output__commit (strerror's, but
 * for a refused link and a directory that takes no new files). */
const char *output__strerror(int err);

/* Flushes, and renames the temporary file into place (owned by SUDO_UID when
 * run under sudo). Returns 0 or -errno (the first write error's); on error
 * nothing is left behind. */
int output__commit(struct output *o);

/* The first error in writing so far (-errno), 0 for none: what made a
 * writer fail with -EIO. */
int output__error(const struct output *o);

/* Discards what was written. */
void output__abort(struct output *o);

#endif
