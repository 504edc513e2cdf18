/* -f usdt:BINARY:REGEX: the USDT probes to count, by binary, as uprobe
 * links take them (offsets, semaphores, a cookie naming each). */
#ifndef FLAMEBPF_USDT_PLAN_H
#define FLAMEBPF_USDT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"

struct usdt_site {
	uint64_t offset;  /* in the file */
	uint64_t ref_ctr; /* the semaphore's offset in the file; 0: none */
	uint64_t cookie;  /* the probe's number, from 1 */
	char *args;	  /* its argument spec, as the note gives it */
};

struct usdt_site_set {
	char *path; /* where to attach: the binary's open path */
	struct usdt_site *v;
	size_t n, cap;
};

struct usdt_plan {
	struct usdt_site_set *bins;
	size_t nbins, bins_cap;
	char **names; /* names[cookie - 1]: "PROVIDER:NAME" */
	size_t nnames, names_cap;
};

/* The probes o->usdt_specs select in their binaries (the
 * target's when a spec names none). Returns 0; -EINVAL (said) for a bad
 * spec, an unknown binary or no probe matched; -ENOMEM. */
int usdt_plan__make(const struct source_opts *o, struct usdt_plan *plan);

/* The offsets, semaphores and cookies of set as three arrays, for
 * uprobe_sites__attach: one malloc'd block in *block (free it), or -ENOMEM. */
int usdt_plan__arrays(const struct usdt_site_set *set, uint64_t **block, uint64_t **offsets,
		      uint64_t **ref_ctrs, uint64_t **cookies);

/* Adds the probes spec ("usdt:BINARY:REGEX") selects to plan, numbered
 * after those it has. Returns 0 (none is no error here), -EINVAL (said)
 * or -ENOMEM. */
int usdt_plan__add(struct usdt_plan *plan, const struct source_opts *o, const char *spec);

/* How many probes (PROVIDER:NAME) the plan's sites are of: a probe may
 * sit in several places (inlined, or marked twice). */
size_t usdt_plan__nprobes(const struct usdt_plan *plan);

void usdt_plan__free(struct usdt_plan *plan);

#endif
