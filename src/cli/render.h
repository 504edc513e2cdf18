/* `flamebpf render [OPTIONS] INPUT`: a profile file (folded stacks, perf
 * script text or a chrome trace) written out in any output format. */
#ifndef FLAMEBPF_RENDER_H
#define FLAMEBPF_RENDER_H

#include <stdio.h>

/* argv[0] is "render". Prints every error itself; returns the exit status:
 * 0, 1 (the input or the output failed), 2 (bad usage). */
int render__main(int argc, char **argv);

void render__usage(FILE *f);

struct reader_stats;

/* Says on stderr what reading name left out or guessed, so that a graph is
 * not taken for all of the input. */
void render__notes(const struct reader_stats *st, const char *name);

#endif
