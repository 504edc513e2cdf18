// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "probe_args.h"

_Static_assert(PROBE_ARG_CONST == USDT_ARG_CONST && PROBE_ARG_REG == USDT_ARG_REG &&
		       PROBE_ARG_MEM == USDT_ARG_MEM && PROBE_REG_NONE == USDT_REG_NONE &&
		       PROBE_REG_COUNT == USDT_REG_RSP + 1,
	       "probe_arg.h's argument kinds and registers are usdt_args.h's");

void probe_args__from(const struct usdt_arg *u, struct usdt_loc *out)
{
	*out = (struct usdt_loc){ .kind = u->kind,
				  .reg = u->reg,
				  .size = u->size,
				  .is_signed = u->is_signed,
				  .shift = u->shift,
				  .val = u->val };
}

void probe_args__of(const char *spec, struct probe_args *out)
{
	struct usdt_arg args[USDT_MAX_ARGS];
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (usdt_args__parse(spec, args, &n))
		return;
	for (size_t i = 0; i < n && i < PROBE_HIT_NARGS; i++)
		probe_args__from(&args[i], &out->a[out->n++]);
}
