/* The file names of --continuous: a pattern with strftime fields and
 * "{host}", made into a name for each interval, and the files it named
 * found again to rotate them (the oldest removed past a count or a size). */
#ifndef FLAMEBPF_NAME_PATTERN_H
#define FLAMEBPF_NAME_PATTERN_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define NAME_PATTERN_HOST "{host}"

struct name_pattern {
	char *dir;   /* the directory, {host} replaced: "." when none */
	char *base;  /* the file name's strftime format, {host} replaced */
	size_t ext;  /* where the extension starts in base's tail (see make) */
	size_t tail; /* the length of base's literal tail after its last field */
	regex_t re;  /* every name base makes, with or without a counter */
	bool have_re;
};

/* Whether pattern can name one file per interval: a field of seconds
 * (%S, %s, %T, %r, %c, %X, %+) in the file name, none in the directory.
 * Returns 0, or -EINVAL with a one-line reason in why. */
int name_pattern__check(const char *pattern, char *why, size_t len);

/* Prepares a checked pattern for host (its '/' become '_'). Returns 0,
 * -EINVAL or -ENOMEM. */
int name_pattern__init(struct name_pattern *np, const char *pattern, const char *host);

/* The name for an interval that began at t (local time), into buf: when a
 * file of that name exists (two intervals in one second, after SIGHUP), a
 * counter goes before the extension: x-20260101-120000-2.pb.gz. Returns 0
 * or -ENAMETOOLONG. */
int name_pattern__make(const struct name_pattern *np, time_t t, char *buf, size_t len);

/* What a rotation removed, and the first error. */
struct rotation {
	size_t removed;
	uint64_t bytes;
	int err; /* -errno */
};

/* Removes the oldest (by modification time) files np names beyond the
 * newest keep (0: no bound) or beyond keep_size bytes in all (0: no
 * bound); the newest file is always kept. Only regular files whose whole
 * name the pattern matches are counted or removed. */
void name_pattern__rotate(const struct name_pattern *np, size_t keep, uint64_t keep_size,
			  struct rotation *r);

void name_pattern__free(struct name_pattern *np);

#endif
