// SPDX-License-Identifier: GPL-2.0
/* The pusher's options, checked as they are parsed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "push_opt.h"

#define err_msg(err, ...) (snprintf(err, OPTIONS_ERR_LEN, __VA_ARGS__), -EINVAL)

static int add_label(struct push_opts *o, const char *arg, char *err)
{
	size_t klen = strcspn(arg, "=");

	if (push__check_label(arg, err, OPTIONS_ERR_LEN))
		return -EINVAL;
	if (o->nlabels == PUSH_MAX_LABELS)
		return err_msg(err, "more than %d --label (at '%s')", PUSH_MAX_LABELS, arg);
	if (!strncmp(arg, "host=", 5))
		return err_msg(err, "--label '%s': host is the machine's name, set by flamebpf",
			       arg);
	for (size_t i = 0; i < o->nlabels; i++)
		if (!strncmp(o->labels[i], arg, klen + 1))
			return err_msg(err, "--label '%s': that key was given before", arg);
	o->labels[o->nlabels++] = arg;
	return 0;
}

static int set_app(struct push_opts *o, const char *arg, char *err)
{
	bool ok = arg[0] != '\0';

	for (const char *c = arg; ok && *c; c++)
		ok = (unsigned char)*c > ' ' && (unsigned char)*c != 0x7f && !strchr("{},=\"'", *c);
	if (!ok)
		return err_msg(err,
			       "--app '%s': a name without spaces, control characters, { } , = "
			       "or quotes",
			       arg);
	o->app = arg;
	return 0;
}

int push_opt__parse(enum push_opt which, const char *arg, struct push_opts *o, char *err)
{
	switch (which) {
	case PUSH_OPT_URL:
		o->url = arg;
		return push__check_url(arg, err, OPTIONS_ERR_LEN);
	case PUSH_OPT_APP:
		return set_app(o, arg, err);
	case PUSH_OPT_LABEL:
		return add_label(o, arg, err);
	case PUSH_OPT_CA:
		o->ca_file = arg;
		return arg[0] ? 0 : err_msg(err, "--push-ca needs a file");
	case PUSH_OPT_TOKEN_FILE:
		o->token_file = arg;
		return arg[0] ? 0 : err_msg(err, "--push-token-file needs a file");
	case PUSH_OPT_SPOOL:
		o->spool_dir = arg;
		return arg[0] ? 0 : err_msg(err, "--spool needs a directory");
	case PUSH_OPT_SPOOL_SIZE:
		if (options__parse_bytes_max(arg, PUSH_OPT_MAX_SPOOL, &o->spool_size))
			return err_msg(err,
				       "invalid --spool-size '%s' (bytes: 256M, 2G; 1 to 1 TiB)",
				       arg);
		return 0;
	}
	return -EINVAL;
}

int push_opt__check(const struct push_opts *o, char *err)
{
	const char *given = o->app	    ? "--app"
			    : o->nlabels    ? "--label"
			    : o->ca_file    ? "--push-ca"
			    : o->token_file ? "--push-token-file"
			    : o->spool_dir  ? "--spool"
			    : o->spool_size ? "--spool-size"
					    : NULL;

	if (!o->url && given)
		return err_msg(err, "%s is for --push URL", given);
	return 0;
}
