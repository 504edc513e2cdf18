/* --top N: a profile cut down to the processes (or threads) that hold the
 * most of it, as flame_prof's "top N processes". */
#ifndef FLAMEBPF_TOP_H
#define FLAMEBPF_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct top_stats {
	size_t kept, of;	/* processes (threads) kept, and in the profile */
	uint64_t weight, total; /* their weight, and the profile's */
};

/* A new profile with the stacks and events of the n processes (threads if
 * by_thread) of src with the most weight; ties go to the lower id. Its meta
 * is src's. Returns 0 or -ENOMEM. */
int profile__top(const struct profile *src, size_t n, bool by_thread, struct profile **out,
		 struct top_stats *st);

#endif
