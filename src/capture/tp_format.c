// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "tp_format.h"

/* The number after key ("offset:") in a line; false when absent. */
static bool line_number(const char *line, size_t n, const char *key, unsigned int *v)
{
	const char *at = memmem(line, n, key, strlen(key));
	char *end;

	if (!at)
		return false;
	*v = strtoul(at + strlen(key), &end, 10);
	return end != at + strlen(key);
}

static enum tp_field_kind kind_of(const char *decl, const char *name_end, unsigned int size)
{
	if (!strncmp(decl, "__data_loc ", 11) || !strncmp(decl, "__rel_loc ", 10))
		return TP_FIELD_STRING;
	if (*name_end == '[')
		return TP_FIELD_ARRAY;
	if (strchr(decl, '*'))
		return TP_FIELD_POINTER;
	return size == 1 || size == 2 || size == 4 || size == 8 ? TP_FIELD_NUMBER : TP_FIELD_ODD;
}

/* "field:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;" into *f. */
static bool parse_line(const char *line, size_t n, struct tp_field *f)
{
	const char *decl = memmem(line, n, "field:", 6), *semi, *name, *end;
	unsigned int is_signed = 0;

	if (!decl || !(semi = memchr(decl, ';', n - (decl - line))))
		return false;
	decl += 6;
	/* "char comm[16]": the name before its brackets ("char[] x" is no array) */
	end = semi[-1] == ']' ? memrchr(decl, '[', semi - decl) ?: semi : semi;
	for (name = end; name > decl && name[-1] != ' ' && name[-1] != '*'; name--)
		;
	if (name == end || end - name >= TP_FIELD_NAME_LEN || semi - decl >= TP_FIELD_DECL_LEN)
		return false;
	*f = (struct tp_field){};
	memcpy(f->name, name, end - name);
	memcpy(f->decl, decl, semi - decl);
	if (!line_number(semi, n - (semi - line), "offset:", &f->offset) ||
	    !line_number(semi, n - (semi - line), "size:", &f->size))
		return false;
	/* kernels before 2.6.32 wrote no signed: */
	line_number(semi, n - (semi - line), "signed:", &is_signed);
	f->is_signed = is_signed;
	f->common = !strncmp(f->name, "common_", 7);
	f->kind = kind_of(f->decl, end, f->size);
	return true;
}

bool tp_format__next(const char **at, struct tp_field *f)
{
	while (**at) {
		const char *line = *at;
		size_t n = strcspn(line, "\n");

		*at += n + (line[n] == '\n');
		if (parse_line(line, n, f))
			return true;
	}
	return false;
}

int tp_format__field(const char *format, const char *name, struct tp_field *f)
{
	const char *at = format;

	while (tp_format__next(&at, f))
		if (!f->common && !strcmp(f->name, name))
			return 0;
	return -ENOENT;
}

int tp_format__numbers(const char *format, struct strbuf *b)
{
	const char *at = format;
	struct tp_field f;
	size_t start = b->len;
	int err = 0;

	while (!err && tp_format__next(&at, &f))
		if (!f.common && f.kind == TP_FIELD_NUMBER)
			err = strbuf__addf(b, "%s%s", b->len > start ? ", " : "", f.name);
	return err;
}

const char *tp_field__not_a_number(const struct tp_field *f)
{
	switch (f->kind) {
	case TP_FIELD_NUMBER:
		return NULL;
	case TP_FIELD_STRING:
		return "a string";
	case TP_FIELD_ARRAY:
		return "an array";
	case TP_FIELD_POINTER:
		return "an address";
	default:
		return "an integer of a size other than 1, 2, 4 or 8 bytes";
	}
}
