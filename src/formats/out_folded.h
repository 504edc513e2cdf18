/* Folded (collapsed) stacks: "ROOT;frame;...;leaf COUNT", one line per stack. */
#ifndef FLAMEBPF_OUT_FOLDED_H
#define FLAMEBPF_OUT_FOLDED_H

#include <stdio.h>

#include "profile/profile.h"
#include "util/strbuf.h"
#include "sink.h"

/* Writes the profile sorted by line, identical lines merged.
 * Returns 0, -ENOMEM, or -EIO when writing failed. */
int folded__write(const struct profile *p, const struct write_opts *o, FILE *f);

/* Appends the stack's line, without its count, to b. Returns 0 or -ENOMEM. */
int folded__format_stack(const struct profile *p, const struct profile_stack *s,
			 const struct write_opts *o, struct strbuf *b);

/* --flamechart: the profile's events in time order, thread by thread, each
 * call split into its self-time segments around its children, so that
 * widths laid end to end follow the timeline; identical lines are not
 * merged. Returns 0, -ENODATA when the profile has no events, -ENOMEM or
 * -EIO. */
int folded__write_flamechart(const struct profile *p, const struct write_opts *o, FILE *f);

/* Appends what --pids / --tids put after COMM in a root ("-PID",
 * "-PID/TID"; "?" for a PID the input did not give). 0 or -ENOMEM. */
int folded__append_ids(struct strbuf *b, const struct stack_owner *who, enum root_style root);

/* Appends name to buf, made safe for a folded line: ';' becomes ':', control
 * bytes become '?'. Exposed for the tests. Returns 0 or -ENOMEM. */
int folded__append_name(struct strbuf *buf, const char *name);

#endif
