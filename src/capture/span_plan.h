/* --span: the USDT sites that open and close each span, as the sampler's
 * span program takes them: a probe cookie per site, and what the
 * site does (span.h's struct span_site) by cookie. */
#ifndef FLAMEBPF_SPAN_PLAN_H
#define FLAMEBPF_SPAN_PLAN_H

#include <linux/types.h> /* span.h's */
#include <stddef.h>

#include "source.h"
#include "span.h"
#include "usdt_plan.h"

struct span_plan {
	struct usdt_plan sites;		     /* every BEGIN and END site; cookie = index + 1 */
	struct span_site *info;		     /* info[cookie - 1] */
	const char *names[SOURCE_MAX_SPANS]; /* names[span - 1]: --span's NAME */
	size_t nspans;
};

/* The sites of o->spans. Returns 0; -EINVAL (said) for a probe that is
 * nowhere or a label argument it has not; -ENOMEM. */
int span_plan__make(const struct source_opts *o, struct span_plan *plan);

void span_plan__free(struct span_plan *plan);

#endif
