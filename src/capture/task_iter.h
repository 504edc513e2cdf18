/* BPF task iterators (iter/task): run once over every task of the system. */
#ifndef FLAMEBPF_TASK_ITER_H
#define FLAMEBPF_TASK_ITER_H

#include <stddef.h>

struct bpf_program;

/* Runs the task iterator prog over every task: reads it to the end, each
 * record it writes (of size rec; 0: it writes none) passed to fn, if any.
 * Returns 0, fn's nonzero value, or -errno. */
int task_iter__run(struct bpf_program *prog, size_t rec, int (*fn)(const void *, void *),
		   void *arg);

#endif
