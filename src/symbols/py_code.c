// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "py_code.h"
#include "py_linetable.h"

#define PY_STR_MAX   1024
#define PY_TABLE_MAX (64 << 10)

/* PyASCIIObject.state's bits (Include/cpython/unicodeobject.h). */
#define STATE_KIND(s)	 (((s) >> 2) & 7)
#define STATE_COMPACT(s) (((s) >> 5) & 1)
#define STATE_ASCII(s)	 (((s) >> 6) & 1)

/* PyObject.ob_type: after ob_refcnt in every version read (3.10-3.13,
 * builds without Py_TRACE_REFS) */
#define PY_OB_TYPE 8

static int read_u64(const struct proc_mem *m, uint64_t addr, uint64_t *v)
{
	return m->read(m->arg, addr, v, sizeof(*v));
}

/* Whether the object at addr is of type (0: any). */
static bool of_type(const struct proc_mem *m, uint64_t addr, uint64_t type)
{
	uint64_t t;

	return !type || (!read_u64(m, addr + PY_OB_TYPE, &t) && t == type);
}

/* Latin-1 to UTF-8, in place: buf holds n bytes and has room for 2n + 1. */
static void latin1_to_utf8(char *buf, size_t n)
{
	size_t out = n;

	for (size_t i = 0; i < n; i++)
		out += (unsigned char)buf[i] >= 0x80;
	buf[out] = '\0';
	for (size_t i = n; i-- > 0;) {
		unsigned char ch = (unsigned char)buf[i];

		if (ch < 0x80) {
			buf[--out] = (char)ch;
		} else {
			buf[--out] = (char)(0x80 | (ch & 0x3f));
			buf[--out] = (char)(0xc0 | (ch >> 6));
		}
	}
}

/* Where a string's UTF-8 (or Latin-1) bytes are, and how many. */
static int str_bytes(const struct proc_mem *m, const struct py_layout *l, uint64_t s,
		     uint64_t *data, uint64_t *n, int *latin1)
{
	uint32_t state;

	*latin1 = 0;
	if (m->read(m->arg, s + l->str_state, &state, sizeof(state)))
		return -EFAULT;
	if (!STATE_COMPACT(state))
		return -ENOTSUP;
	if (STATE_ASCII(state)) {
		*data = s + l->str_ascii_data;
		return read_u64(m, s + l->str_length, n) ? -EFAULT : 0;
	}
	if (read_u64(m, s + l->str_utf8, data))
		return -EFAULT;
	if (*data)
		return read_u64(m, s + l->str_utf8_length, n) ? -EFAULT : 0;
	if (STATE_KIND(state) != 1)
		return -ENOTSUP;
	*latin1 = 1;
	*data = s + l->str_compact_data;
	return read_u64(m, s + l->str_length, n) ? -EFAULT : 0;
}

/* The string object at s (of type str_type: see of_type), allocated; "?"
 * when it cannot be read. */
static char *read_str(const struct proc_mem *m, const struct py_layout *l, uint64_t str_type,
		      uint64_t s)
{
	uint64_t data, n;
	int latin1;
	char *buf;

	if (!s || !of_type(m, s, str_type) || str_bytes(m, l, s, &data, &n, &latin1) ||
	    n > PY_STR_MAX)
		return strdup("?");
	buf = malloc(2 * n + 1);
	if (!buf)
		return NULL;
	if (m->read(m->arg, data, buf, n)) {
		free(buf);
		return strdup("?");
	}
	buf[n] = '\0';
	if (latin1)
		latin1_to_utf8(buf, n);
	return buf;
}

/* The bytes object at b into c's table; none when it cannot be read. */
static int read_table(const struct proc_mem *m, const struct py_layout *l, uint64_t b,
		      struct py_code *c)
{
	uint64_t n;

	if (!b || read_u64(m, b + l->bytes_size, &n) || !n || n > PY_TABLE_MAX)
		return 0;
	c->linetable = malloc(n);
	if (!c->linetable)
		return -ENOMEM;
	if (m->read(m->arg, b + l->bytes_data, c->linetable, n)) {
		free(c->linetable);
		c->linetable = NULL;
		return 0;
	}
	c->ntable = n;
	return 0;
}

/* The fields that name a code object, and their identity: a hash of
 * them, which another object at the same address shares by chance only. */
static int read_fields(const struct proc_mem *m, const struct py_layout *l,
		       const struct py_types *t, uint64_t addr, uint64_t f[4], int32_t *first,
		       uint64_t *ident)
{
	uint64_t type;

	if (t && t->code) {
		if (read_u64(m, addr + PY_OB_TYPE, &type))
			return -EFAULT;
		if (type != t->code)
			return -ESTALE;
	}
	if (read_u64(m, addr + l->co_filename, &f[0]) || read_u64(m, addr + l->co_name, &f[1]) ||
	    (l->co_qualname && read_u64(m, addr + l->co_qualname, &f[2])) ||
	    read_u64(m, addr + l->co_linetable, &f[3]) ||
	    m->read(m->arg, addr + l->co_firstlineno, first, sizeof(*first)))
		return -EFAULT;
	*ident = (uint64_t)(uint32_t)*first;
	for (int i = 0; i < 4; i++)
		*ident = (*ident ^ f[i]) * 0x100000001b3ULL;
	return 0;
}

int py_code__ident(const struct proc_mem *m, const struct py_layout *l, const struct py_types *t,
		   uint64_t addr, uint64_t *ident)
{
	uint64_t f[4] = { 0 };
	int32_t first;

	return read_fields(m, l, t, addr, f, &first, ident);
}

int py_code__read(const struct proc_mem *m, const struct py_layout *l, const struct py_types *t,
		  uint64_t addr, struct py_code *out)
{
	uint64_t f[4] = { 0 }, ident, file, name, qualname, table, str_type = t ? t->str : 0;
	int32_t first;
	int err;

	memset(out, 0, sizeof(*out));
	out->pair_lines = l->pair_lines;
	err = read_fields(m, l, t, addr, f, &first, &ident);
	if (err)
		return err;
	file = f[0];
	name = f[1];
	qualname = f[2];
	table = f[3];
	out->ident = ident;
	out->firstlineno = first;
	out->name = read_str(m, l, str_type, qualname ? qualname : name);
	out->file = read_str(m, l, str_type, file);
	if (!out->name || !out->file || read_table(m, l, table, out)) {
		py_code__free(out);
		return -ENOMEM;
	}
	return 0;
}

void py_code__frame_name(const struct py_code *c, int lasti, char *buf, size_t len)
{
	int line =
		c->pair_lines
			? py_linetable__line_pairs(c->linetable, c->ntable, c->firstlineno, lasti)
			: py_linetable__line(c->linetable, c->ntable, c->firstlineno, lasti);

	snprintf(buf, len, "%s (%s:%d)", c->name, c->file, line);
}

void py_code__free(struct py_code *c)
{
	free(c->name);
	free(c->file);
	free(c->linetable);
	memset(c, 0, sizeof(*c));
}
