// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "profile/profile.h"
#include "util/hashmap.h"
#include "palette.h"

/* "[unknown]", or "MODULE+0xOFF" (a kernel one with its "_[k]"). */
static bool unresolved(const char *s)
{
	const char *off = strstr(s, "+0x");

	if (!strncmp(s, "[unknown]", 9))
		return true;
	if (!off || !off[3])
		return false;
	off += 3 + strspn(off + 3, "0123456789abcdef");
	return !*off || !strcmp(off, "_[k]");
}

/* The states of --off-cpu and --wall, each a colour of its own that no
 * other frame has: running green, asleep blue, on disk purple, preempted
 * pink (waiting for a CPU, the one a busy machine adds), stopped brown. */
static bool state_colour(const char *name, struct palette_rgb *c)
{
	static const struct {
		const char *name;
		struct palette_rgb c;
	} states[] = {
		{ PROFILE_STATE_RUNNING, { 60, 179, 80 } },
		{ PROFILE_STATE_SLEEPING, { 80, 130, 220 } },
		{ PROFILE_STATE_DISK, { 150, 90, 200 } },
		{ PROFILE_STATE_PREEMPTED, { 230, 80, 170 } },
		{ PROFILE_STATE_STOPPED, { 150, 110, 70 } },
		{ PROFILE_STATE_OFF, { 120, 120, 160 } },
	};

	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		if (!strcmp(name, states[i].name)) {
			*c = states[i].c;
			return true;
		}
	}
	return false;
}

struct palette_rgb palette__by_name(const char *name, enum palette_role role)
{
	uint64_t h = hash_bytes(name, strlen(name), 0);
	double a = (h & 0xffff) / 65535.0, b = (h >> 16 & 0xffff) / 65535.0;
	double c = (h >> 32 & 0xffff) / 65535.0;
	unsigned int grey = 175 + 40 * a;
	struct palette_rgb state;

	if (role != PALETTE_KERNEL && state_colour(name, &state))
		return state;
	if (role == PALETTE_ALL || unresolved(name))
		return (struct palette_rgb){ grey, grey, grey + 5 };
	if (role == PALETTE_KERNEL)
		return (struct palette_rgb){ 40 + 60 * a, 175 + 55 * b, 165 + 50 * c };
	return (struct palette_rgb){ 205 + 50 * a, 230 * b, 55 * c };
}

uint32_t palette__rgb24(const char *name, enum palette_role role)
{
	struct palette_rgb c = palette__by_name(name, role);

	return c.r << 16 | c.g << 8 | c.b;
}

#define NEUTRAL	      235 /* grey of an unchanged frame */
#define NEUTRAL_RANGE 200 /* how far a full change moves its other channels */

struct palette_rgb palette__by_change(double change, double full, bool absent)
{
	double s = absent ? 1 : fmin(1, fabs(change) / full);
	unsigned int fade = NEUTRAL - NEUTRAL_RANGE * s, sat = NEUTRAL + (255 - NEUTRAL) * s;

	if (change >= 0)
		return (struct palette_rgb){ sat, fade, fade };
	return (struct palette_rgb){ fade, fade, sat };
}
