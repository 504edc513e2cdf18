// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out_folded.h"

struct line {
	const char *text; /* the stack, without the count */
	size_t off, len;  /* of the text in the buffer of every line */
	uint64_t count;
};

static bool plain(unsigned char c)
{
	return c >= 0x20 && c != ';' && c != 0x7f;
}

/* Runs of plain bytes are copied at once: names are written by the million. */
int folded__append_name(struct strbuf *buf, const char *name)
{
	const unsigned char *c = (const unsigned char *)name;

	while (*c) {
		size_t n = 0;

		while (plain(c[n]))
			n++;
		if (n && strbuf__add(buf, (const char *)c, n))
			return -ENOMEM;
		c += n;
		if (*c && strbuf__addc(buf, *c++ == ';' ? ':' : '?'))
			return -ENOMEM;
	}
	return 0;
}

int folded__append_ids(struct strbuf *b, const struct stack_owner *who, enum root_style root)
{
	char pid[16] = "?";

	if (root == ROOT_COMM)
		return 0;
	if (who->pid != PROFILE_PID_UNKNOWN)
		snprintf(pid, sizeof(pid), "%u", who->pid);
	if (root == ROOT_PID)
		return strbuf__addf(b, "-%s", pid);
	return strbuf__addf(b, "-%s/%u", pid, who->tid);
}

static int append_root(struct strbuf *b, const struct stack_owner *who, enum root_style root)
{
	if (folded__append_name(b, who->comm[0] ? who->comm : "[unknown]"))
		return -ENOMEM;
	return folded__append_ids(b, who, root);
}

int folded__format_stack(const struct profile *p, const struct profile_stack *s,
			 const struct write_opts *o, struct strbuf *b)
{
	if (append_root(b, &s->who, o->root))
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nframes; i++) {
		const struct frame *f = profile__frame(p, s->frames[i]);

		if (strbuf__addc(b, ';') ||
		    folded__append_name(b, f->name[0] ? f->name : "[unknown]"))
			return -ENOMEM;
		if (f->kind == FRAME_KERNEL && strbuf__add(b, "_[k]", 4))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

static bool same_text(const struct line *a, const struct line *b)
{
	return a->len == b->len && !memcmp(a->text, b->text, a->len);
}

static int write_merged(const struct line *lines, size_t n, FILE *f)
{
	for (size_t i = 0; i < n;) {
		uint64_t count = 0;
		size_t j = i;

		for (; j < n && same_text(&lines[j], &lines[i]); j++)
			count += lines[j].count;
		if (count && fprintf(f, "%s %" PRIu64 "\n", lines[i].text, count) < 0)
			return -EIO;
		i = j;
	}
	return 0;
}

int folded__write(const struct profile *p, const struct write_opts *o, FILE *f)
{
	size_t n = profile__nr_stacks(p), done = 0;
	struct line *lines = calloc(n ? n : 1, sizeof(*lines));
	struct strbuf b = {}; /* every line, each ending in a NUL */
	int err = -ENOMEM;

	if (!lines)
		return -ENOMEM;
	for (; done < n; done++) {
		const struct profile_stack *s = profile__stack(p, done);

		lines[done].off = b.len;
		if (folded__format_stack(p, s, o, &b) || strbuf__add(&b, "", 1))
			goto out;
		lines[done].len = b.len - 1 - lines[done].off;
		lines[done].count = s->weight;
	}
	for (size_t i = 0; i < n; i++)
		lines[i].text = b.s + lines[i].off;
	qsort(lines, n, sizeof(*lines), cmp_line);
	err = write_merged(lines, n, f);
out:
	strbuf__free(&b);
	free(lines);
	return err;
}
