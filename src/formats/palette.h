/* The colours of flame graph frames, shared by the SVG and the HTML report
 * so that a function looks the same in both: stable per name, user frames
 * warm, kernel frames aqua, frames without a symbol grey, the off-CPU
 * states each a colour of its own. */
#ifndef FLAMEBPF_PALETTE_H
#define FLAMEBPF_PALETTE_H

#include <stdbool.h>
#include <stdint.h>

enum palette_role {
	PALETTE_USER,
	PALETTE_KERNEL,
	PALETTE_PROCESS, /* a root: COMM, COMM-PID, COMM-PID/TID */
	PALETTE_ALL,	 /* the frame under every root */
};

struct palette_rgb {
	unsigned int r, g, b;
};

/* The colour of a frame named name (as drawn: kernel names end in "_[k]"). */
struct palette_rgb palette__by_name(const char *name, enum palette_role role);

/* The same as 0xRRGGBB. */
uint32_t palette__rgb24(const char *name, enum palette_role role);

/* Changes in share below this (1 point) never draw fully. */
#define PALETTE_DIFF_FULL_FLOOR 0.01
/* Frames narrower than this share (0.1 px of the SVG's 1180) do not set
 * the scale of the colours. */
#define PALETTE_DIFF_MIN_SHARE (0.1 / 1180)

/* A differential flame graph's frame: red grew, blue shrank, by a change
 * in share (a fraction) against full, the change drawn at full colour; a
 * path new to the profile (absent from the base) full red. */
struct palette_rgb palette__by_change(double change, double full, bool absent);

#endif
