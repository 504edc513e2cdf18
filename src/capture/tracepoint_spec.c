// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "syscalls.h"
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

/* The name of the field a format line declares ("\tfield:size_t count;\t...")
 * into *name, *len; false for another line. */
static bool line_field(const char *line, size_t n, const char **name, size_t *len)
{
	const char *f = memmem(line, n, "field:", 6), *semi, *p;

	if (!f || !(semi = memchr(f, ';', n - (f - line))))
		return false;
	for (p = semi; p > f + 6 && p[-1] != ' ' && p[-1] != '*'; p--)
		;
	*name = p;
	*len = semi - p;
	return true;
}

int tracepoint_spec__field(const char *format, const char *field)
{
	size_t flen = strlen(field), n, len;
	const char *name;
	bool args = false;
	int i = 0;

	for (const char *l = format; *l; l += n + (l[n] == '\n')) {
		n = strcspn(l, "\n");
		if (!line_field(l, n, &name, &len))
			continue;
		if (len == 12 && !strncmp(name, "__syscall_nr", 12)) {
			args = true; /* the call's arguments, or its return, follow */
			continue;
		}
		if (!args)
			continue;
		if (len == flen && !strncmp(name, field, flen))
			return !strcmp(field, "ret") ? TP_WEIGHT_RET : i;
		i++;
	}
	return -1;
}

/* A system call's argument by name, from its format file in tracefs. */
static int named_field(const struct tracepoint_spec *tp, const char *field, int *w)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	const char *name = strchr(tp->spec, ':') + 1;
	char path[256], text[8192];
	size_t n = 0;
	FILE *f = NULL;

	for (size_t i = 0; i < 2 && !f; i++) {
		snprintf(path, sizeof(path), "%s/events/syscalls/%s/format", roots[i], name);
		f = fopen(path, "re");
	}
	if (!f)
		return -ENOENT;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	*w = tracepoint_spec__field(text, field);
	return *w < 0 || *w > TP_WEIGHT_RET ? -EINVAL : 0;
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
