/* What flamebpf tells the user on stderr: errors, progress, the summary. */
#ifndef FLAMEBPF_REPORT_H
#define FLAMEBPF_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "sampler.h"

/* "flamebpf: " + message + newline. */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The one-line status ("\r..."), only when stderr is a terminal. */
void report__progress(double elapsed, uint64_t samples);
void report__progress_clear(void);

/* The end-of-run summary: what was captured and every loss. */
void report__summary(const struct profile *p, const struct sampler_stats *st, double secs,
		     unsigned int freq, bool verbose);

/* The command's wait status, in words. */
void report__command_status(int status, bool stopped_by_us);

#endif
