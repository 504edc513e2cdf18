// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_symtab.h"
#include "symbols/unwind_table.h"
#include "symbols/usdt.h"
#include "util/array.h"
#include "trace.h"
#include "catch_sites.h"

/* TRACE_EXC_THROW or TRACE_EXC_CATCH for one of libstdc++'s exception
 * probes, 0 for any other. */
static unsigned int kind_of(const struct usdt_probe *p)
{
	if (strcmp(p->provider, "libstdcxx"))
		return 0;
	if (!strcmp(p->name, "throw") || !strcmp(p->name, "rethrow"))
		return TRACE_EXC_THROW;
	return strcmp(p->name, "catch") ? 0 : TRACE_EXC_CATCH;
}

/* Where a catch probe's caller's stack pointer is: its function's CFA, by
 * the row of call-frame information covering it. 0 when that is not a
 * register plus an offset. */
static uint64_t cfa_cookie(const struct unwind_table *ut, uint64_t addr)
{
	const struct unwind_row *r = unwind_table__find(ut, addr);

	if (!r || (r->kind != UNWIND_CFA_RSP && r->kind != UNWIND_CFA_RBP))
		return 0;
	return (uint32_t)r->cfa_off | (r->kind == UNWIND_CFA_RBP ? TRACE_EXC_RBP : 0);
}

/* How far into its function the probe is, TRACE_EXC_INTO_NONE when not
 * known: the BPF side tells that function's own frame (traced itself)
 * from those the exception left. */
static uint64_t into_func(const struct elf_symtab *st, uint64_t addr)
{
	uint64_t off;

	if (!st || !elf_symtab__lookup(st, addr, &off) || off >= TRACE_EXC_INTO_NONE)
		return TRACE_EXC_INTO_NONE;
	return off;
}

static uint64_t cookie_of(const struct usdt_probe *p, const struct unwind_table *ut,
			  const struct elf_symtab *st)
{
	unsigned int kind = kind_of(p);
	uint64_t cfa;

	if (kind != TRACE_EXC_CATCH)
		return kind ? (uint64_t)kind << TRACE_EXC_KIND_SHIFT : 0;
	cfa = cfa_cookie(ut, p->addr);
	if (!cfa)
		return 0;
	return cfa | into_func(st, p->addr) << TRACE_EXC_INTO_SHIFT |
	       (uint64_t)TRACE_EXC_CATCH << TRACE_EXC_KIND_SHIFT;
}

static int add_site(struct catch_site_set *set, const struct usdt_probe *p, uint64_t cookie)
{
	size_t n = set->n + 1;
	uint64_t *o = realloc(set->offsets, n * sizeof(*o));

	if (o)
		set->offsets = o;
	o = o ? realloc(set->ref_ctrs, n * sizeof(*o)) : NULL;
	if (o)
		set->ref_ctrs = o;
	o = o ? realloc(set->cookies, n * sizeof(*o)) : NULL;
	if (!o)
		return -ENOMEM;
	set->cookies = o;
	set->offsets[set->n] = p->offset;
	set->ref_ctrs[set->n] = p->sema_offset;
	set->cookies[set->n++] = cookie;
	return 0;
}

static bool has_catch(const struct catch_site_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		if ((set->cookies[i] >> TRACE_EXC_KIND_SHIFT & 0xff) == TRACE_EXC_CATCH)
			return true;
	return false;
}

static void free_set(struct catch_site_set *set)
{
	free(set->path);
	free(set->offsets);
	free(set->ref_ctrs);
	free(set->cookies);
}

/* The sites of the probes ps lists, of the binary open on fd. */
static int plan_sites(int fd, const struct usdt_probes *ps, struct catch_site_set *set)
{
	struct unwind_table *ut = NULL;
	struct elf_symtab *st = NULL;
	int err = 0;

	if (unwind_table__build(fd, &ut))
		return 0;
	if (elf_symtab__load(fd, &st))
		st = NULL;
	for (size_t i = 0; i < ps->n && !err; i++) {
		uint64_t cookie = cookie_of(&ps->v[i], ut, st);

		if (cookie)
			err = add_site(set, &ps->v[i], cookie);
	}
	elf_symtab__free(st);
	unwind_table__free(ut);
	return err;
}

static bool any_catch(const struct usdt_probes *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		if (kind_of(&ps->v[i]) == TRACE_EXC_CATCH)
			return true;
	return false;
}

static int find_in(const struct target_binary *b, struct catch_sites *out)
{
	struct usdt_probes ps = {};
	struct catch_site_set set = {};
	int fd = -1, err = usdt__read(b->open_path, &ps);

	if (err || !any_catch(&ps))
		goto out;
	fd = open(b->open_path, O_RDONLY | O_CLOEXEC);
	err = fd < 0 ? 0 : plan_sites(fd, &ps, &set);
	if (!err && has_catch(&set)) {
		set.path = strdup(b->open_path);
		err = set.path
			      ? array__push((void **)&out->v, &out->n, &out->cap, &set, sizeof(set))
			      : -ENOMEM;
		if (!err)
			set = (struct catch_site_set){ 0 };
	}
out:
	if (fd >= 0)
		close(fd);
	free_set(&set);
	usdt__free(&ps);
	return err == -ENOMEM ? err : 0;
}

int catch_sites__find(const struct binaries *target, struct catch_sites *out)
{
	int err = 0;

	*out = (struct catch_sites){ 0 };
	for (size_t i = 0; i < target->n && !err; i++)
		err = find_in(&target->v[i], out);
	if (err)
		catch_sites__free(out);
	return err;
}

void catch_sites__free(struct catch_sites *s)
{
	for (size_t i = 0; i < s->n; i++)
		free_set(&s->v[i]);
	free(s->v);
	*s = (struct catch_sites){ 0 };
}
