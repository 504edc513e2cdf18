// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem_hint.h"
#include "strbuf.h"

static int reserve(struct strbuf *b, size_t extra)
{
	size_t cap = b->cap ? b->cap : 64;
	char *s;

	if (b->len + extra + 1 <= b->cap)
		return 0;
	while (cap < b->len + extra + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s)
		return -ENOMEM;
	mem_hint__huge(s, cap);
	b->s = s;
	b->cap = cap;
	return 0;
}

int strbuf__reserve(struct strbuf *b, size_t extra)
{
	return reserve(b, extra);
}

int strbuf__add(struct strbuf *b, const char *s, size_t n)
{
	if (reserve(b, n))
		return -ENOMEM;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int strbuf__addc(struct strbuf *b, char c)
{
	return strbuf__add(b, &c, 1);
}

int strbuf__addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, n))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
	return 0;
}

char *strbuf__detach(struct strbuf *b)
{
	char *s = b->s ? b->s : strdup("");

	memset(b, 0, sizeof(*b));
	return s;
}

void strbuf__reset(struct strbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void strbuf__free(struct strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
