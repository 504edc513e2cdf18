// SPDX-License-Identifier: GPL-2.0
/* What the readers share: lines read in blocks and handed out in place,
 * progress, and their messages. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "in.h"

#define BLOCK (1024 * 1024) /* in__getline reads this much at once */

int in__fail(struct in_ctx *c, uint64_t line, const char *fmt, ...)
{
	int n = snprintf(c->err, READER_ERR_LEN, "%s line %" PRIu64 ": ", c->name, line);
	va_list ap;

	va_start(ap, fmt);
	if (n > 0 && n < READER_ERR_LEN)
		vsnprintf(c->err + n, READER_ERR_LEN - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int in__fail_at(struct in_ctx *c, int err, const char *fmt, ...)
{
	int n = snprintf(c->err, READER_ERR_LEN, "%s: ", c->name);
	va_list ap;

	va_start(ap, fmt);
	if (n > 0 && n < READER_ERR_LEN)
		vsnprintf(c->err + n, READER_ERR_LEN - n, fmt, ap);
	va_end(ap);
	return err;
}

int in__fail_errno(struct in_ctx *c, int err)
{
	snprintf(c->err, READER_ERR_LEN, "cannot read %s: %s", c->name, strerror(-err));
	return err;
}

int in__skip_line(struct in_ctx *c, const char *why)
{
	if (!c->st->skipped++) {
		c->st->first_skipped = c->line;
		c->st->skipped_for = why;
	}
	return 0;
}

void in__advance(struct in_ctx *c, size_t n)
{
	c->done += n;
	if (c->done >= c->next_report) {
		c->next_report = c->done + IN_REPORT_STEP;
		if (c->o->progress)
			c->o->progress(c->done, c->total, c->o->arg);
	}
}

/* The next bytes of the context's range, up to want: fewer only at its end. */
static ssize_t read_range(struct in_ctx *c, char *buf, size_t want)
{
	size_t got = 0;

	if (want > c->range_end - c->range_at)
		want = c->range_end - c->range_at;
	while (got < want) {
		ssize_t n = pread(c->range_fd, buf + got, want - got, (off_t)c->range_at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += (size_t)n;
		c->range_at += (uint64_t)n;
	}
	return (ssize_t)got;
}

/* Moves what is left to the front of the block and reads more after it, in
 * a block twice as large when a line fills it. Returns 0 or -errno. */
static int refill(struct in_ctx *c)
{
	size_t n, want;

	if (c->pos) {
		memmove(c->blk, c->blk + c->pos, c->end - c->pos);
		c->end -= c->pos;
		c->pos = 0;
	}
	if (c->cap - c->end < BLOCK / 2) {
		size_t cap = c->cap ? c->cap * 2 : BLOCK;
		char *grown = realloc(c->blk, cap + 1); /* + 1: a NUL after the last line */

		if (!grown)
			return -ENOMEM;
		c->blk = grown;
		c->cap = cap;
	}
	want = c->cap - c->end;
	if (c->range_end || c->read) {
		ssize_t got = c->range_end ? read_range(c, c->blk + c->end, want)
					   : c->read(c->read_arg, c->blk + c->end, want);

		if (got < 0)
			return (int)got;
		n = (size_t)got;
	} else {
		errno = 0;
		n = fread(c->blk + c->end, 1, want, c->f);
		if (n < want && ferror(c->f))
			return errno ? -errno : -EIO;
	}
	c->end += n;
	c->eof = n < want;
	return 0;
}

size_t in__unread(struct in_ctx *c, char **s)
{
	*s = c->blk + c->pos;
	return c->end - c->pos;
}

void in__take(struct in_ctx *c, size_t n, uint64_t nlines)
{
	if (!nlines)
		return;
	c->pos += n;
	c->line += nlines;
	in__advance(c, n);
	c->last_had_newline = true;
}

/* Lines are handed out in place, in blocks read with one call each. */
ssize_t in__getline(struct in_ctx *c)
{
	char *s, *nl = NULL;
	size_t n;
	int err;

	for (;;) {
		nl = c->end > c->pos ? memchr(c->blk + c->pos, '\n', c->end - c->pos) : NULL;
		if (nl || c->eof)
			break;
		err = refill(c);
		if (err) {
			in__fail_errno(c, err);
			return -EIO;
		}
	}
	if (c->pos == c->end)
		return -1;
	s = c->blk + c->pos;
	n = nl ? (size_t)(nl - s) : c->end - c->pos;
	c->pos += n + (nl != NULL);
	c->line++;
	in__advance(c, n + (nl != NULL));
	c->last_had_newline = nl != NULL;
	if (n && s[n - 1] == '\r')
		n--;
	s[n] = '\0';
	c->buf = s;
	return n;
}
