/* A traced call's self time from the events of a capture: its time less
 * its traced callees'. */
#ifndef FLAMEBPF_SELF_TIMES_H
#define FLAMEBPF_SELF_TIMES_H

#include <stdint.h>

#include "profile.h"

/* Each event's (a call's) self time into self[i] (profile__nr_events()
 * entries): its time less its children's, the calls of a thread nesting
 * by time (a parent before its children); a child that outlasts its parent
 * (no end was seen) counts up to the parent's end. Returns 0 or -ENOMEM. */
int profile__self_times(const struct profile *p, uint64_t *self);

#endif
