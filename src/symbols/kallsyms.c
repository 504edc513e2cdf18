/* Kernel text symbols from a kallsyms file ("addr type name[\t[module]]").
 * The file has ~200k lines: names go to one string pool, not one allocation
 * each, and the mostly sorted array is sorted only where it is not.
 */
#include "util/cursor.h"
#include "kallsyms.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* How far past the last symbol an address still counts as inside it. */
#define LAST_SYM_SPAN (1024 * 1024)
#define POOL_MAX      (1U << 31)
#define READ_BUF_SIZE (1024 * 1024)

struct ksym {
	uint64_t addr;
	uint32_t name; /* offset in the string pool */
	uint8_t rank;  /* alias preference: lower wins */
};

struct kallsyms {
	struct ksym *syms;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	uint64_t last; /* the address of the file's last symbol */
};

/* For kallsyms__load_for: the best symbol so far of each gap between two
 * wanted addresses (gap i holds the symbols in (addrs[i - 1], addrs[i]]):
 * the one that contains addrs[i] is the highest of gaps 0..i. */
struct gap {
	uint64_t addr;
	uint8_t rank;
	bool set;
	char *name;
	size_t cap;
};

struct wanted {
	const uint64_t *addrs;
	size_t n;
	struct gap *gaps;
};

/* One parsed line; name points into the line and is not NUL-terminated. */
struct kline {
	uint64_t addr;
	char type;
	const char *name;
	size_t name_len;
};

static int parse_kline(const char *s, size_t len, struct kline *l)
{
	struct cursor c = { s, s + len };
	const char *tab;
	size_t i;

	if (cursor__hex(&c, &l->addr))
		return -EINVAL;
	i = c.p - s;
	/* then " T " and a name */
	if (len - i < 4 || s[i] != ' ' || s[i + 2] != ' ')
		return -EINVAL;
	l->type = s[i + 1];
	l->name = s + i + 3;
	tab = memchr(l->name, '\t', len - i - 3);
	l->name_len = tab ? (size_t)(tab - l->name) : len - i - 3;
	if (!l->name_len || memchr(l->name, '\0', l->name_len) || memchr(l->name, ' ', l->name_len))
		return -EINVAL;
	return 0;
}

/* Global text first, then weak, then local (see alias_better). */
static int type_rank(char type)
{
	switch (type) {
	case 'T':
		return 0;
	case 'W':
	case 'w':
		return 1;
	case 't':
		return 2;
	default:
		return -1;
	}
}

static int pool_add(struct kallsyms *k, const char *s, size_t len, uint32_t *off)
{
	char *np;

	if (len + 1 > POOL_MAX - k->pool_len)
		return -EFBIG;
	if (k->pool_len + len + 1 > k->pool_cap) {
		size_t ncap = k->pool_cap ? k->pool_cap : 64 * 1024;

		while (ncap < k->pool_len + len + 1)
			ncap *= 2;
		np = realloc(k->pool, ncap);
		if (!np)
			return -ENOMEM;
		k->pool = np;
		k->pool_cap = ncap;
	}
	memcpy(k->pool + k->pool_len, s, len);
	k->pool[k->pool_len + len] = '\0';
	*off = (uint32_t)k->pool_len;
	k->pool_len += len + 1;
	return 0;
}

static int add_sym(struct kallsyms *k, const struct kline *l, int rank)
{
	struct ksym *y;
	int err;

	if (k->n == k->cap) {
		size_t ncap = k->cap ? k->cap * 2 : 4096;
		struct ksym *v = reallocarray(k->syms, ncap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->syms = v;
		k->cap = ncap;
	}
	y = &k->syms[k->n];
	y->addr = l->addr;
	y->rank = (uint8_t)rank;
	err = pool_add(k, l->name, l->name_len, &y->name);
	if (err)
		return err;
	k->n++;
	return 0;
}

/* What the whole file said about addresses, text symbols or not. */
struct addr_seen {
	bool any, nonzero;
};

/* Whether a symbol named xn of rank xr is a better name for its address
 * than yn of rank yr, by the rule of elf_symtab.c: global over weak over
 * local, fewer leading underscores, shorter, byte order. */
static bool name_better(int xr, const char *xn, int yr, const char *yn)
{
	size_t xu, yu, xl, yl;

	if (xr != yr)
		return xr < yr;
	xu = strspn(xn, "_");
	yu = strspn(yn, "_");
	if (xu != yu)
		return xu < yu;
	xl = strlen(xn);
	yl = strlen(yn);
	if (xl != yl)
		return xl < yl;
	return strcmp(xn, yn) < 0;
}

static bool alias_better(const struct kallsyms *k, const struct ksym *x, const struct ksym *y)
{
	return name_better(x->rank, k->pool + x->name, y->rank, k->pool + y->name);
}

/* The first of w's addresses at or above addr: the gap it falls in. */
static size_t gap_of(const struct wanted *w, uint64_t addr)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->addrs[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether l's name is a better one than g's for the same address. */
static bool gap_alias_better(const struct gap *g, const struct kline *l, int rank)
{
	char *name = strndup(l->name, l->name_len);
	bool better = name && name_better(rank, name, g->rank, g->name);

	free(name);
	return better;
}

/* Keeps l in its gap if it is the gap's best so far. */
static int offer(struct wanted *w, const struct kline *l, int rank)
{
	size_t i = gap_of(w, l->addr);
	struct gap *g = i < w->n ? &w->gaps[i] : NULL;

	if (!g || (g->set &&
		   (l->addr < g->addr || (l->addr == g->addr && !gap_alias_better(g, l, rank)))))
		return 0;
	if (l->name_len + 1 > g->cap) {
		char *name = realloc(g->name, l->name_len + 1);

		if (!name)
			return -ENOMEM;
		g->name = name;
		g->cap = l->name_len + 1;
	}
	memcpy(g->name, l->name, l->name_len);
	g->name[l->name_len] = '\0';
	g->addr = l->addr;
	g->rank = (uint8_t)rank;
	g->set = true;
	return 0;
}

/* A text symbol: kept (w NULL), or offered to the gaps of w. */
static int take_sym(struct kallsyms *k, struct wanted *w, const struct kline *l, int rank)
{
	if (l->addr > k->last)
		k->last = l->addr;
	return w ? offer(w, l, rank) : add_sym(k, l, rank);
}

static int read_lines(struct kallsyms *k, struct wanted *w, FILE *f, struct addr_seen *seen)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct kline l;
	int rank, err = 0;

	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			len--;
		err = parse_kline(line, (size_t)len, &l);
		if (err)
			break;
		seen->any = true;
		seen->nonzero |= l.addr != 0;
		rank = type_rank(l.type);
		if (rank < 0)
			continue;
		err = take_sym(k, w, &l, rank);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	return err;
}

static int addr_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/* Merges the sorted tail syms[p..n) into the sorted prefix, from the back. */
static int merge_tail(struct kallsyms *k, size_t p)
{
	size_t i = p, j = k->n - p, o = k->n;
	struct ksym *tail = malloc(j * sizeof(*tail));

	if (!tail)
		return -ENOMEM;
	memcpy(tail, k->syms + p, j * sizeof(*tail));
	while (j > 0) {
		if (i > 0 && k->syms[i - 1].addr > tail[j - 1].addr)
			k->syms[--o] = k->syms[--i];
		else
			k->syms[--o] = tail[--j];
	}
	free(tail);
	return 0;
}

/* The kernel lists its own text in address order, then modules, trampolines
 * and BPF programs: sorting only what follows the sorted prefix is cheap.
 */
static int sort_syms(struct kallsyms *k)
{
	size_t p = 1;

	while (p < k->n && k->syms[p - 1].addr <= k->syms[p].addr)
		p++;
	if (p >= k->n)
		return 0;
	qsort(k->syms + p, k->n - p, sizeof(*k->syms), addr_cmp);
	return merge_tail(k, p);
}

/* Keeps the preferred name of each address. */
static void dedup_syms(struct kallsyms *k)
{
	size_t i, n = 0;

	for (i = 0; i < k->n; i++) {
		if (!n || k->syms[n - 1].addr != k->syms[i].addr)
			k->syms[n++] = k->syms[i];
		else if (alias_better(k, &k->syms[i], &k->syms[n - 1]))
			k->syms[n - 1] = k->syms[i];
	}
	k->n = n;
}

static int read_file(struct kallsyms *k, struct wanted *w, const char *path)
{
	struct addr_seen seen = { false, false };
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return -errno;
	/* /proc/kallsyms fills at most the caller's buffer per read(): few big reads. */
	setvbuf(f, NULL, _IOFBF, READ_BUF_SIZE);
	err = read_lines(k, w, f, &seen);
	fclose(f);
	/* kptr_restrict shows every address as zero rather than failing the read. */
	if (!err && seen.any && !seen.nonzero)
		err = -EPERM;
	return err;
}

int kallsyms__load(const char *path, struct kallsyms **out)
{
	struct kallsyms *k;
	int err;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	err = read_file(k, NULL, path);
	if (!err)
		err = sort_syms(k);
	if (err)
		goto free_syms;
	dedup_syms(k);
	*out = k;
	return 0;

free_syms:
	kallsyms__free(k);
	return err;
}

/* The best symbol of each gap, in address order (the gaps' order). */
static int keep_gaps(struct kallsyms *k, const struct wanted *w)
{
	int err = 0;

	for (size_t i = 0; i < w->n && !err; i++) {
		const struct gap *g = &w->gaps[i];

		if (g->set)
			err = add_sym(k,
				      &(struct kline){ .addr = g->addr,
						       .name = g->name,
						       .name_len = strlen(g->name) },
				      g->rank);
	}
	return err;
}

int kallsyms__load_for(const char *path, const uint64_t *addrs, size_t n, struct kallsyms **out)
{
	struct wanted w = { addrs, n, calloc(n ? n : 1, sizeof(*w.gaps)) };
	struct kallsyms *k = calloc(1, sizeof(*k));
	int err = !w.gaps || !k ? -ENOMEM : read_file(k, &w, path) ?: keep_gaps(k, &w);

	for (size_t i = 0; w.gaps && i < n; i++)
		free(w.gaps[i].name);
	free(w.gaps);
	*out = err ? NULL : k;
	if (err)
		kallsyms__free(k);
	return err;
}

const char *kallsyms__lookup(const struct kallsyms *k, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = k->n;
	const struct ksym *s;

	/* The first symbol above addr; the one before it contains addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &k->syms[lo - 1];
	if (s->addr == k->last && addr - s->addr >= LAST_SYM_SPAN)
		return NULL;
	if (off)
		*off = addr - s->addr;
	return k->pool + s->name;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->pool);
	free(k);
}
