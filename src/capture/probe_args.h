/* USDT argument specs (src/symbols/usdt_args.h) as the BPF programs read
 * them (bpf/probe_arg.h). */
#ifndef FLAMEBPF_PROBE_ARGS_H
#define FLAMEBPF_PROBE_ARGS_H

#include <linux/types.h> /* probe_arg.h's */

#include "symbols/usdt_args.h"
#include "probe_arg.h"

void probe_args__from(const struct usdt_arg *u, struct usdt_loc *out);

/* The first PROBE_HIT_NARGS arguments of spec; none when it cannot be
 * read (another architecture's syntax). */
void probe_args__of(const char *spec, struct probe_args *out);

#endif
