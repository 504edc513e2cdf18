// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/binaries.h"
#include "symbols/elf_symtab.h"
#include "func_names.h"
#include "funcs.h"
#include "ifunc.h"

/* One binary being searched: what the regex selects (found[0]) and what
 * the text as an exact name does (found[1]). */
struct scan {
	struct funcs *found[2];
	size_t bin[2]; /* this file in found[k]->bins, SIZE_MAX until its first match */
	const struct target_binary *b;
	int fd;
	struct stat st;
	struct elf_symtab *t;
	struct func_names *names;
	struct ifuncs *ifuncs; /* made for the first IFUNC that matches */
	const struct funcs_query *q;
};

/* A path, a library's name, a file here or a program along PATH. */
static bool looks_like_binary(const char *s)
{
	struct stat st;
	char *path = NULL;
	bool found;

	if (!*s)
		return false;
	if (strchr(s, '/') || strstr(s, ".so") || !strncmp(s, "lib", 3))
		return true;
	if (!stat(s, &st) && S_ISREG(st.st_mode))
		return true;
	found = !binaries__find_program(s, &path);
	free(path);
	return found;
}

int funcs__parse_spec(const char *arg, char **binary, char **regex)
{
	const char *colon = strchr(arg, ':');
	char *bin = NULL;

	*binary = *regex = NULL;
	if (!*arg)
		return -EINVAL;
	if (colon && colon[1] != ':') {
		bin = strndup(arg, (size_t)(colon - arg));
		if (!bin)
			return -ENOMEM;
		if (!looks_like_binary(bin)) {
			free(bin);
			bin = NULL;
		}
	}
	*regex = strdup(bin ? colon + 1 : arg);
	if (!*regex) {
		free(bin);
		return -ENOMEM;
	}
	*binary = bin;
	return 0;
}

/* The index of the scanned file in found[k]->bins, added on first use. */
static int scan_bin(struct scan *s, int k, size_t *bin)
{
	struct target_binary e = *s->b;
	int err;

	if (s->bin[k] != SIZE_MAX) {
		*bin = s->bin[k];
		return 0;
	}
	e.dev = s->st.st_dev;
	e.ino = s->st.st_ino;
	err = binaries__add(&s->found[k]->bins, &e);
	if (err)
		return err;
	*bin = s->bin[k] = (size_t)binaries__find(&s->found[k]->bins, e.dev, e.ino);
	return 0;
}

static int append(struct funcs *list, const struct func *f)
{
	struct func *v = reallocarray(list->v, list->n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	list->v = v;
	list->v[list->n++] = *f;
	return 0;
}

static void func_free(struct func *f)
{
	free(f->name);
	free(f->sym);
	free(f->impl);
	free(f->shared);
}

/* Appends f with copies of the strings of name and of impl. */
static int append_named(struct funcs *list, struct func *f, const struct func_name *name,
			const char *impl)
{
	int err;

	f->name = strdup(name->print);
	f->sym = strdup(name->sym);
	f->impl = impl ? strdup(impl) : NULL;
	err = f->name && f->sym && (f->impl || !impl) ? append(list, f) : -ENOMEM;
	if (err)
		func_free(f);
	return err;
}

/* An IFUNC: an entry for each implementation it runs, else one that is
 * not traced (ifunc set). */
static int add_ifunc(struct scan *s, struct funcs *list, struct func *f, size_t i,
		     const struct func_name *name)
{
	struct ifunc_resolution res;
	int err = s->ifuncs ? 0 : ifuncs__new(s->fd, s->b->open_path, s->t, &s->ifuncs);

	if (!err)
		err = ifuncs__resolve(s->ifuncs, i, &res);
	if (err)
		return err;
	f->how = res.how;
	if (!res.n) {
		f->ifunc = true;
		return append_named(list, f, name, res.elsewhere);
	}
	for (size_t k = 0; !err && k < res.n; k++) {
		struct func g = *f;

		g.vaddr = res.v[k].vaddr;
		g.offset = res.v[k].offset;
		g.size = res.v[k].size;
		g.sized = res.v[k].sized;
		if (g.how == IFUNC_CHOSEN && (err = ifuncs__sharers(s->ifuncs, i, &g.shared)))
			break;
		err = append_named(list, &g, name, res.v[k].name);
	}
	return err;
}

/* Adds function i under its name of rank k to found[which]. */
static int add_func(struct scan *s, int which, size_t i, const struct elf_func *ef, uint64_t offset,
		    size_t k)
{
	struct func f = { .vaddr = ef->vaddr,
			  .size = ef->size,
			  .offset = offset,
			  .sym_vaddr = ef->vaddr,
			  .rank = (uint32_t)k,
			  .sized = ef->sized };
	struct func_name name;
	int err = scan_bin(s, which, &f.bin);

	if (!err)
		err = func_names__get(s->names, s->t, i, k, &name);
	if (err)
		return err;
	/* the resolver's own name (gcc's foo.resolver) is the resolver */
	if (ef->ifunc && elf_symtab__ifunc_name(s->t, i, k))
		err = add_ifunc(s, s->found[which], &f, i, &name);
	else
		err = append_named(s->found[which], &f, &name, NULL);
	func_name__free(&name);
	return err;
}

/* The rank of the best name of function i that the regex matches (rank[0])
 * and that is the exact text (rank[1]); -1 for none. */
static int best_ranks(const struct scan *s, size_t i, long rank[2])
{
	const char *text = s->q->text;

	rank[0] = rank[1] = -1;
	for (size_t k = 0; rank[0] < 0 || (text && rank[1] < 0); k++) {
		struct func_name fn;
		int err = func_names__get(s->names, s->t, i, k, &fn);

		if (err)
			return err == -ENOENT ? 0 : err;
		if (rank[0] < 0 && func_name__matches(&fn, s->q->re))
			rank[0] = (long)k;
		if (text && rank[1] < 0 && func_name__is(&fn, text))
			rank[1] = (long)k;
		func_name__free(&fn);
	}
	return 0;
}

static int scan_funcs(struct scan *s)
{
	struct elf_func f;
	uint64_t off;
	long rank[2];
	int err = func_names__new(s->t, &s->names);

	for (size_t i = 0; !err && !elf_symtab__func(s->t, i, &f); i++) {
		err = best_ranks(s, i, rank);
		/* Not in an executable segment: nothing to probe. */
		if (err || (rank[0] < 0 && rank[1] < 0) ||
		    elf_symtab__file_offset(s->t, f.vaddr, &off))
			continue;
		for (int which = 0; which < 2 && !err; which++)
			if (rank[which] >= 0)
				err = add_func(s, which, i, &f, off, (size_t)rank[which]);
	}
	ifuncs__free(s->ifuncs);
	func_names__free(s->names);
	s->ifuncs = NULL;
	s->names = NULL;
	return err;
}

/* Whether an earlier binary of bins is the same file (by fstat of the open
 * files, not by path). */
static bool seen_file(const struct stat *seen, size_t n, const struct stat *st)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (seen[i].st_dev == st->st_dev && seen[i].st_ino == st->st_ino)
			return true;
	}
	return false;
}

static int scan_binary(struct scan *s, struct stat *seen, size_t nseen)
{
	int err;

	s->fd = open(s->b->open_path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	if (fstat(s->fd, &s->st)) {
		err = -errno;
		goto close_fd;
	}
	seen[nseen] = s->st;
	if (seen_file(seen, nseen, &s->st)) {
		err = 0;
		goto close_fd;
	}
	err = elf_symtab__load(s->fd, &s->t);
	if (!err)
		err = scan_funcs(s);
	elf_symtab__free(s->t);
	s->t = NULL;
close_fd:
	close(s->fd);
	return err;
}

static int func_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	if (x->sym_vaddr != y->sym_vaddr)
		return x->sym_vaddr < y->sym_vaddr ? -1 : 1;
	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return 0;
}

/* Orders alike entries best name first. */
static int func_rank_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	int c = func_cmp(a, b);

	if (c || x->rank == y->rank)
		return c ? c : strcmp(x->name, y->name);
	return x->rank < y->rank ? -1 : 1;
}

/* Sorts, and keeps the best-named of entries alike (several -f). */
static void sort_unique(struct funcs *list)
{
	size_t i, n = 0;

	if (!list->n)
		return;
	qsort(list->v, list->n, sizeof(*list->v), func_rank_cmp);
	for (i = 0; i < list->n; i++) {
		if (n && !func_cmp(&list->v[n - 1], &list->v[i]))
			func_free(&list->v[i]);
		else
			list->v[n++] = list->v[i];
	}
	list->n = n;
}

/* Moves the entries of from (emptied) into list. */
static int move_all(struct funcs *list, struct funcs *from)
{
	int err = 0;

	for (size_t i = 0; i < from->n; i++) {
		struct func *f = &from->v[i];
		const struct target_binary *b = &from->bins.v[f->bin];

		if (!err)
			err = binaries__add(&list->bins, b);
		f->bin = (size_t)binaries__find(&list->bins, b->dev, b->ino);
		if (!err)
			err = append(list, f);
		if (err)
			func_free(f);
	}
	from->n = 0;
	return err;
}

size_t funcs__count(const struct funcs *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += !i || f->v[i].bin != f->v[i - 1].bin ||
		     f->v[i].sym_vaddr != f->v[i - 1].sym_vaddr;
	return n;
}

int funcs__match(struct funcs *list, const struct binaries *bins, struct funcs_query *q)
{
	struct funcs found[2] = { 0 };
	struct scan s = { .found = { &found[0], &found[1] }, .q = q };
	struct stat *seen = calloc(bins->n + 1, sizeof(*seen));
	size_t i;
	int err = seen ? 0 : -ENOMEM;

	for (i = 0; seen && i < bins->n; i++) {
		s.b = &bins->v[i];
		s.bin[0] = s.bin[1] = SIZE_MAX;
		err = scan_binary(&s, seen, i);
		if (err)
			break;
	}
	free(seen);
	/* a name that is no regex of itself (C++'s parentheses) selects
	 * its function too, beside what the regex selects, as grep -E would */
	if (!err)
		err = move_all(&found[0], &found[1]);
	sort_unique(&found[0]);
	q->matched = funcs__count(&found[0]);
	if (!err)
		err = move_all(list, &found[0]);
	funcs__free(&found[0]);
	funcs__free(&found[1]);
	sort_unique(list);
	if (err)
		q->failed = err == -ENOMEM || i == bins->n ? bins->n : i;
	return err;
}

/* Writes s with control bytes as '?', so that a name cannot break a line. */
static void put_clean(const char *s, FILE *f)
{
	for (; *s; s++)
		putc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

int funcs__print(const struct funcs *list, FILE *f)
{
	size_t i;

	for (i = 0; i < list->n; i++) {
		if (i && list->v[i].bin == list->v[i - 1].bin &&
		    list->v[i].sym_vaddr == list->v[i - 1].sym_vaddr)
			continue; /* another implementation of one IFUNC */
		put_clean(list->bins.v[list->v[i].bin].path, f);
		putc(':', f);
		put_clean(list->v[i].name, f);
		putc('\n', f);
	}
	if (fflush(f) == EOF)
		return -errno;
	return ferror(f) ? -EIO : 0;
}

static int code_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	/* a resolver traced by its own name over its IFUNC left untraced */
	if (x->ifunc != y->ifunc)
		return x->ifunc ? 1 : -1;
	return func_cmp(a, b);
}

void funcs__merge_code(struct funcs *list,
		       void (*note)(void *arg, const struct func *kept, const struct func *dropped),
		       void *arg)
{
	size_t n = 0;

	if (!list->n)
		return;
	qsort(list->v, list->n, sizeof(*list->v), code_cmp);
	for (size_t i = 0; i < list->n; i++) {
		struct func *kept = n ? &list->v[n - 1] : NULL;

		if (!kept || kept->bin != list->v[i].bin || kept->offset != list->v[i].offset) {
			list->v[n++] = list->v[i];
			continue;
		}
		if (note)
			note(arg, kept, &list->v[i]);
		func_free(&list->v[i]);
	}
	list->n = n;
	qsort(list->v, list->n, sizeof(*list->v), func_cmp);
}

void funcs__keep(struct funcs *list, const bool *keep)
{
	size_t n = 0;

	for (size_t i = 0; i < list->n; i++) {
		if (keep[i])
			list->v[n++] = list->v[i];
		else
			func_free(&list->v[i]);
	}
	list->n = n;
}

void funcs__free(struct funcs *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		func_free(&list->v[i]);
	free(list->v);
	binaries__free(&list->bins);
	*list = (struct funcs){ 0 };
}
