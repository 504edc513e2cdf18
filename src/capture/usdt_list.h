/* -l 'usdt:[BINARY][:REGEX]': the USDT probes a binary (or the target's
 * every binary) declares. */
#ifndef FLAMEBPF_USDT_LIST_H
#define FLAMEBPF_USDT_LIST_H

#include <stdbool.h>

#include "source.h"

/* Whether a -l or -f argument names USDT probes ("usdt:..."). */
bool usdt_list__is(const char *spec);

/* Prints "BINARY:PROVIDER:NAME ARGS" for each probe whose
 * "PROVIDER:NAME" matches REGEX (all without one). Returns 0, -EINVAL
 * (said), or -ENOMEM. */
int usdt_list__print(const struct source_opts *o, const char *spec);

#endif
