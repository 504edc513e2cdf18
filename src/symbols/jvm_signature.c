// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "jvm_signature.h"

/* Appends s (its '/' as '.') to buf at *at. */
static int put(char *buf, size_t len, size_t *at, const char *s, size_t n, bool dots)
{
	if (*at + n >= len)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		buf[(*at)++] = dots && s[i] == '/' ? '.' : s[i];
	buf[*at] = 0;
	return 0;
}

static const char *primitive(char c)
{
	switch (c) {
	case 'B':
		return "byte";
	case 'C':
		return "char";
	case 'D':
		return "double";
	case 'F':
		return "float";
	case 'I':
		return "int";
	case 'J':
		return "long";
	case 'S':
		return "short";
	case 'Z':
		return "boolean";
	case 'V':
		return "void";
	default:
		return NULL;
	}
}

/* The type at *d of a descriptor, as Java writes it, appended to buf;
 * *d moved past it. */
static int put_type(const char **d, char *buf, size_t len, size_t *at)
{
	const char *s = *d, *p;
	unsigned int dims = 0;
	int err;

	while (*s == '[' && dims < 255)
		s++, dims++;
	if (*s == 'L') {
		const char *end = strchr(s, ';');

		if (!end || end == s + 1)
			return -EINVAL;
		err = put(buf, len, at, s + 1, (size_t)(end - s - 1), true);
		s = end + 1;
	} else if ((p = primitive(*s)) && (*s != 'V' || !dims)) {
		err = put(buf, len, at, p, strlen(p), false);
		s++;
	} else {
		return -EINVAL;
	}
	for (unsigned int i = 0; i < dims && !err; i++)
		err = put(buf, len, at, "[]", 2, false);
	*d = s;
	return err;
}

int jvm_signature__format(const char *klass, const char *name, const char *desc, char *buf,
			  size_t len)
{
	const char *ret = desc ? strchr(desc, ')') : NULL, *d;
	size_t at = 0;
	int err;

	if (!len)
		return -ENOSPC;
	buf[0] = 0;
	if (!ret || desc[0] != '(')
		return -EINVAL;
	d = ret + 1;
	err = put_type(&d, buf, len, &at);
	if (!err && *d)
		err = -EINVAL;
	err = err ?: put(buf, len, &at, " ", 1, false);
	err = err ?: put(buf, len, &at, klass, strlen(klass), true);
	err = err ?: put(buf, len, &at, ".", 1, false);
	err = err ?: put(buf, len, &at, name, strlen(name), false);
	err = err ?: put(buf, len, &at, "(", 1, false);
	for (d = desc + 1; !err && d < ret;) {
		if (*d == 'V')
			return -EINVAL; /* no argument is void */
		if (d > desc + 1)
			err = put(buf, len, &at, ", ", 2, false);
		err = err ?: put_type(&d, buf, len, &at);
		if (!err && d > ret)
			err = -EINVAL;
	}
	return err ?: put(buf, len, &at, ")", 1, false);
}
