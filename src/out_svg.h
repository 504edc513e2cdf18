/* A self-contained interactive flame graph (hover, click-zoom, search). */
#ifndef FLAMEBPF_OUT_SVG_H
#define FLAMEBPF_OUT_SVG_H

#include <stdio.h>

#include "profile.h"
#include "sink.h"

/* Returns 0, -ENOMEM, or -EIO when writing failed. */
int svg__write(const struct profile *p, const struct write_opts *o, FILE *f);

#endif
