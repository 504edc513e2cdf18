// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>

#include "py_linetable.h"

/* Entry codes, in bits 3-6 of an entry's first byte (bit 7 set). */
#define LOC_NONE      15 /* no location */
#define LOC_LONG      14 /* line delta, end line, columns: varints */
#define LOC_NO_COLUMN 13 /* line delta: a signed varint */
#define LOC_ONE_LINE0 10 /* 10-12: line delta 0-2, two column bytes */

struct cursor {
	const uint8_t *t;
	size_t len, at;
};

/* 6 bits a byte, least significant first; 0x40 says another follows. */
static unsigned int varint(struct cursor *c)
{
	unsigned int v = 0, shift = 0;
	uint8_t b;

	do {
		if (c->at >= c->len || shift > 28)
			return v;
		b = c->t[c->at++];
		v |= (unsigned int)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int svarint(struct cursor *c)
{
	unsigned int v = varint(c);

	return v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
}

/* The line delta of the entry of code at c (past its first byte); leaves c
 * at the next entry's first byte. */
static int entry_delta(struct cursor *c, unsigned int code)
{
	int delta = 0;

	if (code == LOC_LONG || code == LOC_NO_COLUMN)
		delta = svarint(c);
	else if (code >= LOC_ONE_LINE0 && code < LOC_NO_COLUMN)
		delta = (int)(code - LOC_ONE_LINE0);
	/* the rest of the entry: skip to the next first byte */
	while (c->at < c->len && !(c->t[c->at] & 0x80))
		c->at++;
	return delta;
}

int py_linetable__line(const uint8_t *t, size_t len, int firstlineno, int lasti)
{
	struct cursor c = { t, len, 0 };
	int line = firstlineno, addr = 0;

	if (lasti < 0)
		return firstlineno;
	while (c.at < c.len) {
		uint8_t first = c.t[c.at++];
		unsigned int code = (first >> 3) & 15;
		int units = (first & 7) + 1;

		line += entry_delta(&c, code);
		if (lasti < addr + units)
			return code == LOC_NONE ? firstlineno : line;
		addr += units;
	}
	return firstlineno;
}

#define PAIR_NO_LINE (-128)

int py_linetable__line_pairs(const uint8_t *t, size_t len, int firstlineno, int lasti)
{
	long target = 2L * lasti, addr = 0;
	int line = firstlineno;

	if (lasti < 0)
		return firstlineno;
	for (size_t i = 0; i + 1 < len; i += 2) {
		int delta = (int8_t)t[i + 1];

		if (delta != PAIR_NO_LINE)
			line += delta;
		if (target < addr + t[i])
			return delta == PAIR_NO_LINE ? firstlineno : line;
		addr += t[i];
	}
	return firstlineno;
}
