/* A self-contained interactive flame graph (hover, click-zoom, search). */
#ifndef FLAMEBPF_OUT_SVG_H
#define FLAMEBPF_OUT_SVG_H

#include <stdio.h>

#include "profile.h"
#include "sink.h"

/* Writes p as an SVG flame graph: stacks merged by frame name under their
 * root frame (o->root) and "all", or with o->flamechart the events laid out
 * in time order; frames narrower than 0.1 px of 1200 are left out. Returns
 * 0; -ENODATA for a flame chart of a profile without events; -ENOMEM; -EIO
 * when writing failed. */
int svg__write(const struct profile *p, const struct write_opts *o, FILE *f);

#endif
