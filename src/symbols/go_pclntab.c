// SPDX-License-Identifier: GPL-2.0
/*
 * The layouts, from Go's runtime/symtab.go and debug/gosym: a header that
 * starts with a magic per layout, the pointer size in byte 7, then
 *
 *   1.2-1.15  (0xfffffffb): nfunc, then nfunc pairs (pc, funcoff) and the
 *             end pc, all pointers; offsets from the table's start.
 *   1.16-1.17 (0xfffffffa): nfunc, nfiles, then offsets of the function
 *             names, cu, file, pc tables and of the function table, whose
 *             pairs are pointers again.
 *   1.18+     (0xfffffff0, 0xfffffff1 from 1.20): the same with the text
 *             address after nfiles, and 32-bit pairs of offsets from it.
 *
 * Each pair's funcoff leads to a _func record (from the function table's
 * start since 1.16), whose name offset follows its entry (a pointer before
 * 1.18, 32 bits since). Everything read from the file is checked against
 * its size: the file is any user's.
 */
#include <errno.h>
#include <string.h>

#include "go_pclntab.h"

enum go_layout { GO_12, GO_116, GO_118 };

struct table {
	const uint8_t *d;
	size_t size;
	enum go_layout layout;
	unsigned ptr; /* 4 or 8 */
	uint64_t nfunc;
	uint64_t text;	  /* 1.18+: the base of entry offsets */
	uint64_t names;	  /* where names are counted from */
	uint64_t functab; /* the pairs */
	uint64_t funcs;	  /* where _func offsets are counted from */
};

static int read_uint(const struct table *t, uint64_t off, unsigned width, uint64_t *v)
{
	uint64_t x = 0;

	if (off > t->size || t->size - off < width)
		return -ENOEXEC;
	for (unsigned i = width; i-- > 0;) /* little-endian: amd64, arm64 */
		x = x << 8 | t->d[off + i];
	*v = x;
	return 0;
}

static int read_ptr(const struct table *t, uint64_t off, uint64_t *v)
{
	return read_uint(t, off, t->ptr, v);
}

/* The header's pointer-sized word i (0 is nfunc), after the first 8 bytes. */
static int word(const struct table *t, unsigned i, uint64_t *v)
{
	return read_ptr(t, 8 + (uint64_t)i * t->ptr, v);
}

static int set_layout(struct table *t)
{
	uint64_t magic;

	if (read_uint(t, 0, 4, &magic) || t->size < 8)
		return -ENOEXEC;
	t->ptr = t->d[7];
	if ((t->ptr != 4 && t->ptr != 8) || t->d[4] || t->d[5])
		return -ENOEXEC;
	switch (magic) {
	case 0xfffffffb:
		t->layout = GO_12;
		return 0;
	case 0xfffffffa:
		t->layout = GO_116;
		return 0;
	case 0xfffffff0:
	case 0xfffffff1:
		t->layout = GO_118;
		return 0;
	default:
		return -ENOEXEC;
	}
}

/* Where the parts are, by layout. */
static int read_header(struct table *t, uint64_t text)
{
	unsigned skip; /* 1: the text address after nfiles */
	int err = set_layout(t);

	if (!err)
		err = word(t, 0, &t->nfunc);
	if (err)
		return err;
	skip = t->layout == GO_118;
	if (t->layout == GO_12) {
		t->functab = 8 + t->ptr;
		return 0;
	}
	if (t->layout == GO_118) {
		err = word(t, 2, &t->text);
		if (!err && !t->text)
			t->text = text; /* left to a relocation */
	}
	if (!err)
		err = word(t, 2 + skip, &t->names);
	if (!err)
		err = word(t, 6 + skip, &t->functab);
	t->funcs = t->functab;
	return err;
}

/* Pair i of the function table: the function's entry and its record. */
static int pair(const struct table *t, uint64_t i, uint64_t *entry, uint64_t *func)
{
	unsigned w = t->layout == GO_118 ? 4 : t->ptr;
	uint64_t off = t->functab + i * 2 * w;
	int err;

	if (i > t->nfunc)
		return -ENOEXEC;
	err = read_uint(t, off, w, entry);
	if (!err && i < t->nfunc)
		err = read_uint(t, off + w, w, func);
	if (t->layout == GO_118)
		*entry += t->text;
	return err;
}

/* The name of the function whose record is at func (from t->funcs). */
static int func_name(const struct table *t, uint64_t func, const char **name, size_t *len)
{
	unsigned entry = t->layout == GO_118 ? 4 : t->ptr;
	uint64_t noff, at;
	const uint8_t *end;
	int err;

	if (func > t->size - t->funcs)
		return -ENOEXEC;
	err = read_uint(t, t->funcs + func + entry, 4, &noff);
	if (err)
		return err;
	at = t->names + noff;
	if (noff > UINT32_MAX / 2 || at < t->names || at >= t->size)
		return -ENOEXEC;
	end = memchr(t->d + at, '\0', t->size - at);
	if (!end)
		return -ENOEXEC;
	*name = (const char *)t->d + at;
	*len = (size_t)(end - (t->d + at));
	return 0;
}

int go_pclntab__funcs(const uint8_t *data, size_t size, uint64_t text, go_pclntab_func_cb cb,
		      void *arg)
{
	struct table t = { .d = data, .size = size };
	uint64_t entry, func, next, next_func;
	const char *name;
	size_t len;
	int err = read_header(&t, text);

	if (err)
		return err;
	if (t.functab > size || t.names > size || t.nfunc > (size - t.functab) / 8)
		return -ENOEXEC;
	err = pair(&t, 0, &entry, &func);
	for (uint64_t i = 0; !err && i < t.nfunc; i++, entry = next, func = next_func) {
		next_func = 0;
		err = pair(&t, i + 1, &next, &next_func); /* the last pair: the end */
		if (!err && next < entry)
			err = -ENOEXEC; /* the table is sorted: this is no table */
		if (!err)
			err = func_name(&t, func, &name, &len);
		if (!err && len && next > entry)
			err = cb(arg, entry, next, name, len);
	}
	return err;
}
