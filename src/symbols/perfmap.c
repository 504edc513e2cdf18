// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cursor.h"
#include "perfmap.h"
#include "proc_root.h"

/* PERFMAP_MAX_BYTES keeps pool offsets and counts below 2^32. */
struct entry {
	uint64_t start, end; /* end exclusive */
	uint32_t name;	     /* offset in the pool */
	uint32_t seq;	     /* line order: the later wins */
};

/* Where an entry is the one that counts: disjoint, sorted. */
struct seg {
	uint64_t start, end;
	uint32_t entry;
};

struct perfmap {
	struct entry *e; /* sorted by start once parsed */
	size_t n, e_cap;
	struct seg *segs;
	size_t nsegs, segs_cap;
	char *pool;
	size_t pool_len, pool_cap;
};

/* One line's fields; name points into the text. */
struct pm_line {
	uint64_t start, size;
	const char *name;
	size_t name_len;
};

static bool skip_blanks(struct cursor *c)
{
	const char *start = c->p;

	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
	return c->p > start;
}

/* Hex, "0x" allowed (perf writes none, some JITs do), then blanks. */
static int parse_number(struct cursor *c, uint64_t *v)
{
	if (c->end - c->p > 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X'))
		c->p += 2;
	if (cursor__hex(c, v))
		return -EINVAL;
	return skip_blanks(c) ? 0 : -EINVAL;
}

/* Cuts a long name where no UTF-8 sequence is split. */
static size_t cut_name(const char *s, size_t len)
{
	if (len <= PERFMAP_MAX_NAME)
		return len;
	len = PERFMAP_MAX_NAME;
	while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
		len--;
	return len;
}

/* "START SIZE NAME": the name is the rest of the line, spaces included. */
static int parse_line(const char *s, size_t len, struct pm_line *l)
{
	struct cursor c = { s, s + len };
	const char *end = s + len, *nul;

	if (parse_number(&c, &l->start) || parse_number(&c, &l->size) || !l->size)
		return -EINVAL;
	nul = memchr(c.p, '\0', (size_t)(end - c.p));
	if (nul)
		end = nul;
	while (end > c.p && isspace((unsigned char)end[-1]))
		end--;
	if (end == c.p)
		return -EINVAL;
	l->name = c.p;
	l->name_len = cut_name(c.p, (size_t)(end - c.p));
	return l->name_len ? 0 : -EINVAL;
}

/* Room for len more bytes of names. */
static int reserve_pool(struct perfmap *m, size_t len)
{
	size_t cap = m->pool_cap ? m->pool_cap : 4096;
	char *pool;

	if (len <= m->pool_cap - m->pool_len)
		return 0;
	/* names come from at most PERFMAP_MAX_BYTES of text: offsets fit in 32 bits */
	if (m->pool_len + len > PERFMAP_MAX_BYTES + 1)
		return -EOVERFLOW;
	while (cap - m->pool_len < len)
		cap *= 2;
	pool = realloc(m->pool, cap);
	if (!pool)
		return -ENOMEM;
	m->pool = pool;
	m->pool_cap = cap;
	return 0;
}

static int add_entry(struct perfmap *m, const struct pm_line *l)
{
	struct entry *e;
	int err = reserve_pool(m, l->name_len + 1);

	if (err)
		return err;
	if (m->n == m->e_cap) {
		size_t cap = m->e_cap ? m->e_cap * 2 : 256;

		e = reallocarray(m->e, cap, sizeof(*e));
		if (!e)
			return -ENOMEM;
		m->e = e;
		m->e_cap = cap;
	}
	e = &m->e[m->n];
	e->start = l->start;
	e->end = l->size > UINT64_MAX - l->start ? UINT64_MAX : l->start + l->size;
	e->name = (uint32_t)m->pool_len;
	e->seq = (uint32_t)m->n++;
	memcpy(m->pool + m->pool_len, l->name, l->name_len);
	m->pool[m->pool_len + l->name_len] = '\0';
	m->pool_len += l->name_len + 1;
	return 0;
}

static int take_lines(struct perfmap *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	struct pm_line l;
	int err;

	while (p < end && m->n < PERFMAP_MAX_ENTRIES) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (!parse_line(p, (size_t)(nl - p), &l)) {
			err = add_entry(m, &l);
			if (err)
				return err;
		}
		p = nl < end ? nl + 1 : end;
	}
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A max-heap of entry indices by line order. */
struct heap {
	uint32_t *v;
	size_t n;
};

static void heap_swap(struct heap *h, size_t a, size_t b)
{
	uint32_t t = h->v[a];

	h->v[a] = h->v[b];
	h->v[b] = t;
}

static void heap_push(const struct perfmap *m, struct heap *h, uint32_t i)
{
	size_t k = h->n++;

	h->v[k] = i;
	for (; k > 0 && m->e[h->v[(k - 1) / 2]].seq < m->e[h->v[k]].seq; k = (k - 1) / 2)
		heap_swap(h, k, (k - 1) / 2);
}

static void heap_pop(const struct perfmap *m, struct heap *h)
{
	size_t k = 0, c;

	h->v[0] = h->v[--h->n];
	while ((c = 2 * k + 1) < h->n) {
		if (c + 1 < h->n && m->e[h->v[c + 1]].seq > m->e[h->v[c]].seq)
			c++;
		if (m->e[h->v[c]].seq <= m->e[h->v[k]].seq)
			break;
		heap_swap(h, k, c);
		k = c;
	}
}

static int add_seg(struct perfmap *m, uint64_t start, uint64_t end, uint32_t entry)
{
	struct seg *last = m->nsegs ? &m->segs[m->nsegs - 1] : NULL, *v;

	if (last && last->entry == entry && last->end == start) {
		last->end = end;
		return 0;
	}
	if (m->nsegs == m->segs_cap) {
		size_t cap = m->segs_cap ? m->segs_cap * 2 : 256;

		v = reallocarray(m->segs, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		m->segs = v;
		m->segs_cap = cap;
	}
	m->segs[m->nsegs++] = (struct seg){ start, end, entry };
	return 0;
}

/* Sweeps the sorted regions, the latest line of those covering a point on
 * top of the heap (expired ones leave it when they surface): each step ends
 * where a region starts or the top one ends, so there are at most 2n. */
static int sweep(struct perfmap *m, struct heap *h)
{
	uint64_t pos = 0, next;
	size_t i = 0;
	int err = 0;

	while (!err && (i < m->n || h->n)) {
		if (!h->n)
			pos = m->e[i].start;
		while (i < m->n && m->e[i].start <= pos)
			heap_push(m, h, (uint32_t)i++);
		while (h->n && m->e[h->v[0]].end <= pos)
			heap_pop(m, h);
		if (!h->n)
			continue;
		next = m->e[h->v[0]].end;
		if (i < m->n && m->e[i].start < next)
			next = m->e[i].start;
		err = add_seg(m, pos, next, h->v[0]);
		pos = next;
	}
	return err;
}

/* Gives back the room the arrays grew by: a JIT's map (a BEAM's is 5 MB)
 * is kept for the whole capture, and growth by doubling leaves up to half
 * of each unused. */
static void fit(struct perfmap *m)
{
	void *v;

	if ((v = realloc(m->e, m->n * sizeof(*m->e)))) {
		m->e = v;
		m->e_cap = m->n;
	}
	if (m->nsegs && (v = realloc(m->segs, m->nsegs * sizeof(*m->segs)))) {
		m->segs = v;
		m->segs_cap = m->nsegs;
	}
	if (m->pool_len && (v = realloc(m->pool, m->pool_len))) {
		m->pool = v;
		m->pool_cap = m->pool_len;
	}
}

static int build_segments(struct perfmap *m)
{
	struct heap h = { NULL, 0 };
	int err;

	if (!m->n)
		return 0;
	h.v = calloc(m->n, sizeof(*h.v));
	if (!h.v)
		return -ENOMEM;
	qsort(m->e, m->n, sizeof(*m->e), entry_cmp);
	err = sweep(m, &h);
	free(h.v);
	if (!err)
		fit(m);
	return err;
}

int perfmap__parse(const char *text, size_t len, struct perfmap **out)
{
	struct perfmap *m = calloc(1, sizeof(*m));
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	if (len > PERFMAP_MAX_BYTES)
		len = PERFMAP_MAX_BYTES;
	err = take_lines(m, text, len);
	if (!err)
		err = build_segments(m);
	if (err) {
		perfmap__free(m);
		return err;
	}
	*out = m;
	return 0;
}

struct perfmap *perfmap__new(void)
{
	return calloc(1, sizeof(struct perfmap));
}

int perfmap__add(struct perfmap *m, uint64_t start, uint64_t size, const char *name,
		 size_t name_len)
{
	struct pm_line l = { start, size, name, cut_name(name, name_len) };

	if (!size || !l.name_len || m->n == PERFMAP_MAX_ENTRIES)
		return 0;
	return add_entry(m, &l);
}

int perfmap__seal(struct perfmap *m)
{
	return build_segments(m);
}

static int check_file(int fd, uid_t uid, time_t since)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_uid != 0 && st.st_uid != uid)
		return -EPERM;
	if (st.st_mtime < since)
		return -ESTALE;
	return 0;
}

int perfmap__open(int root, const char *path, uid_t uid, time_t since)
{
	/* O_NONBLOCK: a FIFO put there must not hang us */
	int fd = proc_root__open(root, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int err;

	if (fd < 0)
		return fd;
	err = check_file(fd, uid, since);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* The text is read a chunk at a time: maps of hundreds of MB never sit in
 * memory whole, only their names. */
#define CHUNK (1 << 20)

struct reading {
	char *buf;
	size_t have;	/* bytes in buf: the start of a line not ended yet */
	uint64_t taken; /* bytes of the file read */
	bool skipping;	/* in a line longer than CHUNK: dropped up to its end */
};

/* Takes buf's complete lines and keeps the rest for the next chunk. */
static int take_chunk(struct perfmap *m, struct reading *r)
{
	const char *nl = memrchr(r->buf, '\n', r->have), *from = r->buf;
	int err;

	if (!nl) {
		r->skipping |= r->have == CHUNK; /* a line longer than a chunk */
		r->have = r->skipping ? 0 : r->have;
		return 0;
	}
	if (r->skipping) {
		from = (const char *)memchr(r->buf, '\n', r->have) + 1;
		r->skipping = false;
	}
	err = from <= nl ? take_lines(m, from, (size_t)(nl - from)) : 0;
	r->have -= (size_t)(nl + 1 - r->buf);
	memmove(r->buf, nl + 1, r->have);
	return err;
}

/* At most PERFMAP_MAX_BYTES, then only whole lines; to the end of the
 * file, its last line too. */
static int read_lines(struct perfmap *m, int fd)
{
	struct reading r = { malloc(CHUNK), 0, 0, false };
	ssize_t n = 1;
	int err = r.buf ? 0 : -ENOMEM;

	while (!err && n > 0 && r.taken < PERFMAP_MAX_BYTES && m->n < PERFMAP_MAX_ENTRIES) {
		size_t want = CHUNK - r.have;

		if (want > PERFMAP_MAX_BYTES - r.taken)
			want = (size_t)(PERFMAP_MAX_BYTES - r.taken);
		n = pread(fd, r.buf + r.have, want, (off_t)r.taken);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		r.have += (size_t)n;
		r.taken += (uint64_t)n;
		err = take_chunk(m, &r);
	}
	if (!err && n == 0 && !r.skipping && m->n < PERFMAP_MAX_ENTRIES)
		err = take_lines(m, r.buf, r.have);
	free(r.buf);
	return err;
}

int perfmap__read_fd(int fd, struct perfmap **out)
{
	struct perfmap *m = calloc(1, sizeof(*m));
	int err = m ? read_lines(m, fd) : -ENOMEM;

	*out = NULL;
	if (!err)
		err = build_segments(m);
	if (err) {
		perfmap__free(m);
		return err;
	}
	*out = m;
	return 0;
}

int perfmap__read(int root, const char *path, uid_t uid, time_t since, struct perfmap **out)
{
	int fd = perfmap__open(root, path, uid, since), err;

	*out = NULL;
	if (fd < 0)
		return fd;
	err = perfmap__read_fd(fd, out);
	close(fd);
	return err;
}

const char *perfmap__lookup(const struct perfmap *m, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = m->nsegs;
	const struct entry *e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->segs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= m->segs[lo - 1].end)
		return NULL;
	e = &m->e[m->segs[lo - 1].entry];
	if (off)
		*off = addr - e->start;
	return m->pool + e->name;
}

size_t perfmap__count(const struct perfmap *m)
{
	return m->n;
}

void perfmap__free(struct perfmap *m)
{
	if (!m)
		return;
	free(m->e);
	free(m->segs);
	free(m->pool);
	free(m);
}
