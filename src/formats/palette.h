/* The colours of flame graph frames, shared by the SVG and the HTML report
 * so that a function looks the same in both: stable per name, user frames
 * warm, kernel frames aqua, frames without a symbol grey, the off-CPU
 * states each a colour of its own. */
#ifndef FLAMEBPF_PALETTE_H
#define FLAMEBPF_PALETTE_H

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

#endif
