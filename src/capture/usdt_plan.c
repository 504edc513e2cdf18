// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/usdt.h"
#include "util/array.h"
#include "util/msg.h"
#include "targets.h"
#include "usdt_list.h"
#include "usdt_plan.h"

static int add_site(struct usdt_site_set *set, const struct usdt_probe *p, uint64_t cookie)
{
	struct usdt_site s = { p->offset, p->sema_offset, cookie, strdup(p->args) };

	if (s.args && !array__push((void **)&set->v, &set->n, &set->cap, &s, sizeof(s)))
		return 0;
	free(s.args);
	return -ENOMEM;
}

static void free_sites(struct usdt_site_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->v[i].args);
	free(set->v);
	free(set->path);
}

int usdt_plan__arrays(const struct usdt_site_set *set, uint64_t **block, uint64_t **offsets,
		      uint64_t **ref_ctrs, uint64_t **cookies)
{
	uint64_t *b = calloc(3 * (set->n ? set->n : 1), sizeof(*b));

	if (!b)
		return -ENOMEM;
	*offsets = b;
	*ref_ctrs = b + set->n;
	*cookies = b + 2 * set->n;
	for (size_t i = 0; i < set->n; i++) {
		(*offsets)[i] = set->v[i].offset;
		(*ref_ctrs)[i] = set->v[i].ref_ctr;
		(*cookies)[i] = set->v[i].cookie;
	}
	*block = b;
	return 0;
}

static int add_name(struct usdt_plan *plan, const char *probe)
{
	char *name = strdup(probe);

	if (!name)
		return -ENOMEM;
	if (array__push((void **)&plan->names, &plan->nnames, &plan->names_cap, &name,
			sizeof(name))) {
		free(name);
		return -ENOMEM;
	}
	return 0;
}

/* The probes of one binary that re matches, into a new set of plan. */
static int add_binary(struct usdt_plan *plan, const struct target_binary *b, const regex_t *re)
{
	struct usdt_probes ps = {};
	struct usdt_site_set set = {};
	int err = usdt__read(b->open_path, &ps);

	for (size_t i = 0; i < ps.n && !err; i++) {
		char name[512];

		if (!usdt_list__matches(re, &ps.v[i], name, sizeof(name)))
			continue;
		err = add_name(plan, name);
		if (!err)
			err = add_site(&set, &ps.v[i], plan->nnames);
	}
	usdt__free(&ps);
	if (!err && set.n && !(set.path = strdup(b->open_path)))
		err = -ENOMEM;
	if (!err && set.n)
		err = array__push((void **)&plan->bins, &plan->nbins, &plan->bins_cap, &set,
				  sizeof(set));
	if (err || !set.n)
		free_sites(&set);
	return err == -ENOEXEC || err == -ENOENT ? 0 : err;
}

int usdt_plan__add(struct usdt_plan *plan, const struct source_opts *o, const char *spec)
{
	struct usdt_select sel;
	int err = usdt_list__select(o, spec, &sel);

	for (size_t i = 0; i < sel.bins.n && !err; i++)
		err = add_binary(plan, &sel.bins.v[i], sel.has_re ? &sel.re : NULL);
	usdt_list__select_free(&sel);
	return err;
}

int usdt_plan__make(const struct source_opts *o, struct usdt_plan *plan)
{
	int err = 0;

	*plan = (struct usdt_plan){ 0 };
	for (size_t i = 0; i < o->nusdt && !err; i++)
		err = usdt_plan__add(plan, o, o->usdt_specs[i]);
	if (!err && !plan->nnames) {
		p_err("no USDT probe matches %s%s", o->usdt_specs[0], o->nusdt > 1 ? ", ..." : "");
		err = -EINVAL;
	}
	if (err)
		usdt_plan__free(plan);
	return err;
}

size_t usdt_plan__nprobes(const struct usdt_plan *plan)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->nnames; i++) {
		size_t j = 0;

		while (j < i && strcmp(plan->names[j], plan->names[i]))
			j++;
		n += j == i;
	}
	return n;
}

void usdt_plan__free(struct usdt_plan *plan)
{
	for (size_t i = 0; i < plan->nbins; i++)
		free_sites(&plan->bins[i]);
	for (size_t i = 0; i < plan->nnames; i++)
		free(plan->names[i]);
	free(plan->bins);
	free(plan->names);
	*plan = (struct usdt_plan){ 0 };
}
