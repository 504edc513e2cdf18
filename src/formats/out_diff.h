/* The table `flamebpf diff` prints: text for a terminal or a CI log, JSON
 * for programs, markdown for a pull-request comment. */
#ifndef FLAMEBPF_OUT_DIFF_H
#define FLAMEBPF_OUT_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "profile/diff.h"

enum diff_format {
	DIFF_TEXT,
	DIFF_JSON,
	DIFF_MARKDOWN,
};

struct diff_report {
	const struct diff_result *r;
	const struct diff_opts *o;
	const char *base, *new; /* the files compared */
	size_t top;		/* rows shown, regressions always; 0: all */
};

/* "text", "json", "markdown" (or "md"). Returns 0 or -EINVAL. */
int diff_out__parse(const char *name, enum diff_format *f);

/* Writes the table. Returns 0, or -EIO when writing failed. */
int diff_out__write(enum diff_format f, const struct diff_report *rep, FILE *out);

#endif
