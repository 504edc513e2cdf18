// SPDX-License-Identifier: GPL-2.0
/* src/symbols/unwind_table.c from a file: the input as an ELF file whose .eh_frame,
 * .debug_frame (maybe compressed) or PT_GNU_EH_FRAME gives the table. Built
 * again with its rows streamed to a sink (unwind_table__build_to), the same
 * rows must come, in order, with the same result. */
#include <string.h>

#include "fuzz.h"

#include "unwind_check.h"

/* The whole table's rows, which the streamed ones must match (none when
 * its build failed). */
struct expect {
	const struct unwind_row *rows;
	size_t n, at;
};

static int expect_rows(void *ctx, const struct unwind_row *rows, size_t n)
{
	struct expect *e = ctx;

	if (!e->rows)
		return 0; /* a build that fails may give rows before it does */
	FUZZ_CHECK(n && n <= e->n - e->at);
	FUZZ_CHECK(!memcmp(rows, e->rows + e->at, n * sizeof(*rows)));
	e->at += n;
	return 0;
}

static void check_streamed(int fd, int err, const struct unwind_table *whole)
{
	struct expect e = { 0 };
	struct unwind_sink sink = { expect_rows, &e };
	struct unwind_table *t = (void *)1;
	size_t n;

	if (whole)
		e.rows = unwind_table__rows(whole, &e.n);
	FUZZ_CHECK(unwind_table__build_to(fd, &sink, &t) == err);
	if (!t)
		return;
	FUZZ_CHECK(e.at == e.n);
	unwind_table__rows(t, &n);
	FUZZ_CHECK(!n);
	FUZZ_CHECK(!memcmp(unwind_table__stats(t)->nrows, unwind_table__stats(whole)->nrows,
			   sizeof(unwind_table__stats(t)->nrows)));
	unwind_table__free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_table *t = (void *)1;
	uint64_t bias;
	int fd = fuzz_memfd(data, size);
	int err = unwind_table__build(fd, &t);

	FUZZ_CHECK(err <= 0 && (err ? !t : !!t));
	check_streamed(fd, err, t);
	if (!t)
		return 0;
	unwind_check(t);
	/* a maps line of a mapping at 0x7f0000000000 of each offset the
	 * input suggests */
	for (size_t i = 0; i + 8 <= size && i < 64; i += 8)
		unwind_table__bias(t, 0x7f0000000000, 0x7f0000100000, fuzz_u64(data + i, 8), &bias);
	unwind_table__drop_rows(t);
	unwind_check(t);
	unwind_table__free(t);
	return 0;
}
