/* A self-contained interactive flame graph (hover, click-zoom, search). */
#ifndef FLAMEBPF_OUT_SVG_H
#define FLAMEBPF_OUT_SVG_H

#include <stdio.h>

#include "profile/profile.h"
#include "sink.h"

/* Writes p as an SVG flame graph: stacks merged by frame name under their
 * root frame (o->root) and "all", or with o->flamechart the events laid out
 * in time order; frames narrower than 0.1 px of 1200 are left out. Returns
 * 0; -ENODATA for a flame chart of a profile without events; -ENOMEM; -EIO
 * when writing failed. */
int svg__write(const struct profile *p, const struct write_opts *o, FILE *f);

struct strbuf;

/* What was profiled, from what the profile says of itself, for a subtitle:
 * "COMMAND, 99 Hz, 2.00 s, 2 CPUs, Linux 6.18". 0 or -ENOMEM. */
int svg__subtitle(const struct profile *p, struct strbuf *b);

/* Writes a differential flame graph: new's stacks drawn as svg__write()
 * draws them, each frame coloured by how its share of the total changed
 * from the same path (by frame names) in base: red grew, blue shrank, the
 * larger the change the deeper (the largest change drawn, or 1 point when
 * all are smaller, fully), full red for a path base does not have. A
 * frame's title gives both values and the change in points. Frames only
 * in base are not drawn. Returns 0; -EINVAL when the units differ;
 * -ENODATA when a profile has no weight; -ENOMEM; -EIO. */
int svg__write_diff(const struct profile *base, const struct profile *new,
		    const struct write_opts *o, FILE *f);

#endif
