/* The binaries -f, -l and usdt: take their functions and probes from:
 * the target's (-p, COMMAND), or one named. */
#ifndef FLAMEBPF_TARGETS_H
#define FLAMEBPF_TARGETS_H

#include "symbols/binaries.h"
#include "source.h"

/* The binaries the targets map (or a COMMAND will), into out. Returns 0,
 * -EINVAL when a target cannot be read (said), or -ENOMEM. */
int targets__of(const struct source_opts *o, struct binaries *out);

/* The binary spec names ("libc", a path), among target's first. Returns 0,
 * -EINVAL (said) or -ENOMEM. */
int targets__resolve(const char *spec, const struct binaries *target, struct binaries *out);

#endif
