// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "span_opt.h"

#define usage_err(...) (snprintf(err, OPTIONS_ERR_LEN, __VA_ARGS__), -EINVAL)

#define SPAN_SYNTAX "NAME=usdt:BINARY:PROVIDER:BEGIN[(argN)],usdt:BINARY:PROVIDER:END"

/* "usdt:BINARY:PROVIDER:NAME": a probe named whole (BINARY empty: the
 * target's binaries). */
static bool probe_named(const char *p)
{
	const char *bin, *prov, *name;

	if (strncmp(p, "usdt:", 5))
		return false;
	bin = p + 5;
	prov = strchr(bin, ':');
	name = prov ? strchr(prov + 1, ':') : NULL;
	return prov && name && name > prov + 1 && name[1] && !strchr(name + 1, ':');
}

/* BEGIN's "(argN)" or "(argN:int)": cut off, into s. */
static int label_of(char *begin, struct span_spec *s, char *err)
{
	char *open = strrchr(begin, '('), *end;
	long n;

	s->label_arg = -1;
	if (!open)
		return 0;
	if (strncmp(open, "(arg", 4))
		return usage_err("--span: bad label '%s' (argN, from arg0: its string; "
				 "argN:int: its value)",
				 open);
	n = strtol(open + 4, &end, 10);
	s->label_number = !strcmp(end, ":int)");
	if (end == open + 4 || n < 0 || n > 11 || (strcmp(end, ")") && !s->label_number))
		return usage_err("--span: bad label '%s' (argN, N from 0 to 11: its string; "
				 "argN:int: its value)",
				 open);
	s->label_arg = (int)n;
	*open = '\0';
	return 0;
}

int span_opt__parse(struct source_opts *c, const char *arg, char *err)
{
	const char *eq = strchr(arg, '='), *comma = strstr(arg, ",usdt:");
	struct span_spec s = {};

	if (c->nspans == SOURCE_MAX_SPANS)
		return usage_err("more than %d --span", SOURCE_MAX_SPANS);
	if (!eq || eq == arg || !comma || comma < eq)
		return usage_err("invalid --span '%s' (" SPAN_SYNTAX ")", arg);
	s.name = strndup(arg, eq - arg);
	s.begin = strndup(eq + 1, comma - eq - 1);
	s.end = strdup(comma + 1);
	if (!s.name || !s.begin || !s.end) {
		free(s.name);
		free(s.begin);
		free(s.end);
		return usage_err("out of memory");
	}
	c->spans[c->nspans++] = s;
	if (label_of(c->spans[c->nspans - 1].begin, &c->spans[c->nspans - 1], err))
		return -EINVAL;
	if (!probe_named(s.begin) || !probe_named(s.end))
		return usage_err("invalid --span '%s': BEGIN and END are each one probe, "
				 "usdt:BINARY:PROVIDER:NAME (" SPAN_SYNTAX ")",
				 arg);
	if (strpbrk(s.name, ";[] \t"))
		return usage_err("--span '%s': a span's name is a frame's: no ';', '[', ']' "
				 "or blank",
				 s.name);
	return 0;
}

void span_opt__free(struct source_opts *c)
{
	for (size_t i = 0; i < c->nspans; i++) {
		free(c->spans[i].name);
		free(c->spans[i].begin);
		free(c->spans[i].end);
	}
	c->nspans = 0;
}
