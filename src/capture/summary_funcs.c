// SPDX-License-Identifier: GPL-2.0
/* What -f tells about the functions it selected: an IFUNC is traced in
 * code that is not its symbol's, maybe code that other names run too. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/msg.h"
#include "summary.h"

/* IFUNCs reported one line each, unless verbose asks for all. */
#define IFUNC_LINES_MAX 4
#define NAMES_SHOWN	4

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The implementation of f: its symbol, else MODULE+0xOFFSET. */
static void impl_name(const struct funcs *list, const struct func *f, struct strbuf *b)
{
	if (f->impl)
		strbuf__addf(b, "%s", f->impl);
	else
		strbuf__addf(b, "%s+%#" PRIx64, base_name(list->bins.v[f->bin].path), f->offset);
}

/* The end of the entries of one symbol that start at i. */
static size_t group_end(const struct funcs *list, size_t i)
{
	size_t j = i + 1;

	while (j < list->n && list->v[j].bin == list->v[i].bin &&
	       list->v[j].sym_vaddr == list->v[i].sym_vaddr)
		j++;
	return j;
}

static bool is_ifunc(const struct func *f)
{
	return f->ifunc || f->how != IFUNC_NOT_FOUND;
}

static void report_one(const struct funcs *list, size_t i, size_t j)
{
	const struct func *f = &list->v[i];
	struct strbuf b = {};

	for (size_t k = i; k < j; k++) {
		strbuf__addf(&b, "%s", k > i ? ", " : "");
		impl_name(list, &list->v[k], &b);
	}
	if (f->ifunc && f->how == IFUNC_ELSEWHERE)
		p_err("%s: an IFUNC; this CPU runs code of %s for it (as flamebpf's own %s "
		      "resolved "
		      "it), which cannot be probed: not traced",
		      f->name, f->impl, base_name(list->bins.v[f->bin].path));
	else if (f->ifunc)
		p_err("%s: an IFUNC whose implementation could not be found: not traced", f->name);
	else if (f->how == IFUNC_CANDIDATES)
		p_err("%s: an IFUNC; which implementation this CPU runs is not known here: traced "
		      "in every one its resolver can pick (%s), as %s",
		      f->name, b.s, f->name);
	else if (f->shared)
		p_err("%s: an IFUNC; traced in %s, which this CPU runs for it (as flamebpf's own "
		      "%s resolved it); %s run%s it too: those calls count as %s",
		      f->name, b.s, base_name(list->bins.v[f->bin].path), f->shared,
		      strchr(f->shared, ',') ? "" : "s", f->name);
	else
		p_err("%s: an IFUNC; traced in %s, which this CPU runs for it (as flamebpf's own "
		      "%s resolved it)",
		      f->name, b.s, base_name(list->bins.v[f->bin].path));
	strbuf__free(&b);
}

/* Up to NAMES_SHOWN names of the IFUNCs pred holds for, and how many. */
static size_t ifunc_names(const struct funcs *list, bool (*pred)(const struct func *),
			  struct strbuf *b)
{
	size_t n = 0;

	for (size_t i = 0; i < list->n; i = group_end(list, i)) {
		if (!pred(&list->v[i]))
			continue;
		if (n < NAMES_SHOWN)
			strbuf__addf(b, "%s%s", n ? ", " : "", list->v[i].name);
		n++;
	}
	if (n > NAMES_SHOWN)
		strbuf__addf(b, ", ...");
	return n;
}

static bool chosen(const struct func *f)
{
	return f->how == IFUNC_CHOSEN;
}

static bool candidates(const struct func *f)
{
	return f->how == IFUNC_CANDIDATES;
}

static bool not_found(const struct func *f)
{
	return f->ifunc && f->how == IFUNC_NOT_FOUND;
}

static bool elsewhere(const struct func *f)
{
	return f->how == IFUNC_ELSEWHERE;
}

static bool shared(const struct func *f)
{
	return f->shared != NULL;
}

static void report_many(const struct funcs *list)
{
	struct strbuf b[5] = {};
	size_t n[5] = { ifunc_names(list, chosen, &b[0]), ifunc_names(list, candidates, &b[1]),
			ifunc_names(list, not_found, &b[2]), ifunc_names(list, shared, &b[3]),
			ifunc_names(list, elsewhere, &b[4]) };

	if (n[0])
		p_err("%zu IFUNCs (%s) traced in the implementation this CPU runs for each, as "
		      "flamebpf's own copy resolved it (-v says which)",
		      n[0], b[0].s);
	if (n[1])
		p_err("%zu IFUNCs (%s) traced in every implementation their resolver can pick: "
		      "which one this CPU runs is not known here",
		      n[1], b[1].s);
	if (n[2])
		p_err("%zu IFUNCs (%s) not traced: their implementation could not be found", n[2],
		      b[2].s);
	if (n[3])
		p_err("%zu of them (%s) run code that other IFUNCs run too: those calls count "
		      "under the name traced (-v says which)",
		      n[3], b[3].s);
	if (n[4])
		p_err("%zu IFUNCs (%s) not traced: this CPU runs code of another file for them "
		      "(the vDSO), which cannot be probed",
		      n[4], b[4].s);
	for (int k = 0; k < 5; k++)
		strbuf__free(&b[k]);
}

void summary__ifuncs(const struct funcs *list, bool verbose)
{
	size_t n = 0;

	for (size_t i = 0; i < list->n; i = group_end(list, i))
		n += is_ifunc(&list->v[i]);
	if (n > IFUNC_LINES_MAX && !verbose) {
		report_many(list);
		return;
	}
	for (size_t i = 0, j; i < list->n; i = j) {
		j = group_end(list, i);
		if (is_ifunc(&list->v[i]))
			report_one(list, i, j);
	}
}

void summary__merged(void *arg, const struct func *kept, const struct func *dropped)
{
	struct summary_merges *m = arg;
	uint64_t pair[3] = { dropped->bin, dropped->sym_vaddr, kept->sym_vaddr }, v;
	uint64_t key = hash_bytes(pair, sizeof(pair), 0);

	/* an IFUNC's implementations may each meet another's: one note */
	if (hashmap__get(&m->seen, key, &v))
		return;
	hashmap__set(&m->seen, key, 1); /* out of memory: noted twice at worst */
	if (m->n < NAMES_SHOWN)
		strbuf__addf(&m->b, "%s%s as %s", m->n ? ", " : "", dropped->name, kept->name);
	m->n++;
}

void summary__merges(struct summary_merges *m)
{
	if (m->n)
		p_err("%zu traced under another name, whose code they run too (one probe counts "
		      "both): %s%s",
		      m->n, m->b.s, m->n > NAMES_SHOWN ? ", ..." : "");
	strbuf__free(&m->b);
	hashmap__free(&m->seen);
}
