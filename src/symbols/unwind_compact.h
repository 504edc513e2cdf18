/* A binary's unwind table as the BPF side keeps it (struct unwind_crow,
 * bpf/unwind.h): 8-byte rows, pcs from the table's first row, less the rows
 * that change nothing the walk can see. Made from a table's rows as they
 * are built (unwind_compact__push), so that the rows go straight into the
 * BPF map's pages. */
#ifndef FLAMEBPF_UNWIND_COMPACT_H
#define FLAMEBPF_UNWIND_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind_table.h"

/* Where a compaction of a table's rows is. */
struct unwind_compact {
	struct unwind_row pending; /* pushed, not given yet: it depends on the next */
	bool started;		   /* a row was pushed: base is set */
	uint64_t base;		   /* the first row's pc: struct unwind_crow.pc is from it */
	struct unwind_crow last;   /* the last row given */
	bool any;		   /* a row was given */
	uint64_t refused;	   /* rows given as UNWIND_CFA_OTHER: their offsets did not fit */
};

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
