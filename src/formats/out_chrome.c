// SPDX-License-Identifier: GPL-2.0
/*
 * Chrome Trace Event Format, streamed event by event. Choices a reader may
 * rely on:
 * - ts and dur are microseconds printed exactly from the nanoseconds
 *   ("12.345"), never through a double, so a child never sticks out of its
 *   parent by rounding; samples begin and end on whole microseconds, since
 *   viewers (speedscope) pair a span's end, ts + dur summed in floating
 *   point, with the ends of its children and the starts of its siblings,
 *   which fractions make differ by an ulp;
 * - u64 values (arguments, return values) up to 2^53 are JSON numbers; larger
 *   ones, which a JavaScript reader would round, are strings "0x..." (exact);
 * - kernel frames keep their plain name and have "cat":"kernel"; user frames
 *   have their binary's name as cat;
 * - strings are valid UTF-8: each byte that is not part of a well-formed
 *   sequence becomes U+FFFD;
 * - time off the CPU (--off-cpu, --wall): each block and sample lasts what
 *   the folded output weighs it (to the microsecond), so a span's self time
 *   is its stack's weight;
 * - samples that weigh themselves (a tracepoint's --weight, allocations,
 *   a counted event's samples at -F) sum that in args.weight.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "json_arg.h"
#include "json_u64.h"
#include "out_chrome.h"

#ifndef FLAMEBPF_VERSION
#define FLAMEBPF_VERSION "unknown"
#endif

#define GAP_PERIODS 2 /* more idle periods than this close a thread's frames */

/* A frame of a sampled thread's timeline, open while the samples keep it. */
struct open_frame {
	const struct frame *fr;
	uint64_t start, end, samples; /* samples: the events merged, blocks too */
	uint64_t blocks;	      /* of the events, those that are time off the CPU */
	uint64_t weight; /* what the events weigh themselves (profile_event.weight), if they do */
};

struct chrome {
	const struct profile *p;
	FILE *f;
	size_t *order, n;
	bool first; /* no event written yet: none needs a comma before it */
	/* the owner of the thread, and the best names seen for it */
	const struct stack_owner *who;
	const char *comm, *tcomm;
	struct open_frame *open; /* sampling mode */
	uint32_t depth;
	uint32_t gap_periods; /* a thread idle this many periods starts afresh */
	uint64_t *ends;	      /* uprobe mode: the ends of the thread's enclosing calls */
};

/* Nanoseconds as exact decimal microseconds. */
static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
}

static const char *name_of(const struct frame *fr)
{
	return fr && fr->name[0] ? fr->name : "[unknown]";
}

static const char *cat_of(const struct frame *fr)
{
	if (fr && fr->kind == FRAME_KERNEL)
		return "kernel";
	return fr && fr->module[0] ? fr->module : "user";
}

/* Opens an event object (the comma before it included); the caller closes it. */
static void begin_event(struct chrome *c, const char *ph, const char *name, uint32_t pid,
			uint32_t tid)
{
	fputs(c->first ? "\n" : ",\n", c->f);
	c->first = false;
	fputs("{\"name\":", c->f);
	utf8__put_json_str(c->f, name);
	fprintf(c->f, ",\"ph\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, ph, pid, tid);
}

/* A process id for the viewers, which need one: without a PID (perf script's
 * default fields), each thread is a process of its own. */
static uint32_t pid_of(const struct stack_owner *who)
{
	return who->pid == PROFILE_PID_UNKNOWN ? who->tid : who->pid;
}

static void begin_x(struct chrome *c, const struct frame *fr, uint64_t ts, uint64_t dur)
{
	begin_event(c, "X", name_of(fr), pid_of(c->who), c->who->tid);
	fputs(",\"cat\":", c->f);
	utf8__put_json_str(c->f, cat_of(fr));
	fputs(",\"ts\":", c->f);
	put_us(c->f, ts);
	fputs(",\"dur\":", c->f);
	put_us(c->f, dur);
}

static void write_meta(struct chrome *c, const char *what, uint32_t tid, const char *name)
{
	begin_event(c, "M", what, pid_of(c->who), tid);
	fputs(",\"args\":{\"name\":", c->f);
	utf8__put_json_str(c->f, name[0] ? name : "[unknown]");
	fputs("}}", c->f);
}

static const struct profile_event *ev_at(const struct chrome *c, size_t i)
{
	return profile__event(c->p, c->order[i]);
}

static const struct profile_stack *stack_at(const struct chrome *c, size_t i)
{
	return profile__stack(c->p, ev_at(c, i)->stack);
}

static const struct frame *frame_at(const struct chrome *c, const struct profile_stack *s,
				    uint32_t d)
{
	return profile__frame(c->p, s->frames[d]);
}

/* ---- uprobe mode: one X event per call ---- */

/* --cpu-split: how much of the call's dur was on the CPU, and off it, by
 * state ("sleeping_ns", named after the state frames), those not 0. */
static void write_split(struct chrome *c, const struct profile_split *sp, uint64_t dur)
{
	uint64_t off = 0;

	for (unsigned int s = 0; s < PROFILE_OFF_NR; s++)
		off += sp->off_ns[s];
	fputs(",\"on_cpu_ns\":", c->f);
	json_u64__put(c->f, dur > off ? dur - off : 0);
	fputs(",\"off_cpu_ns\":", c->f);
	json_u64__put(c->f, off);
	for (unsigned int s = 0; s < PROFILE_OFF_NR; s++) {
		const char *name = profile__off_state_name(s); /* "[sleeping]" */

		if (!sp->off_ns[s])
			continue;
		fprintf(c->f, ",\"%.*s_ns\":", (int)strlen(name) - 2, name + 1);
		json_u64__put(c->f, sp->off_ns[s]);
	}
}

/* "args":{"arg0":..., "arg1":..., "arg2":..., left open. */
static void put_args(struct chrome *c, const struct profile_event *e)
{
	fputs(",\"args\":{", c->f);
	for (int i = 0; i < PROFILE_NARGS; i++) {
		fprintf(c->f, "%s\"arg%d\":", i ? "," : "", i);
		json_arg__put(c->f, c->p, e, i, false);
	}
}

static void write_call(struct chrome *c, const struct profile_event *e, uint64_t end)
{
	const struct profile_split *sp = profile__event_split(c->p, e);
	const struct profile_stack *s = profile__stack(c->p, e->stack);

	begin_x(c, s->nframes ? frame_at(c, s, s->nframes - 1) : NULL, e->ts, end - e->ts);
	put_args(c, e);
	if (e->flags & PROFILE_EVENT_UNFINISHED) {
		fputs(",\"unfinished\":true", c->f);
	} else {
		fputs(",\"ret\":", c->f);
		json_u64__put(c->f, e->ret);
	}
	if (sp)
		write_split(c, sp, end - e->ts);
	fputs("}}", c->f);
}

/*
 * The thread's calls [from, to), by start. A call that would outlast the call
 * around it (only when an end was never seen) is cut at that call's end, so
 * that the calls always nest.
 */
static void write_calls(struct chrome *c, size_t from, size_t to)
{
	uint32_t depth = 0;

	for (size_t i = from; i < to; i++) {
		const struct profile_event *e = ev_at(c, i);
		uint64_t end = e->ts + e->dur;

		while (depth && c->ends[depth - 1] <= e->ts)
			depth--;
		if (depth && end > c->ends[depth - 1])
			end = c->ends[depth - 1];
		c->ends[depth++] = end;
		write_call(c, e, end);
	}
}

/* ---- sampling mode: samples merged into nested spans ---- */

/* Parents first: a viewer takes the first of two equal spans as the parent. */
static void close_frames(struct chrome *c, uint32_t keep)
{
	for (uint32_t d = keep; d < c->depth; d++) {
		const struct open_frame *o = &c->open[d];

		begin_x(c, o->fr, o->start, o->end - o->start);
		if (!o->blocks)
			fprintf(c->f, ",\"args\":{\"samples\":%" PRIu64, o->samples);
		else if (o->blocks == o->samples)
			fprintf(c->f, ",\"args\":{\"blocks\":%" PRIu64, o->blocks);
		else
			fprintf(c->f, ",\"args\":{\"samples\":%" PRIu64 ",\"blocks\":%" PRIu64,
				o->samples - o->blocks, o->blocks);
		if (o->weight) {
			fputs(",\"weight\":", c->f);
			json_u64__put(c->f, o->weight);
		}
		fputs("}}", c->f);
	}
	if (c->depth > keep)
		c->depth = keep;
}

static bool same_frame(const struct frame *a, const struct frame *b)
{
	return a->kind == b->kind && !strcmp(a->name, b->name);
}

/* Sample i (or block off the CPU) lasting [ts, end): the open frames it
 * shares stay open. */
static void add_sample(struct chrome *c, size_t i, uint64_t ts, uint64_t end)
{
	const struct profile_stack *s = stack_at(c, i);
	bool block = profile__stack_is_offcpu(c->p, s);

	uint32_t d = 0;

	while (d < c->depth && d < s->nframes && same_frame(c->open[d].fr, frame_at(c, s, d)))
		d++;
	close_frames(c, d);
	for (; d < s->nframes; d++)
		c->open[d] = (struct open_frame){ frame_at(c, s, d), ts, end, 0, 0, 0 };
	c->depth = s->nframes;
	for (d = 0; d < c->depth; d++) {
		c->open[d].end = end;
		c->open[d].samples++;
		c->open[d].blocks += block;
		c->open[d].weight += ev_at(c, i)->weight;
	}
}

/*
 * A sample lasts its period, but never past the next one, so that a frame
 * that ends never overlaps its sibling that starts; a thread idle for more
 * than GAP_PERIODS periods starts again from nothing.
 */
static uint64_t whole_us(uint64_t ns)
{
	return (ns + 500) / 1000 * 1000;
}

static void write_samples(struct chrome *c, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct profile_event *e = ev_at(c, i);
		uint64_t end = whole_us(e->ts + e->dur), ts = whole_us(e->ts);

		if (i + 1 < to && whole_us(ev_at(c, i + 1)->ts) < end)
			end = whole_us(ev_at(c, i + 1)->ts);
		if (end <= ts)
			continue; /* two samples within a microsecond: the later one stands */
		if (i > from) {
			const struct profile_event *prev = ev_at(c, i - 1);

			if (e->ts > prev->ts + prev->dur * (c->gap_periods + 1))
				close_frames(c, 0);
		}
		add_sample(c, i, ts, end);
	}
	close_frames(c, 0);
}

/* Where an event of time off the CPU, or a sample beside them, begins: a
 * block at its start, a sample the period before it was taken, which it
 * stands for. */
static uint64_t natural_start(const struct chrome *c, size_t i)
{
	return whole_us(profile__event_from(c->p, ev_at(c, i)));
}

/*
 * --off-cpu, --wall: the spans weigh their time, so each event lasts its own
 * exactly (to the microsecond), as the folded output weighs it. One that
 * would overlap the event before it (a sample taken less than a period
 * after its thread came back) starts where that one ends, and so does one
 * within gap_periods of its periods after it, so that their frames go on;
 * the drift this makes is the sampling's own error. A longer gap closes
 * every frame.
 */
static void write_timed(struct chrome *c, size_t from, size_t to)
{
	uint64_t cursor = 0, prev_dur = 0;

	for (size_t i = from; i < to; i++) {
		const struct profile_event *e = ev_at(c, i);
		uint64_t dur = whole_us(e->dur), at = natural_start(c, i);
		uint64_t gap = c->gap_periods * (e->dur < prev_dur ? e->dur : prev_dur);

		if (!dur)
			continue;
		if (prev_dur && at <= cursor + gap)
			at = cursor;
		else
			close_frames(c, 0);
		add_sample(c, i, at, at + dur);
		cursor = at + dur;
		prev_dur = e->dur;
	}
	close_frames(c, 0);
}

/* A probe's hits (-f usdt:...): beside the spans their samples make, an
 * instant event each, named by the probe (the leaf) with its arguments. */
static void write_instants(struct chrome *c, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct profile_event *e = ev_at(c, i);
		const struct profile_stack *s = stack_at(c, i);

		if (!(e->flags & PROFILE_EVENT_INSTANT))
			continue;
		begin_event(c, "i", name_of(s->nframes ? frame_at(c, s, s->nframes - 1) : NULL),
			    pid_of(c->who), c->who->tid);
		fputs(",\"s\":\"t\",\"ts\":", c->f);
		put_us(c->f, e->ts);
		put_args(c, e);
		fputs("}}", c->f);
	}
}

/* ---- threads, metadata and the document ---- */

/* The end of the run of events of the thread of event FROM; notes its names. */
static size_t thread_end(struct chrome *c, size_t from)
{
	const struct stack_owner *who = &stack_at(c, from)->who;
	size_t i = from;

	c->who = who;
	c->tcomm = "";
	for (; i < c->n; i++) {
		const struct stack_owner *w = &stack_at(c, i)->who;

		if (w->pid != who->pid || w->tid != who->tid)
			break;
		if (!c->comm[0])
			c->comm = w->comm;
		if (!c->tcomm[0])
			c->tcomm = w->tcomm;
	}
	return i;
}

static int write_threads(struct chrome *c)
{
	bool timed = profile__is_offcpu(c->p);

	/* blocks alone (--off-cpu): the time between two is on the CPU, and no
	 * span's; with samples beside them (--wall) it is theirs */
	c->gap_periods = timed && !profile__is_wall(c->p) ? 0 : GAP_PERIODS;

	c->comm = "";
	for (size_t i = 0, end; i < c->n; i = end) {
		end = thread_end(c, i);
		if (timed || profile__unit(c->p) == UNIT_SAMPLES) {
			(timed ? write_timed : write_samples)(c, i, end);
			write_instants(c, i, end);
		} else {
			write_calls(c, i, end);
		}
		write_meta(c, "thread_name", c->who->tid, c->tcomm);
		if (end == c->n || pid_of(&stack_at(c, end)->who) != pid_of(c->who)) {
			write_meta(c, "process_name", pid_of(c->who), c->comm);
			c->comm = "";
		}
		if (ferror(c->f))
			return -EIO;
	}
	return 0;
}

static void put_field(FILE *f, const char *key, const char *value)
{
	fprintf(f, ",\"%s\":", key);
	utf8__put_json_str(f, value);
}

static void write_other_data(const struct profile *p, FILE *f)
{
	const struct profile_meta *m = profile__meta(p);
	bool sampled = profile__unit(p) == UNIT_SAMPLES;

	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"version\":", f);
	utf8__put_json_str(f, "flamebpf " FLAMEBPF_VERSION);
	put_field(f, "cmdline", m->cmdline);
	put_field(f, "mode", profile__is_offcpu(p) ? "off-cpu" : sampled ? "sample" : "trace");
	if (sampled || profile__is_offcpu(p))
		put_field(f, "event", m->event[0] ? m->event : "cpu-clock");
	/* --wall: its samples are at a frequency too, which readers take the
	 * quantum of a diff from */
	fprintf(f, ",\"frequency\":%u", sampled || profile__is_wall(p) ? m->freq : 0);
	put_field(f, "kernel", m->kernel);
	put_field(f, "host", m->host);
	fprintf(f, ",\"ncpus\":%u,\"duration\":%.6f", m->ncpus, isfinite(m->secs) ? m->secs : 0);
	put_field(f, "losses", m->losses);
	fputs("}}\n", f);
}

static int alloc_state(struct chrome *c)
{
	uint32_t deepest = 0;

	for (size_t i = 0; i < profile__nr_stacks(c->p); i++)
		if (profile__stack(c->p, i)->nframes > deepest)
			deepest = profile__stack(c->p, i)->nframes;
	c->open = malloc((deepest ? deepest : 1) * sizeof(*c->open));
	c->ends = malloc((c->n ? c->n : 1) * sizeof(*c->ends));
	if (!c->open || !c->ends)
		return -ENOMEM;
	return profile__events_in_order(c->p, &c->order);
}

int chrome__write(const struct profile *p, const struct write_opts *o, FILE *f)
{
	struct chrome c = { .p = p, .f = f, .n = profile__nr_events(p), .first = true };
	int err;

	(void)o;
	err = alloc_state(&c);
	if (err)
		goto out_free;
	fputs("{\"traceEvents\":[", f);
	err = write_threads(&c);
	if (err)
		goto out_free;
	write_other_data(p, f);
	err = fflush(f) || ferror(f) ? -EIO : 0;
out_free:
	free(c.ends);
	free(c.open);
	free(c.order);
	return err;
}
