/* --continuous: each interval's profile, once drained from the kernel,
 * handed to what takes finished intervals: the files of -o PATTERN here
 * (written whole under their final name, rotated), and a pusher later.
 *
 * The boundary for a pusher (issue 20's --push, spool): a struct
 * interval_taker added with continuous__add_taker gets every interval's
 * profile, complete and described (profile_meta), after the files are
 * written; it must copy what it keeps, as the profile is freed when it
 * returns. */
#ifndef FLAMEBPF_CONTINUOUS_H
#define FLAMEBPF_CONTINUOUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "profile/profile.h"
#include "util/name_pattern.h"
#include "options.h"

struct interval {
	unsigned long n; /* 1 for the first */
	time_t start;	 /* wall clock at its start: the names' time */
	double secs;	 /* its length */
	bool last;	 /* the partial one written at the stop */
};

struct interval_taker {
	const char *name; /* for its errors: "files", "push" */
	/* Returns 0, or -errno when the interval was lost to this taker (it
	 * said why, once, on stderr); the run goes on. */
	int (*take)(void *arg, const struct profile *p, const struct interval *iv);
	void *arg;
};

#define CONTINUOUS_MAX_TAKERS 4

struct continuous {
	const struct options *o;
	struct name_pattern pats[OPTIONS_MAX_FILES];
	size_t npats;
	struct interval_taker takers[CONTINUOUS_MAX_TAKERS];
	size_t ntakers;
	/* intervals: every file written / any lost / nothing sampled, so
	 * nothing handed to the takers */
	unsigned long written, lost, idle;
	int verbosity;
};

/* Prepares the patterns of o's outputs for host, the files as the first
 * taker. Returns 0 or -errno (said). */
int continuous__init(struct continuous *c, const struct options *o, const char *host,
		     int verbosity);

/* Returns 0, or -ENOSPC when there are CONTINUOUS_MAX_TAKERS already. */
int continuous__add_taker(struct continuous *c, const struct interval_taker *t);

/* Hands the finished interval's profile p to every taker, and says on
 * stderr (with -v) what became of it; an interval lost is said always.
 * An interval with nothing sampled is idle, not lost: no file is written
 * for it, no output being able to draw nothing. */
void continuous__finish(struct continuous *c, const struct profile *p, const struct interval *iv);

void continuous__free(struct continuous *c);

#endif
