/* Chrome Trace Event Format JSON (Perfetto, chrome://tracing): every event an
 * "X" event nested per thread, process and thread names as metadata. */
#ifndef FLAMEBPF_OUT_CHROME_H
#define FLAMEBPF_OUT_CHROME_H

#include <stdio.h>

#include "profile/profile.h"
#include "sink.h"

/* Returns 0, -ENOMEM, or -EIO when writing failed. */
int chrome__write(const struct profile *p, const struct write_opts *o, FILE *f);

#endif
