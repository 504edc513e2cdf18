// SPDX-License-Identifier: GPL-2.0
/* Which printed names two functions of a file share is found from 64-bit
 * hashes of every name, sorted: a file's names are not all kept in memory
 * at once. Two different names that hash alike would only both get their
 * address, which keeps them apart all the same. */
#include "func_names.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "util/hashmap.h"

struct func_names {
	uint64_t *shared; /* hashes of the names of two functions or more, sorted */
	size_t n;
};

struct name_hash {
	uint64_t hash;
	size_t func;
};

/* The k-th symbol of function i, or NULL past the last. */
static const char *symbol_of(const struct elf_symtab *t, size_t i, size_t k)
{
	struct elf_func f;

	if (k)
		return elf_symtab__alias(t, i, k - 1);
	return elf_symtab__func(t, i, &f) ? NULL : f.name;
}

/* demangle_fn of sym without its "@VERSION" (which no mangled name holds),
 * with tail (may be NULL) and the version after it; NULL when sym is not
 * mangled, or out of memory (*err set). */
static char *demangled(const char *sym, char *(*demangle_fn)(const char *), const char *tail,
		       int *err)
{
	const char *at = strchr(sym, '@');
	char *base, *d, *out = NULL;

	if (!demangle__is_mangled(sym))
		return NULL;
	base = at ? strndup(sym, (size_t)(at - sym)) : strdup(sym);
	d = base ? demangle_fn(base) : NULL;
	free(base);
	if (d && asprintf(&out, "%s%s%s", d, tail ? tail : "", at ? at : "") < 0)
		out = NULL;
	if (!base || (d && !out))
		*err = -ENOMEM;
	free(d);
	return out;
}

/* sym as printed: demangled when it is mangled (and demangles). */
static char *printed(const char *sym)
{
	int err = 0;
	char *p = demangled(sym, demangle, NULL, &err);

	return p || err ? p : strdup(sym);
}

static int hash_cmp(const void *a, const void *b)
{
	const struct name_hash *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return 0;
}

static uint64_t hash_name(const char *s)
{
	return hash_bytes(s, strlen(s), 0);
}

/* The hash of every printed name, with its function. */
static int hash_all(const struct elf_symtab *t, struct name_hash **out, size_t *nout)
{
	size_t i, k, n = 0, cnt = elf_symtab__count(t);
	struct name_hash *v;
	struct elf_func f;
	const char *sym;

	for (i = 0; !elf_symtab__func(t, i, &f); i++)
		n += 1 + f.nalias;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (n = 0, i = 0; i < cnt; i++) {
		for (k = 0; (sym = symbol_of(t, i, k)); k++) {
			char *p = printed(sym);

			if (!p) {
				free(v);
				return -ENOMEM;
			}
			v[n++] = (struct name_hash){ hash_name(p), i };
			free(p);
		}
	}
	*out = v;
	*nout = n;
	return 0;
}

/* Keeps the hashes that two functions or more have (v sorted). */
static void keep_shared(struct func_names *fn, const struct name_hash *v, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		bool shared = false;

		for (j = i + 1; j < n && v[j].hash == v[i].hash; j++)
			shared |= v[j].func != v[i].func;
		if (shared)
			fn->shared[fn->n++] = v[i].hash;
	}
}

int func_names__new(const struct elf_symtab *t, struct func_names **out)
{
	struct func_names *fn = calloc(1, sizeof(*fn));
	struct name_hash *v = NULL;
	size_t n = 0;
	int err = fn ? hash_all(t, &v, &n) : -ENOMEM;

	if (!err && !(fn->shared = calloc(n + 1, sizeof(*fn->shared))))
		err = -ENOMEM;
	if (err) {
		free(v);
		func_names__free(fn);
		return err;
	}
	qsort(v, n, sizeof(*v), hash_cmp);
	keep_shared(fn, v, n);
	free(v);
	*out = fn;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_shared(const struct func_names *n, const char *print)
{
	uint64_t h = hash_name(print);

	return n->n && bsearch(&h, n->shared, n->n, sizeof(h), u64_cmp);
}

/* A C++ name without parameter lists, but with the clone suffixes of the
 * full name: "ns::f [clone .cold]". */
static int brief_of(struct func_name *out, const char *sym)
{
	const char *clone = strstr(out->bare ? out->bare : out->print, " [clone ");
	char *tail = NULL, *at;
	int err = 0;

	if (clone && !(tail = strdup(clone)))
		return -ENOMEM;
	if (tail && (at = strchr(tail, '@')))
		*at = '\0'; /* demangled() adds the version back */
	out->brief = demangled(sym, demangle__short, tail, &err);
	free(tail);
	return err;
}

/* Adds "@0xADDR" to print and sym. */
static int qualify(struct func_name *out, uint64_t vaddr)
{
	char *print, *sym;

	if (asprintf(&print, "%s@%#" PRIx64, out->print, vaddr) < 0)
		return -ENOMEM;
	if (asprintf(&sym, "%s@%#" PRIx64, out->sym, vaddr) < 0) {
		free(print);
		return -ENOMEM;
	}
	out->bare = out->print;
	out->print = print;
	free(out->sym);
	out->sym = sym;
	return 0;
}

int func_names__get(const struct func_names *n, const struct elf_symtab *t, size_t i, size_t k,
		    struct func_name *out)
{
	const char *sym = symbol_of(t, i, k);
	struct elf_func f;
	int err = 0;

	*out = (struct func_name){ 0 };
	if (!sym || elf_symtab__func(t, i, &f))
		return -ENOENT;
	out->print = printed(sym);
	out->sym = strdup(sym);
	if (!out->print || !out->sym)
		err = -ENOMEM;
	if (!err && is_shared(n, out->print))
		err = qualify(out, f.vaddr);
	if (!err)
		err = brief_of(out, sym);
	if (err)
		func_name__free(out);
	return err;
}

void func_names__free(struct func_names *n)
{
	if (!n)
		return;
	free(n->shared);
	free(n);
}

bool func_name__matches(const struct func_name *fn, const regex_t *re)
{
	if (!regexec(re, fn->print, 0, NULL, 0))
		return true;
	if (fn->bare && !regexec(re, fn->bare, 0, NULL, 0))
		return true;
	return fn->brief && !regexec(re, fn->brief, 0, NULL, 0);
}

bool func_name__is(const struct func_name *fn, const char *text)
{
	return !strcmp(fn->print, text) || (fn->bare && !strcmp(fn->bare, text)) ||
	       (fn->brief && !strcmp(fn->brief, text));
}

void func_name__free(struct func_name *fn)
{
	free(fn->print);
	free(fn->sym);
	free(fn->bare);
	free(fn->brief);
	*fn = (struct func_name){ 0 };
}
