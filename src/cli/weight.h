/* --weight W: what each hit of -e tracepoint:... weighs. */
#ifndef FLAMEBPF_WEIGHT_H
#define FLAMEBPF_WEIGHT_H

#include "capture/source.h"

/* Sets c->weight (and c->tp's field) for arg: a system call's argument or
 * return, or another tracepoint's field from tracefs. Returns 0, or
 * -EINVAL with a one-line message in err (OPTIONS_ERR_LEN bytes). */
int weight__parse(struct source_opts *c, const char *arg, char *err);

#endif
