/* A binary's unwind table as the BPF side keeps it (struct unwind_crow,
 * bpf/unwind.h): 8-byte rows, pcs from the table's first row, less the rows
 * that change nothing the walk can see. Read from a table one row at a time,
 * or made from its rows as they are built (unwind_compact__push), so that
 * the rows go straight into the BPF map's pages. */
#ifndef FLAMEBPF_UNWIND_COMPACT_H
#define FLAMEBPF_UNWIND_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind_table.h"

/* Where a reading of a table's compact rows is. Copied, it reads on from
 * the same row independently. */
struct unwind_compact {
	const struct unwind_row *rows;
	size_t n, i;
	struct unwind_row pending; /* pushed, not given yet: it depends on the next */
	bool started;		   /* a row was pushed: base is set */
	uint64_t base;		   /* the first row's pc: struct unwind_crow.pc is from it */
	struct unwind_crow last;   /* the last row given */
	bool any;		   /* a row was given */
	uint64_t refused;	   /* rows given as UNWIND_CFA_OTHER: their offsets did not fit */
};

/* Starts a reading of t's rows. Returns 0, or -E2BIG when its code spans
 * more than a 32-bit pc (or it has no rows: -ENOENT). */
int unwind_compact__init(struct unwind_compact *c, const struct unwind_table *t);

/* The next compact row into out. Returns false after the last. */
bool unwind_compact__next(struct unwind_compact *c, struct unwind_crow *out);

/* The rows a reading from c would still give. */
size_t unwind_compact__count(struct unwind_compact c);

/* A compaction of rows pushed one by one, from c zeroed: the table's rows
 * in order (struct unwind_sink). Each push may give the compact row of the
 * one before it into out: returns 1 then, 0 when it gives none, or -E2BIG
 * when r is more than a 32-bit pc from the first row. */
int unwind_compact__push(struct unwind_compact *c, const struct unwind_row *r,
			 struct unwind_crow *out);

/* After the last push: the last compact row into out, if any. Returns
 * true when there is one. */
bool unwind_compact__flush(struct unwind_compact *c, struct unwind_crow *out);

/* r as a compact row with its pc from base. Returns false, and gives an
 * UNWIND_CFA_OTHER row, when r's offsets do not fit. */
bool unwind_compact__row(const struct unwind_row *r, uint64_t base, struct unwind_crow *out);

#endif
