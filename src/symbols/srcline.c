// SPDX-License-Identifier: GPL-2.0
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "srcline.h"

/* Where a compile unit's code is, for files without .debug_aranges
 * (clang emits none by default), where dwarf_addrdie() finds nothing. */
struct cu_range {
	uint64_t lo, hi;
	Dwarf_Off off; /* the unit's DIE */
};

struct srcline {
	Dwarf *dw;
	struct cu_range *ranges; /* sorted by lo; built on first need */
	size_t nranges;
	bool ranges_built;
};

#define CU_RANGES_MAX  (1 << 20) /* bounds what a hostile file can make us keep */
#define SCOPE_DIES_MAX (1 << 20) /* and the DIEs one lookup looks at */

int srcline__open(int fd, struct srcline **out)
{
	struct srcline *s;
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);

	if (!dw)
		return -ENOENT;
	s = calloc(1, sizeof(*s));
	if (!s) {
		dwarf_end(dw);
		return -ENOMEM;
	}
	s->dw = dw;
	*out = s;
	return 0;
}

static const char *basename_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static const char *string_attr(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, name, &a) ? dwarf_formstring(&a) : NULL;
}

/* An inlined function's name, through its abstract origin. */
static const char *func_name(Dwarf_Die *die)
{
	const char *n = string_attr(die, DW_AT_linkage_name);

	if (!n)
		n = string_attr(die, DW_AT_MIPS_linkage_name);
	return n ? n : string_attr(die, DW_AT_name);
}

/* Returns false when die has no such attribute. */
static bool udata_attr(Dwarf_Die *die, int name, Dwarf_Word *v)
{
	Dwarf_Attribute a;

	return dwarf_attr(die, name, &a) && !dwarf_formudata(&a, v);
}

/* Where an inlined call was made: the file and line in its caller. File 0
 * is a real file in DWARF 5 (the unit's own), "none" before. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, struct srcline_frame *f)
{
	Dwarf_Word idx, line;
	Dwarf_Files *files;
	size_t nfiles;

	f->line = udata_attr(inl, DW_AT_call_line, &line) && line < 1u << 30 ? (int)line : 0;
	f->file = NULL;
	if (udata_attr(inl, DW_AT_call_file, &idx) && !dwarf_getsrcfiles(cu, &files, &nfiles) &&
	    idx < nfiles)
		f->file = basename_of(dwarf_filesrc(files, idx, NULL, NULL));
}

/* The first child of die whose ranges hold vaddr; *budget bounds the DIEs
 * looked at, whatever DW_AT_sibling chains a hostile file makes. */
static bool child_at(Dwarf_Die *die, uint64_t vaddr, Dwarf_Die *child, size_t *budget)
{
	Dwarf_Die next;

	if (dwarf_child(die, child))
		return false;
	while (*budget) {
		--*budget;
		if (dwarf_haspc(child, vaddr) > 0)
			return true;
		if (dwarf_siblingof(child, &next))
			return false;
		*child = next;
	}
	return false;
}

/* The innermost scope holding vaddr: what dwarf_getscopes() finds first,
 * without calling it, since it leaks its array when it fails (an inlined
 * instance whose abstract origin cannot be found). False when no DIE under
 * cu holds vaddr. */
static bool innermost_scope(Dwarf_Die *cu, uint64_t vaddr, Dwarf_Die *die)
{
	size_t budget = SCOPE_DIES_MAX, depth = 0;
	Dwarf_Die child;

	*die = *cu;
	for (; child_at(die, vaddr, &child, &budget); depth++)
		*die = child;
	return depth > 0;
}

/* Fills inner[] innermost first; returns how many. */
static size_t inner_first(Dwarf_Die *cu, uint64_t vaddr, struct srcline_frame *inner, size_t cap)
{
	Dwarf_Line *line = dwarf_getsrc_die(cu, vaddr);
	Dwarf_Die innermost, *scopes = NULL;
	int nscopes = 0;
	size_t n = 1;

	/* the DIEs around the innermost scope lead to its callers */
	if (innermost_scope(cu, vaddr, &innermost))
		nscopes = dwarf_getscopes_die(&innermost, &scopes);
	inner[0] = (struct srcline_frame){ NULL, NULL, 0 };
	if (line) {
		inner[0].file = basename_of(dwarf_linesrc(line, NULL, NULL));
		/* past INT_MAX it reads as negative: unknown, as in call_site() */
		if (dwarf_lineno(line, &inner[0].line) || inner[0].line < 0 ||
		    inner[0].line >= 1 << 30)
			inner[0].line = 0;
	}
	for (int i = 0; i < nscopes && n < cap; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		/* the frame so far is this inlined function; its caller is next */
		inner[n - 1].func = func_name(&scopes[i]);
		if (!inner[n - 1].func)
			inner[n - 1].func = "[inlined]";
		call_site(cu, &scopes[i], &inner[n]);
		inner[n++].func = NULL;
	}
	free(scopes);
	return n;
}

static int cmp_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int add_range(struct srcline *s, size_t *cap, uint64_t lo, uint64_t hi, Dwarf_Off off)
{
	if (s->nranges == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct cu_range *v;

		if (ncap > CU_RANGES_MAX)
			return -E2BIG;
		v = reallocarray(s->ranges, ncap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->ranges = v;
		*cap = ncap;
	}
	s->ranges[s->nranges++] = (struct cu_range){ lo, hi, off };
	return 0;
}

/* Every unit's address ranges, sorted. */
static void build_ranges(struct srcline *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	int err = 0;

	s->ranges_built = true;
	while (!err && dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;

		if (dwarf_offdie(s->dw, off + hsize, &cu)) {
			while (!err && (it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0)
				if (lo < hi)
					err = add_range(s, &cap, lo, hi, off + hsize);
		}
		off = next;
	}
	/* none: ranges is NULL, which qsort() must not be given */
	if (s->nranges)
		qsort(s->ranges, s->nranges, sizeof(*s->ranges), cmp_range);
}

/* The unit holding vaddr, by .debug_aranges, else by the units' ranges. */
static bool find_cu(struct srcline *s, uint64_t vaddr, Dwarf_Die *cu)
{
	size_t lo = 0, hi;

	if (dwarf_addrdie(s->dw, vaddr, cu))
		return true;
	if (!s->ranges_built)
		build_ranges(s);
	hi = s->nranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ranges[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges may nest or overlap: look back a little */
	for (size_t i = lo; i-- > 0 && lo - i <= 16;)
		if (vaddr < s->ranges[i].hi)
			return dwarf_offdie(s->dw, s->ranges[i].off, cu) != NULL;
	return false;
}

size_t srcline__lookup(struct srcline *s, uint64_t vaddr, struct srcline_frame *out, size_t max)
{
	struct srcline_frame inner[SRCLINE_MAX_INLINE * 4 + 1];
	Dwarf_Die cu;
	size_t n, k;

	if (!max || !find_cu(s, vaddr, &cu))
		return 0;
	n = inner_first(&cu, vaddr, inner, sizeof(inner) / sizeof(inner[0]));
	/* the outermost, then the innermost that fit, outermost first */
	out[0] = inner[n - 1];
	k = n - 1 < max - 1 ? n - 1 : max - 1;
	for (size_t i = 0; i < k; i++)
		out[1 + i] = inner[k - 1 - i];
	return 1 + k;
}

void srcline__free(struct srcline *s)
{
	if (!s)
		return;
	dwarf_end(s->dw);
	free(s->ranges);
	free(s);
}
