// SPDX-License-Identifier: GPL-2.0
/* Folded stacks back into a profile: "ROOT;frame;...;leaf COUNT", a line
 * each. The root becomes the stack's process name, kept whole ("bash-123"
 * stays a name: no ids are made up); a frame that ends in "_[k]" is a kernel
 * frame without the suffix, so that writing folded again gives the same line.
 * Counts are whole numbers, taken as samples: nothing in a folded file says
 * its unit. But for one kind: stacks that say a thread's state ([sleeping]
 * at the leaf, under the root, or before a waker's "--", as --off-cpu and
 * --wall write them; see profile__stack_state()) are time in ns, and the
 * file is read as such (time off the CPU, or wall time when some stacks
 * are [running] or have no state: --wall's samples). No profiler names a
 * function so; a file without such stacks stays samples.
 *
 * As flamegraph.pl does: a blank (space or tab) before the count; '#'
 * lines are comments; a line with no count is skipped, counted and the
 * first named. A count that is a number but not a whole one (flamegraph.pl
 * takes "2.5"), or counts adding up past 2^64, fail the file: read as
 * samples they would be wrong, not left out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "in.h"

#define KSUFFIX "_[k]"

#define NOT_A_STACK "not 'ROOT;FRAME;... COUNT'"

struct folded {
	struct in_ctx *c;
	uint32_t *frames;
	size_t n, cap;
	uint64_t total; /* the counts so far, against overflow */
};

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* A number with a fraction ("2.5", "3."): flamegraph.pl's, not ours. */
static bool is_decimal(const char *s)
{
	size_t whole = strspn(s, "0123456789");

	return whole && s[whole] == '.' && (!s[whole + 1] || all_digits(s + whole + 1));
}

static int parse_count(struct folded *fo, const char *s, uint64_t *count)
{
	struct in_ctx *c = fo->c;
	char *end;

	if (is_decimal(s))
		return in__fail(c, c->line, "count '%.40s' is not a whole number", s);
	errno = 0;
	*count = strtoull(s, &end, 10);
	if (errno || fo->total + *count < fo->total)
		return in__fail(c, c->line,
				"count '%.40s' is too large (the counts add up past "
				"2^64)",
				s);
	fo->total += *count;
	return 0;
}

/* The blank before the count: the last space or tab. */
static char *last_blank(char *line)
{
	char *sp = strrchr(line, ' '), *tab = strrchr(line, '\t');

	return sp > tab ? sp : tab;
}

static int push_frame(struct folded *fo, const char *name)
{
	size_t len = strlen(name), klen = strlen(KSUFFIX);
	bool kernel = len >= klen && !strcmp(name + len - klen, KSUFFIX);
	char *copy = NULL;
	int err;

	if (array__reserve((void **)&fo->frames, &fo->cap, fo->n + 1, sizeof(*fo->frames)))
		return -ENOMEM;
	if (kernel && !(copy = strndup(name, len - klen)))
		return -ENOMEM;
	err = profile__findnew_frame(fo->c->p, kernel ? copy : name, kernel ? "[kernel]" : "",
				     kernel ? FRAME_KERNEL : FRAME_USER, &fo->frames[fo->n]);
	fo->n += !err;
	free(copy);
	return err;
}

/* Splits "ROOT;f1;...;leaf" in place and adds it. */
static int add_stack(struct folded *fo, char *stack, uint64_t count)
{
	struct stack_owner who = { .comm = stack, .tcomm = "" };
	char *s = strchr(stack, ';');
	int err = 0;

	fo->n = 0;
	if (s)
		*s++ = '\0';
	while (s && !err) {
		char *next = strchr(s, ';');

		if (next)
			*next++ = '\0';
		err = push_frame(fo, s);
		s = next;
	}
	if (!err)
		err = profile__add_stack(fo->c->p, &who, fo->frames, fo->n, count);
	return err ? in__fail_errno(fo->c, err) : 0;
}

static int read_line(struct folded *fo, char *line)
{
	struct in_ctx *c = fo->c;
	char *sp, *sp2;
	uint64_t count = 0;
	int err;
	size_t len = strlen(line);

	if (line[0] == '#')
		return 0;
	if (len && line[len - 1] == '\r')
		line[len - 1] = '\0';
	sp = last_blank(line);
	if (!sp || sp == line || !(all_digits(sp + 1) || is_decimal(sp + 1)))
		return in__skip_line(c, NOT_A_STACK);
	*sp = '\0';
	err = parse_count(fo, sp + 1, &count);
	if (err)
		return err;
	sp2 = last_blank(line);
	if (sp2 && all_digits(sp2 + 1))
		return in__fail(c, c->line,
				"two counts: a differential folded file (difffolded.pl output) "
				"is not a profile");
	c->st->records++;
	return add_stack(fo, line, count);
}

/* Off-CPU or wall time, in ns, when its stacks say states; the number of
 * blocks and samples behind each count is not known. */
static int find_unit(struct in_ctx *c)
{
	struct profile_meta m = *profile__meta(c->p);
	size_t n = profile__nr_stacks(c->p), states = 0;
	bool wall = false;

	for (size_t i = 0; i < n; i++) {
		const char *state = profile__stack_state(c->p, profile__stack(c->p, i));

		states += state != NULL;
		wall = wall || !state || !strcmp(state, PROFILE_STATE_RUNNING);
	}
	if (!states)
		return 0;
	profile__set_unit(c->p, UNIT_NANOSECONDS);
	for (size_t i = 0; i < n; i++)
		profile__set_weight(c->p, i, profile__stack(c->p, i)->weight, 0);
	m.event = wall ? PROFILE_EVENT_WALL : PROFILE_EVENT_OFFCPU;
	return profile__set_meta(c->p, &m) ? in__fail_errno(c, -ENOMEM) : 0;
}

int in_folded__read(struct in_ctx *c)
{
	struct folded fo = { .c = c };
	ssize_t n = 0;
	int err = 0;

	while (!err && (n = in__getline(c)) >= 0) {
		if (strspn(c->buf, " \t") != (size_t)n)
			err = read_line(&fo, c->buf);
	}
	if (!err && n < -1)
		err = n;
	if (!err && !c->st->records && c->st->skipped)
		err = in__fail(c, c->st->first_skipped, "%s, nor is any other line", NOT_A_STACK);
	if (!err)
		err = find_unit(c);
	free(fo.frames);
	return err;
}
