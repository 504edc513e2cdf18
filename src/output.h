/* The output file: written to a temporary file beside it and renamed into
 * place only when complete, so a failed or interrupted run never leaves a
 * partial file that looks whole, nor clobbers an older one. */
#ifndef FLAMEBPF_OUTPUT_H
#define FLAMEBPF_OUTPUT_H

#include <stdio.h>

struct output {
	FILE *f;
	char *path; /* NULL for stdout, a device or a FIFO: written directly */
	char *tmp;
};

/* Opens path ("-" for stdout). Fails early, before any work, when the
 * directory is not writable. Returns 0 or -errno. */
int output__open(struct output *o, const char *path);

/* Flushes, and renames the temporary file into place (owned by SUDO_UID when
 * run under sudo). Returns 0 or -errno; on error nothing is left behind. */
int output__commit(struct output *o);

/* Discards what was written. */
void output__abort(struct output *o);

#endif
