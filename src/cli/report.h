/* What the command line tells the user on stderr besides errors: progress,
 * and how the command ended. */
#ifndef FLAMEBPF_REPORT_H
#define FLAMEBPF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The one-line status ("\r..."), only when stderr is a terminal. */
void report__progress(double elapsed, uint64_t n, const char *what);
void report__progress_clear(void);

#include "profile/top.h"

/* --top N: what share of the capture the processes kept hold. */
void report__top_share(const struct top_stats *st, bool by_thread, const struct profile *p);

/* --top N: *top, the N processes (threads) of p with the most weight.
 * Returns 0 or -ENOMEM (said). */
int report__keep_top(const struct profile *p, size_t n, bool by_thread, struct profile **top,
		     struct top_stats *st);

/* --top N: replaces *p by its N processes (threads) with the most weight
 * and says what share of it they hold. Returns 0 or -ENOMEM (said). */
int report__top(struct profile **p, size_t n, bool by_thread);

/* The command's wait status, in words. */
void report__command_status(int status, bool stopped_by_us);

#endif
