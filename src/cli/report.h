/* What the command line tells the user on stderr besides errors: progress,
 * and how the command ended. */
#ifndef FLAMEBPF_REPORT_H
#define FLAMEBPF_REPORT_H

#include <stdbool.h>
#include <stdint.h>

/* The one-line status ("\r..."), only when stderr is a terminal. */
void report__progress(double elapsed, uint64_t n, const char *what);
void report__progress_clear(void);

/* The command's wait status, in words. */
void report__command_status(int status, bool stopped_by_us);

#endif
