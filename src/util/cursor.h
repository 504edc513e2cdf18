/* A bounded cursor over text that need not be NUL-terminated, for the
 * parsers of files other users control (/proc maps, kallsyms). */
#ifndef FLAMEBPF_CURSOR_H
#define FLAMEBPF_CURSOR_H

#include <errno.h>
#include <stdint.h>

struct cursor {
	const char *p, *end;
};

static inline int cursor__hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads 1 to 16 hex digits; strtoull would also take signs, spaces and "0x".
 * Returns 0 or -EINVAL. */
static inline int cursor__hex(struct cursor *c, uint64_t *v)
{
	const char *start = c->p;
	uint64_t x = 0;
	int d;

	while (c->p < c->end && (d = cursor__hex_digit(*c->p)) >= 0) {
		if (c->p - start == 16)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
		c->p++;
	}
	if (c->p == start)
		return -EINVAL;
	*v = x;
	return 0;
}

#endif
