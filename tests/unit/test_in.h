/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the reader tests (test_in_*.c): an input given as text is
 * written to a temporary file and read back with reader__load(); profiles
 * are compared as the folded text they write. Header-only: each test
 * includes it once.
 */
#ifndef FLAMEBPF_TEST_IN_H
#define FLAMEBPF_TEST_IN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/out_folded.h"
#include "formats/reader.h"
#include "util.h"

struct loaded {
	int ret;
	struct profile *p;
	enum in_format format;
	struct reader_stats st;
	char err[READER_ERR_LEN];
	char path[64];
};

/* Reads LEN bytes of TEXT as a file (the file is gone afterwards). */
static inline void load_len(struct loaded *l, const char *text, size_t len,
			    const struct reader_opts *o)
{
	struct reader_opts none = { 0 };

	memset(l, 0, sizeof(*l));
	snprintf(l->path, sizeof(l->path), "/tmp/flamebpf-in.XXXXXX");
	close(u_temp_file(l->path, text, len));
	l->ret = reader__load(l->path, o ? o : &none, &l->p, &l->format, &l->st, l->err);
	unlink(l->path);
	if (l->ret)
		print_message("reader: %s\n", l->err);
}

static inline void load(struct loaded *l, const char *text, const struct reader_opts *o)
{
	load_len(l, text, strlen(text), o);
}

static inline void loaded_free(struct loaded *l)
{
	profile__free(l->p);
	l->p = NULL;
}

/* The profile as folded text (sorted, merged); the caller frees it. */
static inline char *folded_of(const struct profile *p, enum root_style root)
{
	struct write_opts wo = { .root = root };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(folded__write(p, &wo, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* TEXT must read without error and write WANT back as folded. */
static inline void expect_folded(const char *text, const struct reader_opts *o,
				 enum root_style root, const char *want)
{
	struct loaded l;
	char *got;

	load(&l, text, o);
	assert_int_equal(l.ret, 0);
	got = folded_of(l.p, root);
	assert_string_equal(got, want);
	free(got);
	loaded_free(&l);
}

/* TEXT must fail with WANT and a message naming the file and containing WHAT. */
static inline void expect_error(const char *text, const struct reader_opts *o, int want,
				const char *what)
{
	struct loaded l;
	char name[80];

	load(&l, text, o);
	assert_int_equal(l.ret, want);
	assert_null(l.p);
	snprintf(name, sizeof(name), "'%s'", l.path);
	if (!strstr(l.err, name) || !strstr(l.err, what))
		fail_msg("message '%s' does not name %s and '%s'", l.err, name, what);
}

/* tests/data/NAME. */
static inline const char *data_path(const char *name)
{
	return u_repo_file("tests/data", name);
}

/* The whole of tests/data/NAME; the caller frees it. */
static inline char *data_text(const char *name)
{
	FILE *f = fopen(data_path(name), "r");
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		fail_msg("cannot open %s", data_path(name));
	n = getdelim(&text, &cap, '\0', f);
	assert_true(n >= 0);
	fclose(f);
	return text;
}

/* Reading tests/data/IN (as a file of its own) gives tests/data/WANT. */
static inline void expect_data(const char *in, const struct reader_opts *o, enum root_style root,
			       const char *want)
{
	char *text = data_text(in), *expected = data_text(want);

	expect_folded(text, o, root, expected);
	free(text);
	free(expected);
}

#endif
