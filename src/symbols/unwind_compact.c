// SPDX-License-Identifier: GPL-2.0
#include <errno.h>

#include "unwind_compact.h"

/* The padding a compiler puts between functions (-O2 aligns them to 16). */
#define UNWIND_PAD 16

bool unwind_compact__row(const struct unwind_row *r, uint64_t base, struct unwind_crow *out)
{
	bool fits = r->cfa_off >= -UNWIND_CFA_OFF_MAX && r->cfa_off <= UNWIND_CFA_OFF_MAX &&
		    !(r->rbp_off & 7) && r->rbp_off >= -UNWIND_RBP_OFF_MAX &&
		    r->rbp_off <= UNWIND_RBP_OFF_MAX;

	out->pc = (uint32_t)(r->pc - base);
	out->rule = fits ? unwind_rule_pack(r->cfa_off, r->rbp_off, r->kind, r->rbp)
			 : unwind_rule_pack(0, 0, UNWIND_CFA_OTHER, UNWIND_RBP_SAME);
	return fits;
}

/* Gives r, followed by next (NULL: r is the last), unless it is left out:
 * the "no FDE" row of the padding before the next function (never run; a
 * return address is looked up one byte back, in its caller), and a row
 * with the rules of the one before, which that leaves. */
static bool give(struct unwind_compact *c, const struct unwind_row *r,
		 const struct unwind_row *next, struct unwind_crow *out)
{
	if (r->kind == UNWIND_NONE && next && next->pc - r->pc < UNWIND_PAD)
		return false;
	c->refused += !unwind_compact__row(r, c->base, out);
	if (c->any && out->rule == c->last.rule)
		return false;
	c->last = *out;
	c->any = true;
	return true;
}

int unwind_compact__push(struct unwind_compact *c, const struct unwind_row *r,
			 struct unwind_crow *out)
{
	bool given = false;

	if (!c->started) {
		c->base = r->pc;
		c->started = true;
	} else {
		if (r->pc - c->base > UINT32_MAX)
			return -E2BIG;
		given = give(c, &c->pending, r, out);
	}
	c->pending = *r;
	return given;
}

bool unwind_compact__flush(struct unwind_compact *c, struct unwind_crow *out)
{
	bool given = c->started && give(c, &c->pending, NULL, out);

	c->started = false;
	return given;
}
