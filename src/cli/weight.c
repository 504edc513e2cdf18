// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/strbuf.h"
#include "options.h"
#include "weight.h"

#define usage_err(...) (snprintf(err, OPTIONS_ERR_LEN, __VA_ARGS__), -EINVAL)

#define MOUNT_HINT "mount -t tracefs nodev /sys/kernel/tracing"

static int syscall_weight(struct source_opts *c, const char *arg, char *err)
{
	int ret = tracepoint_spec__weight(&c->tp, arg, &c->weight);

	if (ret == -ENOENT)
		return usage_err("--weight '%s': argument names come from tracefs's format "
				 "files, not found (" MOUNT_HINT "), or give its place: arg0 to "
				 "arg5",
				 arg);
	if (ret)
		return usage_err("invalid --weight '%s' for '%s' (a system call's argument at "
				 "sys_enter_*: its name or arg0 to arg5; ret at sys_exit_*)",
				 arg, c->tp.spec);
	return 0;
}

/* A field the tracepoint has not, or one that is no number: which it has. */
static int wrong_field(const struct source_opts *c, const char *arg, const char *format, int ret,
		       char *err)
{
	struct strbuf b = {};
	const char *why = tp_field__not_a_number(&c->tp.field);

	if (tp_format__numbers(format, &b))
		return usage_err("out of memory");
	if (ret == -EDOM)
		snprintf(err, OPTIONS_ERR_LEN,
			 "--weight '%s': '%s' of %s is %s, not a number (numeric fields: %s)", arg,
			 c->tp.field.decl, c->tp.spec, why, b.s ? b.s : "none");
	else
		snprintf(err, OPTIONS_ERR_LEN,
			 "--weight '%s': %s has no such field (numeric fields: %s)", arg,
			 c->tp.spec, b.s ? b.s : "none");
	strbuf__free(&b);
	return -EINVAL;
}

/* Any other tracepoint: a numeric field of its format in tracefs. */
static int field_weight(struct source_opts *c, const char *arg, char *err)
{
	char format[16384]; /* the fields come first: a longer print fmt may be cut */
	int ret = tracepoint_spec__weigh_field(&c->tp, arg, format, sizeof(format));

	if (ret == -ENODEV)
		return usage_err("--weight '%s': the fields of %s come from tracefs, which is not "
				 "mounted (" MOUNT_HINT ")",
				 arg, c->tp.spec);
	if (ret == -ENOENT)
		return usage_err("this kernel has no tracepoint '%s'; tracefs lists them: "
				 "/sys/kernel/tracing/available_events",
				 c->tp.spec);
	if (ret == -ESRCH || ret == -EDOM)
		return wrong_field(c, arg, format, ret, err);
	if (ret)
		return usage_err("--weight '%s': cannot read the format of %s in tracefs: %s", arg,
				 c->tp.spec, strerror(-ret));
	c->weight = TP_WEIGHT_FIELD;
	return 0;
}

int weight__parse(struct source_opts *c, const char *arg, char *err)
{
	return c->tp.nr >= 0 ? syscall_weight(c, arg, err) : field_weight(c, arg, err);
}
