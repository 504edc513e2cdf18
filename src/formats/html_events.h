/* The events of the HTML report's data (html_data.h): by time, as
 * columns of numbers. */
#ifndef FLAMEBPF_HTML_EVENTS_H
#define FLAMEBPF_HTML_EVENTS_H

#include <stdio.h>

#include "profile/profile.h"

/* Writes ,"events":{...}: the number of events, t0 (the first one's ts, a
 * string: ns can pass 2^53), and the columns stack, dt (ns since the event
 * before), in ns units dur, and for traced calls self (the call's time
 * less its children's). Returns 0 or -ENOMEM. */
int html_events__write(const struct profile *p, FILE *f);

#endif
