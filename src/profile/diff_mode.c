// SPDX-License-Identifier: GPL-2.0
/* What a profile given to `flamebpf diff` measures, and so what its
 * observations are and how they are named: samples, calls, time off the
 * CPU (alone, or beside samples for --wall), which is counted in quanta
 * where its blocks are not known, or bytes allocated, in quanta (see
 * diff.h). */
#include <string.h>

#include "diff.h"

/* A wall-clock sampler at 1 kHz (-F 999, what a CI job records) would see
 * no finer: time off the CPU is not counted finer than this. */
#define QUANTUM_MIN_NS 1000000ULL

/* A memory profile (--alloc), or one read back from a file that says so
 * by its event (the HTML report's, perf script's one-word name). */
static bool is_memory(const struct profile *p)
{
	static const char *const events[] = { "bytes allocated", "bytes live", "bytes-allocated",
					      "bytes-live" };
	const char *ev = profile__meta(p)->event;

	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (!strcmp(ev, events[i]))
			return true;
	return profile__meta(p)->alloc != PROFILE_ALLOC_NONE;
}

enum diff_mode diff__mode(const struct profile *p)
{
	if (is_memory(p))
		return DIFF_MEMORY;
	if (profile__unit(p) == UNIT_SAMPLES)
		return DIFF_SAMPLES;
	if (profile__is_wall(p))
		return DIFF_WALL;
	return profile__is_offcpu(p) ? DIFF_OFFCPU : DIFF_CALLS;
}

const char *diff__mode_name(enum diff_mode m)
{
	switch (m) {
	case DIFF_SAMPLES:
		return "a sampling profile (samples)";
	case DIFF_CALLS:
		return "a uprobe-mode profile (wall time of calls)";
	case DIFF_OFFCPU:
		return "an off-CPU profile (time off the CPU)";
	case DIFF_WALL:
		return "a wall-clock profile (time on and off the CPU)";
	case DIFF_MEMORY:
		return "a memory profile (bytes)";
	}
	return "?";
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* --wall's samples each weigh the period: 1e9 / the frequency when the
 * profile says it, else the largest common divisor of the weights of the
 * stacks without a state (a chrome trace's, cut to microseconds, gives
 * less: the other profile's then counts). 0 when there is none. */
static uint64_t sample_period(const struct profile *p)
{
	uint64_t g = 0;

	if (profile__meta(p)->freq)
		return 1000000000ULL / profile__meta(p)->freq;
	for (size_t i = 0; i < profile__nr_stacks(p); i++) {
		const struct profile_stack *s = profile__stack(p, i);
		const char *state = profile__stack_state(p, s);

		if (s->weight && (!state || !strcmp(state, PROFILE_STATE_RUNNING)))
			g = gcd(g, s->weight);
	}
	return g;
}

uint64_t diff__quantum(const struct profile *base, const struct profile *new)
{
	uint64_t q = QUANTUM_MIN_NS;

	if (diff__mode(base) == DIFF_MEMORY)
		return DIFF_MEMORY_QUANTUM;
	if (diff__mode(base) == DIFF_WALL) {
		q = sample_period(base) > q ? sample_period(base) : q;
		q = sample_period(new) > q ? sample_period(new) : q;
	}
	return q;
}

const char *diff__obs_name(const struct diff_result *r)
{
	if (r->mode == DIFF_SAMPLES)
		return "samples";
	if (r->mode == DIFF_CALLS)
		return "calls";
	if (r->quantum)
		return "quanta";
	return r->mode == DIFF_WALL ? "blocks and samples" : "blocks";
}

static const char *few(const struct diff_result *r)
{
	if (r->mode == DIFF_MEMORY)
		return "little memory";
	if (r->mode == DIFF_SAMPLES)
		return "few samples";
	if (r->mode == DIFF_CALLS)
		return "few calls";
	if (r->quantum)
		return "little time";
	return r->mode == DIFF_WALL ? "few events" : "few blocks";
}

const char *diff__status_name(enum diff_status s, const struct diff_result *r)
{
	switch (s) {
	case DIFF_FEW:
		return few(r);
	case DIFF_NOISE:
		return "noise";
	case DIFF_SHRANK:
		return "shrank";
	case DIFF_GREW:
		return "grew";
	case DIFF_REGRESSION:
		return "REGRESSION";
	}
	return "?";
}
