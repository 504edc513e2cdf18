/* --span NAME=BEGIN,END: a span from a pair of USDT probes, BEGIN's
 * argument optionally its label: "req=usdt:./server:app:req_start(arg0),
 * usdt:./server:app:req_end" (arg0 as a string; "(arg0:int)" a number). */
#ifndef FLAMEBPF_SPAN_OPT_H
#define FLAMEBPF_SPAN_OPT_H

#include "capture/source.h"

/* Adds arg's span to c->spans. Returns 0, or -EINVAL with a one-line
 * message in err (OPTIONS_ERR_LEN bytes). */
int span_opt__parse(struct source_opts *c, const char *arg, char *err);

/* Frees what span_opt__parse made. */
void span_opt__free(struct source_opts *c);

#endif
