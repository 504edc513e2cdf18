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

int usdt_list__binaries(const struct source_opts *o, const char *spec, struct binaries *bins,
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

/* Returns how many it printed. */
static size_t print_probes(const struct target_binary *b, const struct usdt_probes *ps,
			   const regex_t *re)
{
	char name[512];
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++) {
		const struct usdt_probe *p = &ps->v[i];

		snprintf(name, sizeof(name), "%s:%s", p->provider, p->name);
		if (re && regexec(re, name, 0, NULL, 0))
			continue;
		printf("%s:%s%s%s\n", b->path, name, p->args[0] ? " " : "", p->args);
		n++;
	}
	return n;
}

int usdt_list__print(const struct source_opts *o, const char *spec)
{
	struct binaries bins = {};
	size_t printed = 0;
	char *regex;
	regex_t re;
	int err = usdt_list__binaries(o, spec, &bins, &regex);

	if (!err && regex && regcomp(&re, regex, REG_EXTENDED | REG_NOSUB)) {
		p_err("invalid regular expression '%s'", regex);
		free(regex);
		regex = NULL;
		err = -EINVAL;
	}
	for (size_t i = 0; i < bins.n && !err; i++) {
		struct usdt_probes ps = {};
		int rerr = usdt__read(bins.v[i].open_path, &ps);

		if (rerr == -ENOMEM)
			err = rerr;
		else if (rerr)
			p_err("cannot read the probes of '%s': %s", bins.v[i].path,
			      rerr == -ENOEXEC ? "not ELF, or malformed notes" : strerror(-rerr));
		else
			printed += print_probes(&bins.v[i], &ps, regex ? &re : NULL);
		usdt__free(&ps);
	}
	if (!err && !printed) {
		p_err("no USDT probe%s%s in %s%s", regex ? " matches " : "", regex ? regex : "",
		      bins.n == 1 ? bins.v[0].path : "the target's binaries",
		      bins.n == 1 ? "" : " (sys/sdt.h probes: python3.11, libstdc++, ...)");
		err = -EINVAL;
	}
	if (regex) {
		regfree(&re);
		free(regex);
	}
	binaries__free(&bins);
	return err;
}
