// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "demangle.h"
#include "elf_symtab.h"
#include "funcs.h"

/* One binary being searched. */
struct scan {
	struct funcs *list;
	const struct target_binary *b;
	struct elf_symtab *t;
	struct stat st;
	size_t bin; /* in list->bins, SIZE_MAX until its first match */
	const regex_t *re;
};

static bool looks_like_binary(const char *s)
{
	struct stat st;

	if (!*s)
		return false;
	if (strchr(s, '/') || strstr(s, ".so") || !strncmp(s, "lib", 3))
		return true;
	return !stat(s, &st) && S_ISREG(st.st_mode);
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

/* Demangled names are matched with and without their parameter lists. */
static bool name_matches(const regex_t *re, const char *sym)
{
	char *full, *brief;
	bool match;

	if (!demangle__is_mangled(sym) || !(full = demangle(sym)))
		return !regexec(re, sym, 0, NULL, 0);
	match = !regexec(re, full, 0, NULL, 0);
	free(full);
	if (match || !(brief = demangle__short(sym)))
		return match;
	match = !regexec(re, brief, 0, NULL, 0);
	free(brief);
	return match;
}

static bool func_matches(const struct scan *s, size_t i, const struct elf_func *f)
{
	const char *alias;
	size_t k;

	if (name_matches(s->re, f->name))
		return true;
	for (k = 0; (alias = elf_symtab__alias(s->t, i, k)); k++) {
		if (name_matches(s->re, alias))
			return true;
	}
	return false;
}

/* The index of the scanned file in list->bins, added on first use. */
static int scan_bin(struct scan *s, size_t *bin)
{
	struct target_binary e = *s->b;
	ssize_t i;
	int err;

	if (s->bin != SIZE_MAX) {
		*bin = s->bin;
		return 0;
	}
	e.dev = s->st.st_dev;
	e.ino = s->st.st_ino;
	err = binaries__add(&s->list->bins, &e);
	if (err)
		return err;
	i = binaries__find(&s->list->bins, e.dev, e.ino);
	*bin = s->bin = (size_t)i;
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
	if (f->name != f->sym)
		free(f->name);
	free(f->sym);
}

static int add_func(struct scan *s, const struct elf_func *ef, uint64_t offset)
{
	struct func f = { .vaddr = ef->vaddr, .size = ef->size, .offset = offset };
	int err = scan_bin(s, &f.bin);

	if (err)
		return err;
	f.sized = ef->sized;
	f.ifunc = ef->ifunc;
	f.sym = strdup(ef->name);
	if (!f.sym)
		return -ENOMEM;
	f.name = demangle(f.sym);
	if (!f.name)
		f.name = f.sym;
	err = append(s->list, &f);
	if (err)
		func_free(&f);
	return err;
}

static int scan_funcs(struct scan *s)
{
	struct elf_func f;
	uint64_t off;
	size_t i;
	int err = 0;

	for (i = 0; !err && !elf_symtab__func(s->t, i, &f); i++) {
		if (!func_matches(s, i, &f))
			continue;
		/* Not in an executable segment: nothing to probe. */
		if (elf_symtab__file_offset(s->t, f.vaddr, &off))
			continue;
		err = add_func(s, &f, off);
	}
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
	int fd = open(s->b->open_path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &s->st)) {
		err = -errno;
		goto close_fd;
	}
	seen[nseen] = s->st;
	if (seen_file(seen, nseen, &s->st)) {
		err = 0;
		goto close_fd;
	}
	err = elf_symtab__load(fd, &s->t);
	if (!err)
		err = scan_funcs(s);
	elf_symtab__free(s->t);
	s->t = NULL;
close_fd:
	close(fd);
	return err;
}

static int func_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return 0;
}

/* Sorts, and drops what an earlier call already added. */
static void sort_unique(struct funcs *list)
{
	size_t i, n = 0;

	if (!list->n)
		return;
	qsort(list->v, list->n, sizeof(*list->v), func_cmp);
	for (i = 0; i < list->n; i++) {
		if (n && !func_cmp(&list->v[n - 1], &list->v[i]))
			func_free(&list->v[i]);
		else
			list->v[n++] = list->v[i];
	}
	list->n = n;
}

int funcs__match(struct funcs *list, const struct binaries *bins, const regex_t *re, size_t *failed)
{
	struct scan s = { .list = list, .re = re };
	struct stat *seen = calloc(bins->n + 1, sizeof(*seen));
	size_t i;
	int err = seen ? 0 : -ENOMEM;

	for (i = 0; seen && i < bins->n; i++) {
		s.b = &bins->v[i];
		s.bin = SIZE_MAX;
		err = scan_binary(&s, seen, i);
		if (err)
			break;
	}
	free(seen);
	sort_unique(list);
	if (err && failed)
		*failed = err == -ENOMEM ? bins->n : i;
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
		put_clean(list->bins.v[list->v[i].bin].path, f);
		putc(':', f);
		put_clean(list->v[i].name, f);
		putc('\n', f);
	}
	if (fflush(f) == EOF)
		return -errno;
	return ferror(f) ? -EIO : 0;
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
