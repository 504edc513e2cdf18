// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/usdt.h"
#include "util/msg.h"
#include "targets.h"
#include "usdt_list.h"

bool usdt_list__is(const char *spec)
{
	return !strncmp(spec, "usdt:", 5);
}

/* The binaries of spec into bins, its regex (NULL for all; malloc'd) into
 * *regex. */
static int binaries_of(const struct source_opts *o, const char *spec, struct binaries *bins,
		       char **regex)
{
	const char *rest = spec + 5, *colon = strchr(rest, ':');
	struct binaries target = {};
	char *binary = strndup(rest, colon ? (size_t)(colon - rest) : strlen(rest));
	int err = binary ? targets__of(o, &target) : -ENOMEM;

	*regex = NULL;
	if (!err && colon && colon[1] && !(*regex = strdup(colon + 1)))
		err = -ENOMEM;
	if (!err && binary[0]) {
		err = targets__resolve(binary, &target, bins);
	} else if (!err && !target.n) {
		p_err("'%s': give the binary (usdt:/usr/bin/python3.11:) or a target (-p PID, "
		      "COMMAND)",
		      spec);
		err = -EINVAL;
	} else if (!err) {
		for (size_t i = 0; i < target.n && !err; i++)
			err = binaries__add(bins, &target.v[i]);
	}
	binaries__free(&target);
	free(binary);
	return err;
}

int usdt_list__select(const struct source_opts *o, const char *spec, struct usdt_select *sel)
{
	int err;

	memset(sel, 0, sizeof(*sel));
	err = binaries_of(o, spec, &sel->bins, &sel->regex);
	if (!err && sel->regex && regcomp(&sel->re, sel->regex, REG_EXTENDED | REG_NOSUB)) {
		p_err("invalid regular expression '%s'", sel->regex);
		err = -EINVAL;
	} else if (!err && sel->regex) {
		sel->has_re = true;
	}
	return err;
}

void usdt_list__select_free(struct usdt_select *sel)
{
	if (sel->has_re)
		regfree(&sel->re);
	free(sel->regex);
	binaries__free(&sel->bins);
	memset(sel, 0, sizeof(*sel));
}

bool usdt_list__matches(const regex_t *re, const struct usdt_probe *p, char *name, size_t n)
{
	snprintf(name, n, "%s:%s", p->provider, p->name);
	return !re || !regexec(re, name, 0, NULL, 0);
}

/* Returns how many it printed. */
static size_t print_probes(const struct target_binary *b, const struct usdt_probes *ps,
			   const regex_t *re)
{
	char name[512];
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++) {
		const struct usdt_probe *p = &ps->v[i];

		if (!usdt_list__matches(re, p, name, sizeof(name)))
			continue;
		printf("%s:%s%s%s\n", b->path, name, p->args[0] ? " " : "", p->args);
		n++;
	}
	return n;
}

int usdt_list__print(const struct source_opts *o, const char *spec)
{
	struct usdt_select sel;
	const struct binaries *bins = &sel.bins;
	size_t printed = 0;
	int err = usdt_list__select(o, spec, &sel);

	for (size_t i = 0; i < bins->n && !err; i++) {
		struct usdt_probes ps = {};
		int rerr = usdt__read(bins->v[i].open_path, &ps);

		if (rerr == -ENOMEM)
			err = rerr;
		else if (rerr)
			p_err("cannot read the probes of '%s': %s", bins->v[i].path,
			      rerr == -ENOEXEC ? "not ELF, or malformed notes" : strerror(-rerr));
		else
			printed += print_probes(&bins->v[i], &ps, sel.has_re ? &sel.re : NULL);
		usdt__free(&ps);
	}
	if (!err && !printed) {
		p_err("no USDT probe%s%s in %s%s", sel.regex ? " matches " : "",
		      sel.regex ? sel.regex : "",
		      bins->n == 1 ? bins->v[0].path : "the target's binaries",
		      bins->n == 1 ? "" : " (sys/sdt.h probes: python3.11, libstdc++, ...)");
		err = -EINVAL;
	}
	usdt_list__select_free(&sel);
	return err;
}
