// SPDX-License-Identifier: GPL-2.0
/*
 * The layout of `perf script -F comm,pid,tid,cpu,time,period,event,ip,sym,
 * symoff,dso` with call graphs (perf 6.1), records in time order. Every
 * symbol gets "+0xOFF", made-up names ("libfoo.so+0x1a2b") "+0x0", so that a
 * reader stripping one trailing offset (stackcollapse-perf.pl does) gets the
 * name back. Control bytes, which would break the lines, print as '?'.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/self_times.h"
#include "out_perf.h"

#define NSEC_PER_SEC  UINT64_C(1000000000)
#define NSEC_PER_USEC UINT64_C(1000)

/* s with control bytes, and quote (if not 0), as '?' (fallback when s is
 * empty); blank: what a space becomes ('-' in an event's name, which perf
 * writes as one word, or a space kept). */
static void put_chars(FILE *f, const char *s, const char *fallback, char blank, char quote)
{
	if (!*s)
		s = fallback;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		fputc(*c == ' '						  ? blank
		      : *c < 0x20 || *c == 0x7f || (quote && *c == quote) ? '?'
									  : *c,
		      f);
}

static void put_text(FILE *f, const char *s, const char *fallback)
{
	put_chars(f, s, fallback, ' ', 0);
}

static const struct frame *leaf_of(const struct profile *p, const struct profile_stack *s)
{
	return s->nframes ? profile__frame(p, s->frames[s->nframes - 1]) : NULL;
}

/* A hit's argument a as perf prints a probe's field: " argN=" (N from 1)
 * and the number, signed where it is, or the string in quotes. */
static void put_arg(FILE *f, const struct profile *p, const struct profile_event *e, int a)
{
	const char *str = profile__event_str(p, e, a);

	fprintf(f, "%sarg%d=", a ? " " : "", a + 1);
	if (str) {
		/* a quote inside would end it early for a reader */
		fputc('"', f);
		put_chars(f, str, "", ' ', '"');
		fputc('"', f);
	} else if (e->flags & PROFILE_EVENT_ARG_SIGNED(a)) {
		fprintf(f, "%" PRId64, (int64_t)e->args[a]);
	} else {
		fprintf(f, "%" PRIu64, e->args[a]);
	}
}

/* Whether p's events are traced calls (uprobe mode). */
static bool calls_of(const struct profile *p)
{
	return profile__unit(p) == UNIT_NANOSECONDS && !profile__is_offcpu(p);
}

/* "COMM PID/TID [CPU] SECS.USECS: PERIOD EVENT: " as perf pads it; a
 * traced call's period is self, its self time. */
static void write_header(const struct profile *p, const struct profile_event *e, uint64_t self,
			 FILE *f)
{
	const struct profile_stack *s = profile__stack(p, e->stack);
	const struct frame *leaf = leaf_of(p, s);
	const char *event = profile__meta(p)->event;

	put_text(f, s->who.comm, "[unknown]");
	if (s->who.pid == PROFILE_PID_UNKNOWN) /* as perf prints the TID alone */
		fprintf(f, " %5" PRIu32 " [%03" PRIu32 "] ", s->who.tid, e->cpu);
	else
		fprintf(f, " %5" PRIu32 "/%-5" PRIu32 " [%03" PRIu32 "] ", s->who.pid, s->who.tid,
			e->cpu);
	/* a counted event's period is in events, as perf prints it; an
	 * allocation's its bytes; a call's its self time, so that a graph of
	 * the periods is the folded output's (its callees' time is theirs) */
	fprintf(f, "%5" PRIu64 ".%06" PRIu64 ": %10" PRIu64 " ", e->ts / NSEC_PER_SEC,
		e->ts % NSEC_PER_SEC / NSEC_PER_USEC,
		e->weight		   ? e->weight
		: profile__meta(p)->period ? profile__meta(p)->period
		: calls_of(p)		   ? self
					   : e->dur);
	if (profile__is_offcpu(p)) {
		/* --off-cpu, --wall: perf record --off-cpu's event, or the samples' */
		fputs(profile__stack_is_offcpu(p, s) ? "offcpu-time" : "cpu-clock", f);
	} else if (calls_of(p)) {
		/* one event for every traced call, its function the leaf: readers
		 * keep one event (stackcollapse-perf.pl, render), and a C++
		 * name's spaces would split the header */
		fputs(PERF_CALL_EVENT, f);
	} else if ((e->flags & PROFILE_EVENT_INSTANT) && leaf && leaf->name[0] == '[') {
		/* a probe's hit is its probe's event, as perf names one:
		 * "work:tick" of the leaf "[work:tick]" */
		char probe[256];

		snprintf(probe, sizeof(probe), "%.*s", (int)strcspn(leaf->name + 1, "]"),
			 leaf->name + 1);
		put_chars(f, probe, "[unknown]", '-', 0);
	} else {
		/* "bytes allocated" (--alloc) would read as a period and an event */
		put_chars(f, event, "cpu-clock", '-', 0);
	}
	fputs(": ", f);
	/* a probe's hit (-f usdt:): its arguments, as perf prints an SDT
	 * event's fields after its name (arg1 is flamebpf's arg0) */
	if (e->flags & PROFILE_EVENT_INSTANT)
		for (int a = 0; a < PROFILE_NARGS; a++)
			put_arg(f, p, e, a);
	fputc('\n', f);
}

static void write_frame(const struct frame *fr, FILE *f)
{
	const char *dso = fr->dso[0]		     ? fr->dso
			  : fr->kind == FRAME_KERNEL ? "[kernel.kallsyms]"
						     : "[unknown]";

	fprintf(f, "\t%16" PRIx64 " ", fr->addr);
	if (fr->name[0]) {
		put_text(f, fr->name, "");
		fprintf(f, "+0x%" PRIx64, fr->sym_off);
	} else {
		fputs("[unknown]", f); /* perf prints no offset without a symbol */
	}
	fputs(" (", f);
	put_text(f, dso, "");
	fputs(")\n", f);
}

/* The header, the frames leaf first, and the blank line that ends a record. */
static void write_record(const struct profile *p, const struct profile_event *e, uint64_t self,
			 FILE *f)
{
	const struct profile_stack *s = profile__stack(p, e->stack);

	write_header(p, e, self, f);
	for (uint32_t i = s->nframes; i-- > 0;)
		write_frame(profile__frame(p, s->frames[i]), f);
	fputc('\n', f);
}

/* By time, as perf script orders its records; ties keep the capture order. */
static int cmp_time(const void *a, const void *b, void *arg)
{
	const struct profile *p = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	uint64_t ta = profile__event(p, ia)->ts, tb = profile__event(p, ib)->ts;

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return (ia > ib) - (ia < ib);
}

int perf__write(const struct profile *p, const struct write_opts *o, FILE *f)
{
	size_t n = profile__nr_events(p);
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	uint64_t *self = calls_of(p) ? calloc(n ? n : 1, sizeof(*self)) : NULL;
	int err = !order || (calls_of(p) && !self) ? -ENOMEM : 0;

	(void)o;
	if (!err && self)
		err = profile__self_times(p, self);
	for (size_t i = 0; i < n && !err; i++)
		order[i] = i;
	if (!err)
		qsort_r(order, n, sizeof(*order), cmp_time, (void *)p);
	for (size_t i = 0; i < n && !err; i++) {
		write_record(p, profile__event(p, order[i]), self ? self[order[i]] : 0, f);
		err = ferror(f) ? -EIO : 0;
	}
	if (!err && fflush(f))
		err = -EIO;
	free(self);
	free(order);
	return err;
}
