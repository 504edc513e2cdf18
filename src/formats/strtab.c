// SPDX-License-Identifier: GPL-2.0
/*
 * The string table of the protobuf outputs (pprof, OTLP): each text once,
 * as valid UTF-8 (Go's protobuf and the collectors reject other strings).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "strtab.h"

/* What pprof's consumers expect: valid UTF-8 (Go's protobuf rejects other
 * strings). Returns s itself, a fixed copy in *copy, or NULL (-ENOMEM). */
static const char *utf8_fixed(const char *s, char **copy)
{
	size_t n = strlen(s), i = 0, len, out = 0;
	const unsigned char *u = (const unsigned char *)s;

	*copy = NULL;
	while (i < n && (len = utf8__seq_len(u + i, n - i)))
		i += len;
	if (i == n)
		return s;
	*copy = malloc(n * 3 + 1); /* each bad byte becomes U+FFFD */
	if (!*copy)
		return NULL;
	for (i = 0; i < n; i += len ? len : 1) {
		len = utf8__seq_len(u + i, n - i);
		memcpy(*copy + out, len ? s + i : "\xef\xbf\xbd", len ? len : 3);
		out += len ? len : 3;
	}
	(*copy)[out] = '\0';
	return *copy;
}

static int strtab__keep(struct strtab *t, char *copy)
{
	char **v = realloc(t->owned, (t->nowned + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->owned = v;
	t->owned[t->nowned++] = copy;
	return 0;
}

static int strtab__push(struct strtab *t, const char *s, uint64_t h, int64_t *idx)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		char **v = realloc(t->s, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->s = v;
		t->cap = cap;
	}
	if (hashmap__set(&t->idx, h, t->n))
		return -ENOMEM;
	t->s[t->n] = (char *)s; /* protobuf-c only reads it */
	*idx = (int64_t)t->n++;
	return 0;
}

/* Find-or-create s (which must outlive the table) in t. 0 or -ENOMEM. */
int strtab__findnew(struct strtab *t, const char *s, int64_t *idx)
{
	char *copy;
	const char *text = utf8_fixed(s, &copy);
	uint64_t h, i;

	if (!text)
		return -ENOMEM;
	h = hash_bytes(text, strlen(text), 0);
	while (hashmap__get(&t->idx, h, &i)) {
		if (!strcmp(t->s[i], text)) {
			free(copy);
			*idx = (int64_t)i;
			return 0;
		}
		h = hash_mix(h + 0x9e3779b97f4a7c15ULL);
	}
	if (copy && strtab__keep(t, copy)) {
		free(copy);
		return -ENOMEM;
	}
	return strtab__push(t, text, h, idx);
}

/* "WHAT: TEXT", a string the table owns. */
int strtab__findnew_named(struct strtab *t, const char *what, const char *text, int64_t *idx)
{
	char *line;

	if (asprintf(&line, "%s%s%s", what, what[0] ? ": " : "", text) < 0)
		return -ENOMEM;
	if (strtab__keep(t, line)) {
		free(line);
		return -ENOMEM;
	}
	return strtab__findnew(t, line, idx);
}

void strtab__free(struct strtab *t)
{
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t->s);
	hashmap__free(&t->idx);
}
