/* -l 'usdt:[BINARY][:REGEX]': the USDT probes a binary (or the target's
 * every binary) declares. */
#ifndef FLAMEBPF_USDT_LIST_H
#define FLAMEBPF_USDT_LIST_H

#include <regex.h>
#include <stdbool.h>

#include "symbols/binary_list.h"
#include "symbols/usdt.h"
#include "source.h"

/* Whether a -l or -f argument names USDT probes ("usdt:..."). */
bool usdt_list__is(const char *spec);

/* What "usdt:BINARY[:REGEX]" selects: the binaries (the target's when
 * BINARY is empty) and the compiled regex (none: every probe). */
struct usdt_select {
	struct binaries bins;
	char *regex; /* as given; NULL: none */
	regex_t re;
	bool has_re;
};

/* Returns 0, -EINVAL (said) or -ENOMEM; sel is to be freed either way. */
int usdt_list__select(const struct source_opts *o, const char *spec, struct usdt_select *sel);
void usdt_list__select_free(struct usdt_select *sel);

/* p's "PROVIDER:NAME" into name (n bytes); whether re (NULL: all) matches it. */
bool usdt_list__matches(const regex_t *re, const struct usdt_probe *p, char *name, size_t n);

/* Prints "BINARY:PROVIDER:NAME ARGS" for each probe whose
 * "PROVIDER:NAME" matches REGEX (all without one). Returns 0, -EINVAL
 * (said), or -ENOMEM. */
int usdt_list__print(const struct source_opts *o, const char *spec);

#endif
