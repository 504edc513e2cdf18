// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <string.h>

#include "util/strbuf.h"
#include "perf_events.h"

#define SW(n, c, clk)                                                                              \
	{                                                                                          \
		n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, clk                                      \
	}
#define HW(n, c)                                                                                   \
	{                                                                                          \
		n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, false                                    \
	}

static const struct perf_event_desc events[] = {
	SW("cpu-clock", CPU_CLOCK, true),
	SW("task-clock", TASK_CLOCK, true),
	SW("page-faults", PAGE_FAULTS, false),
	SW("major-faults", PAGE_FAULTS_MAJ, false),
	SW("minor-faults", PAGE_FAULTS_MIN, false),
	SW("context-switches", CONTEXT_SWITCHES, false),
	SW("cpu-migrations", CPU_MIGRATIONS, false),
	SW("alignment-faults", ALIGNMENT_FAULTS, false),
	SW("emulation-faults", EMULATION_FAULTS, false),
	HW("cycles", CPU_CYCLES),
	HW("instructions", INSTRUCTIONS),
	HW("cache-references", CACHE_REFERENCES),
	HW("cache-misses", CACHE_MISSES),
	HW("branch-instructions", BRANCH_INSTRUCTIONS),
	HW("branch-misses", BRANCH_MISSES),
	HW("bus-cycles", BUS_CYCLES),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("ref-cycles", REF_CPU_CYCLES),
};

/* perf's other names for some of them. */
static const struct {
	const char *alias, *name;
} aliases[] = {
	{ "faults", "page-faults" },	       { "cs", "context-switches" },
	{ "migrations", "cpu-migrations" },    { "cpu-cycles", "cycles" },
	{ "branches", "branch-instructions" },
};

const struct perf_event_desc *perf_events__find(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			name = aliases[i].name;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (!strcmp(name, events[i].name))
			return &events[i];
	return NULL;
}

int perf_events__names(uint32_t type, struct strbuf *b)
{
	const char *sep = "";

	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (events[i].type != type)
			continue;
		if (strbuf__addf(b, "%s%s", sep, events[i].name))
			return -ENOMEM;
		sep = ", ";
	}
	return 0;
}
