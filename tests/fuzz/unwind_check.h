/* SPDX-License-Identifier: GPL-2.0 */
/* The contract of a table (unwind_table.h), for the two unwind harnesses. */
#ifndef FLAMEBPF_FUZZ_UNWIND_CHECK_H
#define FLAMEBPF_FUZZ_UNWIND_CHECK_H

#include "symbols/unwind_table.h"
#include "fuzz.h"

/* Rows sorted by pc, the last one UNWIND_NONE, each found by its own pc. */
static inline void unwind_check(const struct unwind_table *t)
{
	const struct unwind_stats *st = unwind_table__stats(t);
	const struct unwind_row *rows;
	size_t n, i;

	rows = unwind_table__rows(t, &n);
	FUZZ_CHECK(st);
	if (!n)
		return;
	FUZZ_CHECK(rows[n - 1].kind == UNWIND_NONE);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(rows[i].kind < UNWIND_KIND_COUNT);
		FUZZ_CHECK(!i || rows[i - 1].pc < rows[i].pc);
		FUZZ_CHECK(unwind_table__find(t, rows[i].pc) == &rows[i]);
	}
	if (rows[0].pc)
		FUZZ_CHECK(!unwind_table__find(t, rows[0].pc - 1));
}

#endif
