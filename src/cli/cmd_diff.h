/* `flamebpf diff [OPTIONS] BASE NEW`: two profiles compared function by
 * function, for CI perf-regression jobs. */
#ifndef FLAMEBPF_CMD_DIFF_H
#define FLAMEBPF_CMD_DIFF_H

#include <stdio.h>

/* argv[0] is "diff". Prints every error itself; returns the exit status:
 * 0 no regression, 1 a regression or a failure (a profile missing,
 * unreadable or empty, an unwritable output), 2 bad usage (and profiles of
 * different modes). */
int diff__main(int argc, char **argv);

void diff__usage(FILE *f);

#endif
