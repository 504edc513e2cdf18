/* gzip'd profile.proto, read by go tool pprof, Pyroscope and Parca. */
#ifndef FLAMEBPF_OUT_PPROF_H
#define FLAMEBPF_OUT_PPROF_H

#include <stdio.h>

#include "profile/profile.h"
#include "sink.h"

/* Returns 0, -ENOMEM, or -EIO when writing failed. */
int pprof__write(const struct profile *p, const struct write_opts *o, FILE *f);

#endif
