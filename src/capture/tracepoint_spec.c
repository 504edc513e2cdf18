// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syscalls.h"
#include "tp_format.h"
#include "tracefs.h"
#include "tracepoint_spec.h"

bool tracepoint_spec__is(const char *s)
{
	return !strncmp(s, "tracepoint:", 11) || !strncmp(s, "t:", 2);
}

static bool good_name(const char *s, size_t n)
{
	if (!n || n >= TRACEPOINT_NAME_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* syscalls:sys_enter_NAME, syscalls:sys_exit_NAME */
static int syscall_of(const char *name, struct tracepoint_spec *tp)
{
	const char *call = !strncmp(name, "sys_enter_", 10) ? name + 10
			   : !strncmp(name, "sys_exit_", 9) ? name + 9
							    : NULL;

	if (!call)
		return -EINVAL;
	tp->exit = name[5] == 'x';
	tp->nr = syscalls__nr(call);
	snprintf(tp->raw, sizeof(tp->raw), "%s", tp->exit ? "sys_exit" : "sys_enter");
	return tp->nr < 0 ? -ENOENT : 0;
}

int tracepoint_spec__parse(const char *s, struct tracepoint_spec *tp)
{
	const char *cat, *name;

	*tp = (struct tracepoint_spec){ .nr = -1 };
	if (!tracepoint_spec__is(s))
		return -EINVAL;
	cat = strchr(s, ':') + 1;
	name = strchr(cat, ':');
	if (!name)
		return -EINVAL;
	name++;
	if (!good_name(cat, name - 1 - cat) || !good_name(name, strlen(name)))
		return -EINVAL;
	snprintf(tp->spec, sizeof(tp->spec), "%s", cat);
	if (!strncmp(cat, "syscalls:", 9))
		return syscall_of(name, tp);
	snprintf(tp->raw, sizeof(tp->raw), "%s", name);
	return 0;
}

int tracepoint_spec__field(const char *format, const char *field)
{
	const char *at = format;
	struct tp_field f;
	bool args = false;
	int i = 0;

	while (tp_format__next(&at, &f)) {
		if (!strcmp(f.name, "__syscall_nr")) {
			args = true; /* the call's arguments, or its return, follow */
			continue;
		}
		if (!args)
			continue;
		if (!strcmp(f.name, field))
			return !strcmp(field, "ret") ? TP_WEIGHT_RET : i;
		i++;
	}
	return -1;
}

/* A system call's argument by name, from its format file in tracefs. */
static int named_field(const struct tracepoint_spec *tp, const char *field, int *w)
{
	char root[4096], text[8192];

	if (tracefs__root(root, sizeof(root)) ||
	    tracefs__event_file(root, tp->spec, "format", text, sizeof(text)))
		return -ENOENT;
	*w = tracepoint_spec__field(text, field);
	return *w < 0 || *w > TP_WEIGHT_RET ? -EINVAL : 0;
}

int tracepoint_spec__weigh_field(struct tracepoint_spec *tp, const char *field, char *format,
				 size_t len)
{
	char root[4096], id[32];
	int err;

	*format = '\0';
	if (tracefs__root(root, sizeof(root)))
		return -ENODEV;
	err = tracefs__event_file(root, tp->spec, "format", format, len);
	if (err)
		return err;
	if (tp_format__field(format, field, &tp->field))
		return -ESRCH;
	if (tp_field__not_a_number(&tp->field))
		return -EDOM;
	err = tracefs__event_file(root, tp->spec, "id", id, sizeof(id));
	if (err)
		return err;
	tp->id = strtoul(id, NULL, 10);
	return tp->id ? 0 : -EINVAL;
}

int tracepoint_spec__weight(const struct tracepoint_spec *tp, const char *s, int *w)
{
	if (tp->nr < 0)
		return -EINVAL;
	if (!tp->exit && !strncmp(s, "arg", 3) && s[3] >= '0' && s[3] <= '5' && !s[4]) {
		*w = s[3] - '0';
		return 0;
	}
	if (tp->exit && !strcmp(s, "ret")) {
		*w = TP_WEIGHT_RET;
		return 0;
	}
	if (strncmp(s, "arg", 3) && strcmp(s, "ret"))
		return named_field(tp, s, w);
	return -EINVAL;
}
