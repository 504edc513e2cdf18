/* Unit tests of src/symbols/unwind_compact.c, the rows the in-kernel unwinder
 * keeps. The truth is the full table (unwind_table__find, itself checked
 * against libdw by test_unwind_table): at every row's first and last byte of
 * the fixtures', libc's and python3.11's code, the compact rows searched as
 * bpf/unwind.bpf.h searches them, and decoded as it decodes them, must give
 * the same rules, but in the padding between functions they leave out.
 * Built as flamebpf builds them, streamed through a sink and compacted as
 * they come (unwind_table__build_to, unwind_compact__push), the rows and
 * the stats must be those of the whole table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/unwind_compact.h"
#include "util.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the directory of the built fixtures"
#endif

#define FIX_OMITFP FIXTURE_DIR "/unwfix_omitfp"
#define FIX_FP	   FIXTURE_DIR "/unwfix_fp"
#define LIBC	   "/lib/x86_64-linux-gnu/libc.so.6"
#define PYTHON	   "/usr/bin/python3.11"

struct compact {
	struct unwind_crow *v;
	size_t n;
	uint64_t base;
};

static struct unwind_table *load(const char *path)
{
	struct unwind_table *t = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (unwind_table__build(fd, &t))
		t = NULL;
	close(fd);
	return t;
}

/* t's rows compacted one by one, as the unwinder does while a table is
 * built, here from the table built whole. */
static void compact_all(const struct unwind_table *t, struct compact *c)
{
	struct unwind_compact it = { 0 };
	const struct unwind_row *rows;
	size_t n;

	rows = unwind_table__rows(t, &n);
	c->v = calloc(n + 1, sizeof(*c->v));
	assert_non_null(c->v);
	c->n = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = unwind_compact__push(&it, &rows[i], &c->v[c->n]);

		assert_true(rc >= 0);
		c->n += rc;
	}
	c->base = it.base;
	c->n += unwind_compact__flush(&it, &c->v[c->n]);
}

/* As bpf/unwind.bpf.h: the last row at or below pc, decoded. */
static struct unwind_row bpf_find(const struct compact *c, uint64_t pc)
{
	size_t lo = 0, hi = c->n;
	uint32_t rule;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uint64_t)c->v[mid].pc <= pc - c->base)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc < c->base)
		return (struct unwind_row){ .kind = UNWIND_NONE };
	rule = c->v[lo - 1].rule;
	return (struct unwind_row){ .cfa_off = unwind_rule_cfa_off(rule),
				    .rbp_off = unwind_rule_rbp_off(rule),
				    .kind = rule & 7,
				    .rbp = (rule >> 3) & 3 };
}

static bool same_rules(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->rbp == b->rbp &&
	       a->rbp_off == b->rbp_off;
}

/* pc is in row i, a "no FDE" row of padding the compact rows leave out. */
static bool in_padding(const struct unwind_row *rows, size_t n, size_t i)
{
	return rows[i].kind == UNWIND_NONE && i + 1 < n && rows[i + 1].pc - rows[i].pc < 16;
}

/* Checks path's compact rows at each row's ends; returns them for more. */
static size_t agree(const char *path, size_t *full)
{
	struct unwind_table *t = load(path);
	const struct unwind_row *rows;
	struct compact c;
	size_t n, bad = 0;

	if (!t) {
		print_message("SKIP: cannot build the table of '%s'\n", path);
		return 0;
	}
	rows = unwind_table__rows(t, &n);
	compact_all(t, &c);
	for (size_t i = 0; i + 1 < n; i++) {
		uint64_t at[2] = { rows[i].pc, rows[i + 1].pc - 1 };

		for (int k = 0; k < 2; k++) {
			struct unwind_row got = bpf_find(&c, at[k]);

			if (in_padding(rows, n, i) ||
			    same_rules(&got, unwind_table__find(t, at[k])))
				continue;
			if (bad++ < 5)
				print_error("%s at 0x%" PRIx64
					    ": kind %d cfa %d, want kind %d cfa %d\n",
					    path, at[k], got.kind, got.cfa_off, rows[i].kind,
					    rows[i].cfa_off);
		}
	}
	assert_int_equal(bad, 0);
	*full = n;
	n = c.n;
	free(c.v);
	unwind_table__free(t);
	return n;
}

static void test_fixtures(void **state)
{
	size_t full, n;

	(void)state;
	n = agree(FIX_OMITFP, &full);
	assert_true(n > 0 && n < full);
	n = agree(FIX_FP, &full);
	assert_true(n > 0 && n < full);
}

/* libc: 3353 of its 3403 gaps between functions are padding (docs/unwinding.md),
 * 12% of its rows. */
static void test_libc_python(void **state)
{
	size_t full = 0, n;

	(void)state;
	if (access(LIBC, R_OK) || access(PYTHON, R_OK))
		skip();
	n = agree(LIBC, &full);
	print_message("libc: %zu rows, %zu compact\n", full, n);
	assert_true(n < full * 0.88);
	n = agree(PYTHON, &full);
	print_message("python3.11: %zu rows, %zu compact\n", full, n);
	assert_true(n < full * 0.95);
}

static void roundtrip(int32_t cfa_off, int16_t rbp_off, bool fits)
{
	struct unwind_row r = { .pc = 0x1010,
				.cfa_off = cfa_off,
				.rbp_off = rbp_off,
				.kind = UNWIND_CFA_RSP,
				.rbp = UNWIND_RBP_CFA };
	struct unwind_crow c;

	assert_int_equal(unwind_compact__row(&r, 0x1000, &c), fits);
	assert_int_equal(c.pc, 0x10);
	if (!fits) {
		assert_int_equal(c.rule & 7, UNWIND_CFA_OTHER);
		return;
	}
	assert_int_equal(unwind_rule_cfa_off(c.rule), cfa_off);
	assert_int_equal(unwind_rule_rbp_off(c.rule), rbp_off);
	assert_int_equal(c.rule & 7, UNWIND_CFA_RSP);
	assert_int_equal((c.rule >> 3) & 3, UNWIND_RBP_CFA);
}

/* The offsets at and past the packed fields' limits. */
static void test_limits(void **state)
{
	(void)state;
	roundtrip(8, -16, true);
	roundtrip(280576, -16, true); /* a 274 KiB frame, seen in libLLVM */
	roundtrip(UNWIND_CFA_OFF_MAX, UNWIND_RBP_OFF_MAX, true);
	roundtrip(-UNWIND_CFA_OFF_MAX, -UNWIND_RBP_OFF_MAX, true);
	roundtrip(UNWIND_CFA_OFF_MAX + 1, -16, false);
	roundtrip(-UNWIND_CFA_OFF_MAX - 1, -16, false);
	roundtrip(16, -UNWIND_RBP_OFF_MAX - 8, false);
	roundtrip(16, -12, false); /* not a multiple of 8 */
}

/* A sink that compacts what it is given, as src/capture/unwinder.c does,
 * and keeps the rows too. */
struct streamed {
	struct unwind_row *rows;
	size_t n, batches, biggest;
	struct unwind_compact c;
	struct compact out;
	size_t fail_at; /* the row at which to fail with -ENOSPC; 0: none */
};

static void keep_crow(struct streamed *s, const struct unwind_crow *row)
{
	s->out.v = realloc(s->out.v, (s->out.n + 1) * sizeof(*s->out.v));
	assert_non_null(s->out.v);
	s->out.v[s->out.n++] = *row;
}

static int take_rows(void *ctx, const struct unwind_row *rows, size_t n)
{
	struct streamed *s = ctx;
	struct unwind_crow row;

	if (s->fail_at && s->n + n >= s->fail_at)
		return -ENOSPC;
	s->batches++;
	s->biggest = n > s->biggest ? n : s->biggest;
	s->rows = realloc(s->rows, (s->n + n) * sizeof(*s->rows));
	assert_non_null(s->rows);
	memcpy(s->rows + s->n, rows, n * sizeof(*rows));
	s->n += n;
	for (size_t i = 0; i < n; i++) {
		int rc = unwind_compact__push(&s->c, &rows[i], &row);

		assert_true(rc >= 0);
		if (rc)
			keep_crow(s, &row);
	}
	return 0;
}

static int stream(const char *path, struct streamed *s, struct unwind_table **t)
{
	struct unwind_sink sink = { take_rows, s };
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	struct unwind_crow row;

	assert_true(fd >= 0);
	err = unwind_table__build_to(fd, &sink, t);
	close(fd);
	if (!err && unwind_compact__flush(&s->c, &row))
		keep_crow(s, &row);
	s->out.base = s->c.base;
	return err;
}

static void same_stats(const struct unwind_stats *a, const struct unwind_stats *b)
{
	assert_int_equal(a->nfdes, b->nfdes);
	assert_int_equal(a->nfdes_bad, b->nfdes_bad);
	assert_int_equal(a->code_bytes, b->code_bytes);
	for (int k = 0; k < UNWIND_KIND_COUNT; k++) {
		assert_int_equal(a->nrows[k], b->nrows[k]);
		assert_int_equal(a->code_bytes_by[k], b->code_bytes_by[k]);
	}
}

/* path's rows streamed: those of its whole table, in batches far smaller,
 * compacted as the whole table's are; and the same stats and bias. */
static void streams_as_whole(const char *path)
{
	struct unwind_table *whole = load(path), *t = NULL;
	struct streamed s = { 0 };
	const struct unwind_row *rows;
	struct compact c;
	uint64_t b1 = 1, b2 = 2;
	size_t n;

	assert_non_null(whole);
	assert_int_equal(stream(path, &s, &t), 0);
	rows = unwind_table__rows(whole, &n);
	print_message("%s: %zu rows in %zu batches of at most %zu\n", path, s.n, s.batches,
		      s.biggest);
	assert_int_equal(s.n, n);
	assert_memory_equal(s.rows, rows, n * sizeof(*rows));
	assert_true(n <= 4096 || s.biggest < 4096);
	same_stats(unwind_table__stats(t), unwind_table__stats(whole));
	unwind_table__rows(t, &n);
	assert_int_equal(n, 0);
	assert_int_equal(unwind_table__bias(t, 0x7f0000000000, 0x7f0000100000, 0, &b1), 0);
	assert_int_equal(unwind_table__bias(whole, 0x7f0000000000, 0x7f0000100000, 0, &b2), 0);
	assert_int_equal(b1, b2);
	compact_all(whole, &c);
	assert_int_equal(s.out.n, c.n);
	assert_int_equal(s.out.base, c.base);
	assert_int_equal(s.c.refused, 0);
	assert_memory_equal(s.out.v, c.v, c.n * sizeof(*c.v));
	free(c.v);
	free(s.out.v);
	free(s.rows);
	unwind_table__free(t);
	unwind_table__free(whole);
}

static void test_streamed(void **state)
{
	(void)state;
	streams_as_whole(FIX_OMITFP);
	streams_as_whole(FIX_FP);
	if (access(LIBC, R_OK) || access(PYTHON, R_OK))
		skip();
	streams_as_whole(LIBC);
	streams_as_whole(PYTHON);
}

/* A sink's error stops the build, which returns it and no table. */
static void test_streamed_stop(void **state)
{
	struct streamed s = { .fail_at = 5000 };
	struct unwind_table *t = NULL;

	(void)state;
	if (access(LIBC, R_OK))
		skip();
	assert_int_equal(stream(LIBC, &s, &t), -ENOSPC);
	assert_null(t);
	assert_true(s.n > 0 && s.n < 5000);
	free(s.out.v);
	free(s.rows);
}

/* A pushed row more than a 32-bit pc from the first is refused. */
static void test_push_span(void **state)
{
	struct unwind_row r = { .pc = 0x1000, .kind = UNWIND_CFA_RSP, .cfa_off = 8 };
	struct unwind_compact c = { 0 };
	struct unwind_crow row;

	(void)state;
	assert_int_equal(unwind_compact__push(&c, &r, &row), 0);
	r.pc += UINT32_MAX;
	r.cfa_off = 16;
	assert_int_equal(unwind_compact__push(&c, &r, &row), 1);
	assert_int_equal(row.pc, 0);
	assert_int_equal(unwind_rule_cfa_off(row.rule), 8);
	r.pc++;
	assert_int_equal(unwind_compact__push(&c, &r, &row), -E2BIG);
	assert_true(unwind_compact__flush(&c, &row));
	assert_int_equal(row.pc, UINT32_MAX);
	assert_false(unwind_compact__flush(&c, &row));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits),	      cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_libc_python),   cmocka_unit_test(test_streamed),
		cmocka_unit_test(test_streamed_stop), cmocka_unit_test(test_push_span),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
