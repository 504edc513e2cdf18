/* System calls by name, as the architecture numbers them. */
#ifndef FLAMEBPF_SYSCALLS_H
#define FLAMEBPF_SYSCALLS_H

/* The number of the system call NAME ("write"), or -1. */
int syscalls__nr(const char *name);

#endif
