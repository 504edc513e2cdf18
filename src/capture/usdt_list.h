/* -l 'usdt:[BINARY][:REGEX]': the USDT probes a binary (or the target's
 * every binary) declares. */
#ifndef FLAMEBPF_USDT_LIST_H
#define FLAMEBPF_USDT_LIST_H

#include <stdbool.h>

#include "symbols/binary_list.h"
#include "source.h"

/* Whether a -l or -f argument names USDT probes ("usdt:..."). */
bool usdt_list__is(const char *spec);

/* The binaries of "usdt:BINARY[:REGEX]" (the target's when BINARY is
 * empty) into bins, its regex (NULL for all; malloc'd) into *regex.
 * Returns 0, -EINVAL (said) or -ENOMEM. */
int usdt_list__binaries(const struct source_opts *o, const char *spec, struct binaries *bins,
			char **regex);

/* Prints "BINARY:PROVIDER:NAME ARGS" for each probe whose
 * "PROVIDER:NAME" matches REGEX (all without one). Returns 0, -EINVAL
 * (said), or -ENOMEM. */
int usdt_list__print(const struct source_opts *o, const char *spec);

#endif
