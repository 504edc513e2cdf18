/* Folded (collapsed) stacks: "ROOT;frame;...;leaf COUNT", one line per stack. */
#ifndef FLAMEBPF_OUT_FOLDED_H
#define FLAMEBPF_OUT_FOLDED_H

#include <stdio.h>

#include "profile.h"
#include "strbuf.h"

enum root_style {
	ROOT_COMM, /* COMM */
	ROOT_PID,  /* COMM-PID */
	ROOT_TID,  /* COMM-PID/TID */
};

struct folded_opts {
	enum root_style root;
};

/* Writes the profile sorted by line, identical lines merged.
 * Returns 0, -ENOMEM, or -EIO when writing failed. */
int folded__write(const struct profile *p, const struct folded_opts *o, FILE *f);

/* Appends name to buf, made safe for a folded line: ';' becomes ':', control
 * bytes become '?'. Exposed for the tests. Returns 0 or -ENOMEM. */
int folded__append_name(struct strbuf *buf, const char *name);

#endif
