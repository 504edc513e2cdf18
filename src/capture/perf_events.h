/* The perf events a capture can sample on (-e), by the names perf gives
 * them: software events every kernel counts, hardware ones where the
 * machine has a PMU. */
#ifndef FLAMEBPF_PERF_EVENTS_H
#define FLAMEBPF_PERF_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct perf_event_desc {
	const char *name; /* perf's name: "page-faults", "cycles" */
	uint32_t type;	  /* PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE */
	uint64_t config;
	bool clock; /* counts time (cpu-clock, task-clock): sampled at a frequency */
};

/* The event perf calls name (or one of its aliases: "faults", "cs",
 * "migrations", "cpu-cycles", "branches"). Returns NULL when unknown. */
const struct perf_event_desc *perf_events__find(const char *name);

struct strbuf;

/* Appends "cpu-clock, task-clock, page-faults, ..." (the events of the given
 * type), for errors. Returns 0 or -ENOMEM. */
int perf_events__names(uint32_t type, struct strbuf *b);

#endif
