/* Addresses to profile frames: user addresses through the process's
 * mappings and the binaries' symbol tables, kernel ones through kallsyms.
 * Each unique address is resolved once. */
#ifndef FLAMEBPF_SYMBOLIZE_H
#define FLAMEBPF_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "procs.h"
#include "profile.h"

struct symbolizer;

/* Uses (does not own) the profile for frames and the process table.
 * Returns NULL and sets errno on failure. */
struct symbolizer *symbolizer__new(struct profile *p, struct procs *ps);

/* The frame for ip. A return address (every frame but the leaf) is looked
 * up one byte back, inside the call instruction, so that a call at the very
 * end of a function is not credited to the next one. Returns 0 or -ENOMEM. */
int symbolizer__user(struct symbolizer *s, pid_t pid, uint64_t ip, bool is_return, uint32_t *id);
int symbolizer__kernel(struct symbolizer *s, uint64_t ip, bool is_return, uint32_t *id);

/* Why kernel names are missing, or 0. */
int symbolizer__kernel_err(const struct symbolizer *s);

void symbolizer__free(struct symbolizer *s);

#endif
