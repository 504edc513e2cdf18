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

static int append_frame(struct strbuf *b, const struct frame *f)
{
	if (strbuf__addc(b, ';') || folded__append_name(b, f->name[0] ? f->name : "[unknown]"))
		return -ENOMEM;
	return f->kind == FRAME_KERNEL ? strbuf__add(b, "_[k]", 4) : 0;
}

/* Each frame's text (";NAME", escaped), made once: the stacks of a large
 * profile repeat their frames by the million. */
struct frame_texts {
	struct strbuf buf;
	size_t *off;
	uint32_t *len; /* 0: not made yet */
};

/* Makes frame id's text, if not made yet. */
static int text_of(struct frame_texts *t, const struct profile *p, uint32_t id)
{
	if (t->len[id])
		return 0;
	t->off[id] = t->buf.len;
	if (append_frame(&t->buf, profile__frame(p, id)))
		return -ENOMEM;
	t->len[id] = (uint32_t)(t->buf.len - t->off[id]);
	return 0;
}

static int append_cached(struct frame_texts *t, const struct profile *p, uint32_t id,
			 struct strbuf *b)
{
	return text_of(t, p, id) ?: strbuf__add(b, t->buf.s + t->off[id], t->len[id]);
}

/* The bytes the frames of s take, their texts made: a first pass, so that
 * the buffer of every line grows once, not by doubling copies. */
static int frames_len(struct frame_texts *t, const struct profile *p, const struct profile_stack *s,
		      size_t *len)
{
	for (uint32_t i = 0; i < s->nframes; i++) {
		if (text_of(t, p, s->frames[i]))
			return -ENOMEM;
		*len += t->len[s->frames[i]];
	}
	return 0;
}

/* s's line but for its count, its frames' texts from t when t is not NULL. */
static int format_stack(struct frame_texts *t, const struct profile *p,
			const struct profile_stack *s, const struct write_opts *o, struct strbuf *b)
{
	if (append_root(b, &s->who, o->root))
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nframes; i++)
		if (t ? append_cached(t, p, s->frames[i], b)
		      : append_frame(b, profile__frame(p, s->frames[i])))
			return -ENOMEM;
	return 0;
}

int folded__format_stack(const struct profile *p, const struct profile_stack *s,
			 const struct write_opts *o, struct strbuf *b)
{
	return format_stack(NULL, p, s, o, b);
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
	size_t n = profile__nr_stacks(p), nf = profile__nr_frames(p), done = 0;
	struct line *lines = calloc(n ? n : 1, sizeof(*lines));
	struct frame_texts t = { { 0 },
				 calloc(nf ? nf : 1, sizeof(*t.off)),
				 calloc(nf ? nf : 1, sizeof(*t.len)) };
	struct strbuf b = {}; /* every line, each ending in a NUL */
	int err = -ENOMEM;

	size_t need = 0;

	if (!lines || !t.off || !t.len)
		goto out;
	/* a root (comm-pid/tid) is well under 64 bytes */
	for (size_t i = 0; i < n; i++)
		if (frames_len(&t, p, profile__stack(p, i), &need))
			goto out;
	if (strbuf__reserve(&b, need + n * 64))
		goto out;
	for (; done < n; done++) {
		const struct profile_stack *s = profile__stack(p, done);

		lines[done].off = b.len;
		if (format_stack(&t, p, s, o, &b) || strbuf__add(&b, "", 1))
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
	strbuf__free(&t.buf);
	free(t.off);
	free(t.len);
	free(lines);
	return err;
}
