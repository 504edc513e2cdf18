/* Which capabilities a capture lacks, to say so in words. */
#ifndef FLAMEBPF_PRIVILEGES_H
#define FLAMEBPF_PRIVILEGES_H

#include <stddef.h>

/* Writes the missing capabilities ("CAP_BPF and CAP_PERFMON") into buf and
 * returns how many are missing; 0 when the effective set has what BPF
 * sampling needs (CAP_SYS_ADMIN covers both on any kernel). */
int privileges__missing(char *buf, size_t len);

#endif
