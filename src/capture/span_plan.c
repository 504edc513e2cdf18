// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/msg.h"
#include "probe_args.h"
#include "span_plan.h"

/* "usdt:BIN:PROVIDER:NAME" as usdt_plan__add takes it: the name
 * anchored, so that req_start is not also req_start_fast. */
static char *anchored(const char *probe)
{
	const char *prov = strchr(probe + 5, ':');
	size_t n = strlen(probe) + 3;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%.*s:^%s$", (int)(prov - probe), probe, prov + 1);
	return s;
}

/* The label argument of a BEGIN site, from its spec. */
static int label_arg(const struct span_spec *sp, const struct usdt_site *site, struct usdt_loc *out)
{
	struct usdt_arg args[USDT_MAX_ARGS];
	size_t n = 0;

	if (usdt_args__parse(site->args, args, &n)) {
		p_err("--span %s: cannot read the arguments of %s ('%s')", sp->name, sp->begin,
		      site->args);
		return -EINVAL;
	}
	if ((size_t)sp->label_arg >= n) {
		p_err("--span %s: %s has %zu argument%s: no arg%d", sp->name, sp->begin, n,
		      n == 1 ? "" : "s", sp->label_arg);
		return -EINVAL;
	}
	probe_args__from(&args[sp->label_arg], out);
	return 0;
}

/* What the sites numbered from first on do: open or close span i. */
static int describe_sites(struct span_plan *plan, size_t first, size_t i, bool end,
			  const struct span_spec *sp)
{
	const struct usdt_plan *u = &plan->sites;
	int err = 0;

	for (size_t b = 0; b < u->nbins && !err; b++) {
		for (size_t k = 0; k < u->bins[b].n && !err; k++) {
			const struct usdt_site *site = &u->bins[b].v[k];
			struct span_site *info = &plan->info[site->cookie - 1];

			if (site->cookie <= first)
				continue;
			*info = (struct span_site){ .span = (__u32)i + 1, .end = end };
			if (!end && sp->label_arg >= 0) {
				info->label =
					sp->label_number ? SPAN_LABEL_NUMBER : SPAN_LABEL_STRING;
				err = label_arg(sp, site, &info->arg);
			}
		}
	}
	return err;
}

/* Adds probe's sites (BEGIN or END of span i) to the plan. */
static int add_probe(struct span_plan *plan, const struct source_opts *o, size_t i, bool end)
{
	const struct span_spec *sp = &o->spans[i];
	const char *probe = end ? sp->end : sp->begin;
	size_t first = plan->sites.nnames;
	char *spec = anchored(probe);
	struct span_site *info;
	int err = spec ? usdt_plan__add(&plan->sites, o, spec) : -ENOMEM;

	free(spec);
	if (!err && plan->sites.nnames == first) {
		p_err("--span %s: no USDT probe %s", sp->name, probe);
		err = -EINVAL;
	}
	if (err)
		return err;
	info = realloc(plan->info, plan->sites.nnames * sizeof(*info));
	if (!info)
		return -ENOMEM;
	plan->info = info;
	return describe_sites(plan, first, i, end, sp);
}

int span_plan__make(const struct source_opts *o, struct span_plan *plan)
{
	int err = 0;

	*plan = (struct span_plan){ .nspans = o->nspans };
	for (size_t i = 0; i < o->nspans; i++)
		plan->names[i] = o->spans[i].name;
	for (size_t i = 0; i < o->nspans && !err; i++) {
		err = add_probe(plan, o, i, false);
		if (!err)
			err = add_probe(plan, o, i, true);
	}
	if (err)
		span_plan__free(plan);
	return err;
}

void span_plan__free(struct span_plan *plan)
{
	usdt_plan__free(&plan->sites);
	free(plan->info);
	*plan = (struct span_plan){ 0 };
}
