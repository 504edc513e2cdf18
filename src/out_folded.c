// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out_folded.h"

struct line {
	char *text; /* the stack, without the count */
	uint64_t count;
};

int folded__append_name(struct strbuf *buf, const char *name)
{
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		char out = *c == ';' ? ':' : (*c < 0x20 || *c == 0x7f) ? '?' : (char)*c;

		if (strbuf__addc(buf, out))
			return -ENOMEM;
	}
	return 0;
}

static int append_root(struct strbuf *b, const struct stack_owner *who, enum root_style root)
{
	if (folded__append_name(b, who->comm[0] ? who->comm : "[unknown]"))
		return -ENOMEM;
	if (root == ROOT_PID)
		return strbuf__addf(b, "-%u", who->pid);
	if (root == ROOT_TID)
		return strbuf__addf(b, "-%u/%u", who->pid, who->tid);
	return 0;
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

static void free_lines(struct line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
}

static int write_merged(const struct line *lines, size_t n, FILE *f)
{
	for (size_t i = 0; i < n;) {
		uint64_t count = 0;
		size_t j = i;

		for (; j < n && !strcmp(lines[j].text, lines[i].text); j++)
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
	struct strbuf b = {};
	int err = -ENOMEM;

	if (!lines)
		return -ENOMEM;
	for (; done < n; done++) {
		const struct profile_stack *s = profile__stack(p, done);

		if (folded__format_stack(p, s, o, &b))
			goto out;
		lines[done].text = strbuf__detach(&b);
		lines[done].count = s->weight;
		if (!lines[done].text)
			goto out;
	}
	qsort(lines, n, sizeof(*lines), cmp_line);
	err = write_merged(lines, n, f);
out:
	strbuf__free(&b);
	free_lines(lines, done);
	return err;
}
