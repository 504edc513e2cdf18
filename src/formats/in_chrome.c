// SPDX-License-Identifier: GPL-2.0
/* A chrome trace (Trace Event Format) back into a profile: the JSON object
 * {"traceEvents":[...]} or a bare array of events. Complete events ("X")
 * and begin/end pairs ("B"/"E") of each thread nest by time into call paths
 * whose weight is their self time in ns; "M" events name processes and
 * threads; otherData fills the profile's metadata (cmdline, event, kernel,
 * losses, frequency or freq, ncpus, duration or secs, as flamebpf writes). Other
 * phases (instant, counter, async, flow) carry no call and are counted.
 * A call whose args split its time on and off the CPU (--cpu-split) has
 * its self time split into state leaves, as the capture wrote them.
 * Events are parsed one at a time (src/formats/in_json.c); what is kept of each is
 * a small struct until they are nested, thread by thread, at the end.
 *
 * Samples ("mode":"sample", as --sample writes it) and time off the CPU
 * ("mode":"off-cpu", as --off-cpu and --wall write it; without a mode,
 * spans named as states, [sleeping], [running] and the like): spans are
 * not calls but stretches of whole stacks: a span's args.samples (1
 * without it) counts the blocks and samples under it, those of its
 * children included. What is left once theirs are taken out ended in it:
 * its path's count (and, of samples, its weight: the profile is in
 * samples, as the capture's folded output is) and, kept as events, one
 * whole stack each, sharing its self time, spread over the span. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "in.h"
#include "json_u64.h"

#define KSUFFIX "_[k]"
/* Off the CPU, the events one span's blocks and samples make: flamebpf
 * writes no two within a microsecond, and a hostile args.samples must not
 * make billions (its count still says them all). */
#define SEEN_EVENTS_MAX (1U << 20)

struct call {
	uint32_t pid, tid, flags;
	uint32_t samples; /* args.samples: the blocks and samples a span holds; 0 none */
	uint64_t weight;  /* args.weight: what its samples weigh themselves; 0: 1 each */
	bool kernel;
	uint64_t ts, dur;
	size_t order;		   /* in the file, to keep sorting stable */
	const char *name, *module; /* interned */
	uint64_t args[PROFILE_NARGS], ret;
	bool split;		  /* args.on_cpu_ns was there: */
	struct profile_split off; /* its time off the CPU, its callees' included */
};

/* A thread's calls still open during the sweep, or its B events before E. */
struct open_call {
	size_t call;
	uint64_t end, child;		    /* end time, time in children */
	uint64_t child_off[PROFILE_OFF_NR]; /* ... of it off the CPU, by state */
	uint64_t child_seen;		    /* off the CPU: blocks and samples in children */
	uint64_t child_weight;		    /* samples: their weight in children */
};

struct thread {
	uint32_t pid, tid;
	uint64_t last_ts;
	size_t *open; /* B events waiting for their E */
	size_t nopen, cap;
};

struct chrome {
	struct in_ctx *c;
	struct hashmap pnames, tnames; /* pid, pid<<32|tid -> interned name */
	struct hashmap thread_idx;     /* pid<<32|tid -> index in threads */
	struct thread *threads;
	size_t nthreads;
	struct call *calls;
	size_t ncalls, cap;
	struct open_call *open; /* the sweep's stack */
	uint32_t *path;
	size_t depth, open_cap;
	/* otherData's mode, when it gives one; spans named as states */
	bool mode_given, mode_offcpu, mode_sample, states, running;
	bool offcpu;	    /* time off the CPU: see the top */
	bool sampled;	    /* spans of samples, weighed in samples */
	uint64_t seen_made; /* events add_seen made, against SEEN_EVENTS_MAX */
};

/* ---- fields ---- */

static bool get_number(json_object *ev, const char *key, double *v)
{
	json_object *o;

	if (!json_object_object_get_ex(ev, key, &o) ||
	    (!json_object_is_type(o, json_type_double) && !json_object_is_type(o, json_type_int)))
		return false;
	*v = json_object_get_double(o);
	return isfinite(*v);
}

static const char *get_string(json_object *ev, const char *key)
{
	json_object *o;

	if (!json_object_object_get_ex(ev, key, &o) || !json_object_is_type(o, json_type_string))
		return NULL;
	return json_object_get_string(o);
}

static int bad_field(struct chrome *ch, size_t i, const char *key, const char *want)
{
	return in__fail(ch->c, ch->c->line, "traceEvents[%zu]: \"%s\" is not %s", i, key, want);
}

/* A time in microseconds, as ns; dur too when asked. */
static int get_time(struct chrome *ch, json_object *ev, size_t i, const char *key, uint64_t *ns)
{
	double v;

	if (!get_number(ev, key, &v) || v < 0 || v > 9e15)
		return bad_field(ch, i, key, "a time in microseconds (a number, 0 or more)");
	*ns = (uint64_t)(v * 1000.0 + 0.5);
	return 0;
}

/* Ids wrap to 32 bits as other tools' do; a number past 64 bits is no id
 * (and its conversion to an integer would be undefined). */
static bool get_id(json_object *ev, const char *key, double *v)
{
	return get_number(ev, key, v) && *v >= -0x1p63 && *v < 0x1p63;
}

static int get_ids(struct chrome *ch, json_object *ev, size_t i, uint32_t *pid, uint32_t *tid)
{
	double p = 0, t = 0;
	json_object *o;

	if (json_object_object_get_ex(ev, "pid", &o) && !get_id(ev, "pid", &p))
		return bad_field(ch, i, "pid", "a number that fits 64 bits");
	if (json_object_object_get_ex(ev, "tid", &o) && !get_id(ev, "tid", &t))
		return bad_field(ch, i, "tid", "a number that fits 64 bits");
	*pid = (uint32_t)(int64_t)p;
	*tid = (uint32_t)(int64_t)t;
	return 0;
}

static uint64_t thread_key(uint32_t pid, uint32_t tid)
{
	return (uint64_t)pid << 32 | tid;
}

/* ---- metadata: names and otherData ---- */

static int name_of(struct chrome *ch, json_object *ev, uint32_t pid, uint32_t tid)
{
	const char *what = get_string(ev, "name"), *name;
	json_object *args;

	if (!what || !json_object_object_get_ex(ev, "args", &args) ||
	    !(name = get_string(args, "name")))
		return 0;
	if (!strcmp(what, "process_name") || !strcmp(what, "thread_name")) {
		const char *s = profile__intern(ch->c->p, name);
		bool proc = what[0] == 'p';

		if (!s)
			return -ENOMEM;
		return hashmap__set(proc ? &ch->pnames : &ch->tnames,
				    proc ? pid : thread_key(pid, tid), (uintptr_t)s);
	}
	return 0;
}

static int other_data(void *arg, json_object *od)
{
	struct chrome *ch = arg;
	struct profile_meta m = { 0 };
	const char *mode;
	double v;

	if (!json_object_is_type(od, json_type_object))
		return 0;
	mode = get_string(od, "mode");
	ch->mode_given = mode != NULL;
	ch->mode_offcpu = mode && !strcmp(mode, "off-cpu");
	ch->mode_sample = mode && !strcmp(mode, "sample");
	m.cmdline = get_string(od, "cmdline");
	m.event = get_string(od, "event");
	m.kernel = get_string(od, "kernel");
	m.host = get_string(od, "host");
	m.losses = get_string(od, "losses");
	if ((get_number(od, "frequency", &v) || get_number(od, "freq", &v)) && v > 0 && v < 1e9)
		m.freq = v;
	m.ncpus = get_number(od, "ncpus", &v) && v > 0 && v < 1e9 ? v : 0;
	if ((get_number(od, "duration", &v) || get_number(od, "secs", &v)) && v > 0)
		m.secs = v;
	return profile__set_meta(ch->c->p, &m) ? in__fail_errno(ch->c, -ENOMEM) : 0;
}

/* ---- calls ---- */

static int thread_of(struct chrome *ch, uint32_t pid, uint32_t tid, struct thread **t)
{
	uint64_t idx;

	if (!hashmap__get(&ch->thread_idx, thread_key(pid, tid), &idx)) {
		struct thread *grown =
			realloc(ch->threads, (ch->nthreads + 1) * sizeof(*ch->threads));

		if (!grown)
			return -ENOMEM;
		ch->threads = grown;
		idx = ch->nthreads++;
		ch->threads[idx] = (struct thread){ .pid = pid, .tid = tid };
		if (hashmap__set(&ch->thread_idx, thread_key(pid, tid), idx))
			return -ENOMEM;
	}
	*t = &ch->threads[idx];
	return 0;
}

static int push_call(struct chrome *ch, const struct call *call)
{
	if (array__reserve((void **)&ch->calls, &ch->cap, ch->ncalls + 1, sizeof(*call)))
		return -ENOMEM;
	ch->calls[ch->ncalls] = *call;
	ch->calls[ch->ncalls].order = ch->ncalls;
	ch->ncalls++;
	return 0;
}

/* Other writers may put a negative number where flamebpf writes its
 * two's complement. */
static uint64_t arg_value(json_object *o)
{
	uint64_t v;

	return json_u64__get(o, &v) ? (uint64_t)json_object_get_int64(o) : v;
}

/* A count in args, 0 when absent, at most UINT32_MAX. */
static uint64_t arg_count(json_object *args, const char *key)
{
	json_object *o;
	int64_t v;

	if (!json_object_object_get_ex(args, key, &o) || !json_object_is_type(o, json_type_int))
		return 0;
	v = json_object_get_int64(o);
	return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint64_t)v;
}

static void get_args(json_object *ev, struct call *call)
{
	static const char *const keys[] = { "arg0", "arg1", "arg2" };
	json_object *args, *o;
	uint64_t n;

	if (!json_object_object_get_ex(ev, "args", &args) ||
	    !json_object_is_type(args, json_type_object))
		return;
	for (size_t i = 0; i < PROFILE_NARGS; i++)
		if (json_object_object_get_ex(args, keys[i], &o))
			call->args[i] = arg_value(o);
	/* a span of time off the CPU counts the blocks (and, with --wall, the
	 * samples) it merges */
	n = arg_count(args, "samples") + arg_count(args, "blocks");
	call->samples = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	if (json_object_object_get_ex(args, "weight", &o))
		call->weight = arg_value(o);
	if (json_object_object_get_ex(args, "ret", &o))
		call->ret = arg_value(o);
	call->split = json_object_object_get_ex(args, "on_cpu_ns", NULL);
	for (unsigned int s = 0; call->split && s < PROFILE_OFF_NR; s++) {
		const char *state = profile__off_state_name(s); /* "[sleeping]" */
		char key[32];

		snprintf(key, sizeof(key), "%.*s_ns", (int)strlen(state) - 2, state + 1);
		if (json_object_object_get_ex(args, key, &o))
			call->off.off_ns[s] = arg_value(o);
	}
}

/* The frame's name; "_[k]" or a "kernel" category makes a kernel frame,
 * another category is taken for the module (flamebpf writes it so). */
static int name_call(struct chrome *ch, json_object *ev, struct call *call)
{
	const char *name = get_string(ev, "name"), *cat = get_string(ev, "cat");
	size_t len = name ? strlen(name) : 0, kl = strlen(KSUFFIX);
	char *copy;

	call->kernel =
		(cat && !strcmp(cat, "kernel")) || (len > kl && !strcmp(name + len - kl, KSUFFIX));
	if (!name || !*name)
		name = "[unknown]";
	else if (len > kl && !strcmp(name + len - kl, KSUFFIX))
		len -= kl;
	copy = strndup(name, len ? len : strlen(name));
	call->name = copy ? profile__intern(ch->c->p, copy) : NULL;
	call->module = profile__intern(ch->c->p, call->kernel ? "[kernel]" : cat ? cat : "");
	free(copy);
	if (call->name && !call->kernel) {
		ch->running = ch->running || !strcmp(call->name, PROFILE_STATE_RUNNING);
		ch->states = ch->states || ch->running || profile__is_offcpu_state(call->name);
	}
	return call->name && call->module ? 0 : -ENOMEM;
}

static int begin(struct chrome *ch, struct thread *t, const struct call *call)
{
	if (array__push((void **)&t->open, &t->nopen, &t->cap, &ch->ncalls, sizeof(*t->open)))
		return -ENOMEM;
	return push_call(ch, call);
}

static void end_call(struct chrome *ch, struct thread *t, uint64_t ts)
{
	struct call *b;

	if (!t->nopen) {
		ch->c->st->unmatched++;
		return;
	}
	b = &ch->calls[t->open[--t->nopen]];
	b->dur = ts > b->ts ? ts - b->ts : 0;
}

static int add_call(struct chrome *ch, json_object *ev, size_t i, char ph)
{
	struct call call = { 0 };
	struct thread *t;
	int err = get_ids(ch, ev, i, &call.pid, &call.tid);

	if (!err)
		err = get_time(ch, ev, i, "ts", &call.ts);
	if (!err && ph == 'X')
		err = get_time(ch, ev, i, "dur", &call.dur);
	if (err)
		return err;
	if (thread_of(ch, call.pid, call.tid, &t) || (ph != 'E' && name_call(ch, ev, &call)))
		return -ENOMEM;
	if (call.ts + call.dur > t->last_ts)
		t->last_ts = call.ts + call.dur;
	if (ph != 'E')
		get_args(ev, &call);
	if (ph == 'E')
		end_call(ch, t, call.ts);
	return ph == 'X' ? push_call(ch, &call) : ph == 'B' ? begin(ch, t, &call) : 0;
}

static int event(void *arg, json_object *ev, size_t i)
{
	struct chrome *ch = arg;
	const char *ph = get_string(ev, "ph");
	uint32_t pid, tid;
	int err;

	if (!json_object_is_type(ev, json_type_object))
		return in__fail(ch->c, ch->c->line, "traceEvents[%zu] is not an object", i);
	if (!ph)
		return bad_field(ch, i, "ph", "a string (the event's phase)");
	ch->c->st->records++;
	if (ph[0] == 'M' && !ph[1]) {
		err = get_ids(ch, ev, i, &pid, &tid);
		return err ? err : name_of(ch, ev, pid, tid) ? in__fail_errno(ch->c, -ENOMEM) : 0;
	}
	if (ph[0] && !ph[1] && strchr("XBE", ph[0])) {
		err = add_call(ch, ev, i, ph[0]);
		return err == -ENOMEM ? in__fail_errno(ch->c, err) : err;
	}
	ch->c->st->ignored++;
	return 0;
}

/* Unfinished B events end where their thread was last seen. */
static void close_open(struct chrome *ch)
{
	for (size_t i = 0; i < ch->nthreads; i++) {
		struct thread *t = &ch->threads[i];

		while (t->nopen) {
			ch->calls[t->open[t->nopen - 1]].flags |= PROFILE_EVENT_UNFINISHED;
			end_call(ch, t, t->last_ts);
		}
	}
}

/* ---- nesting ---- */

static int cmp_call(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1; /* a parent before a child that starts with it */
	return (x->order > y->order) - (x->order < y->order);
}

static struct stack_owner owner(const struct chrome *ch, const struct call *call)
{
	bool ids = ch->c->o->keep_ids;
	struct stack_owner who = { ids ? call->pid : 0, ids ? call->tid : 0, "", "" };
	uint64_t s;

	if (hashmap__get(&ch->tnames, thread_key(call->pid, call->tid), &s))
		who.tcomm = (const char *)(uintptr_t)s;
	if (hashmap__get(&ch->pnames, call->pid, &s))
		who.comm = (const char *)(uintptr_t)s;
	else
		who.comm = who.tcomm;
	return who;
}

/* The path of the call that just closed (ch->depth + 1 frames) with a state
 * frame after it, in the slot open_call() keeps spare. */
static int add_in_state(struct chrome *ch, const struct stack_owner *who, const char *state,
			uint64_t ns, uint64_t calls)
{
	int err = profile__findnew_frame(ch->c->p, state, "", FRAME_USER, &ch->path[ch->depth + 1]);

	return err ? err
		   : profile__add_stack_count(ch->c->p, who, ch->path, ch->depth + 2, ns, calls);
}

/* A split call's self time: off the CPU in each state, its own (its time
 * less its callees'), and the rest [running], which takes the call. */
static int add_split(struct chrome *ch, const struct open_call *top, const struct stack_owner *who,
		     uint64_t self)
{
	const struct call *call = &ch->calls[top->call];
	uint64_t off = 0;
	int err = 0;

	for (unsigned int s = 0; s < PROFILE_OFF_NR && !err; s++) {
		uint64_t own = call->off.off_ns[s] > top->child_off[s]
				       ? call->off.off_ns[s] - top->child_off[s]
				       : 0;

		off += own;
		if (ch->depth)
			ch->open[ch->depth - 1].child_off[s] += call->off.off_ns[s];
		if (own)
			err = add_in_state(ch, who, profile__off_state_name(s), own, 0);
	}
	return err ? err
		   : add_in_state(ch, who, PROFILE_STATE_RUNNING, self > off ? self - off : 0, 1);
}

/* Off the CPU: n whole stacks (blocks or samples) sharing self time. */
/* Share i of n of v. */
static uint64_t share(uint64_t v, uint64_t i, uint64_t n)
{
	return (uint64_t)((unsigned __int128)v * (i + 1) / n - (unsigned __int128)v * i / n);
}

/* n whole stacks sharing self time, and own (what samples that weigh
 * themselves weigh; 0 for others), spread over the span. */
static int add_seen(struct chrome *ch, const struct call *call, uint64_t dur, uint64_t self,
		    uint64_t own, uint64_t n)
{
	struct profile_event ev = { .stack = profile__last_stack(ch->c->p) };
	int err = 0;

	if (n > dur / 1000)
		n = dur / 1000 ? dur / 1000 : 1;
	/* the cap is the file's, not the call's: past it, one event a call */
	if (n > SEEN_EVENTS_MAX - ch->seen_made)
		n = ch->seen_made < SEEN_EVENTS_MAX ? SEEN_EVENTS_MAX - ch->seen_made : 1;
	ch->seen_made += n;
	for (uint64_t i = 0; i < n && !err; i++) {
		ev.ts = call->ts + (uint64_t)((unsigned __int128)dur * i / n);
		ev.dur = share(self, i, n);
		ev.weight = share(own, i, n);
		err = profile__add_stack_event(ch->c->p, &ev);
	}
	return err;
}

/* Off the CPU: the blocks and samples that ended in the span. */
static uint64_t seen_in(struct chrome *ch, const struct open_call *top)
{
	uint64_t all = ch->calls[top->call].samples ? ch->calls[top->call].samples : 1;

	if (ch->depth)
		ch->open[ch->depth - 1].child_seen += all;
	return all > top->child_seen ? all - top->child_seen : 0;
}

/* Samples: the weight that ended in the span, what its samples weigh
 * themselves (args.weight: a tracepoint's --weight, allocations) or one
 * each. */
static uint64_t weight_in(struct chrome *ch, const struct open_call *top)
{
	const struct call *call = &ch->calls[top->call];
	uint64_t all = call->weight ? call->weight : call->samples ? call->samples : 1;

	if (ch->depth)
		ch->open[ch->depth - 1].child_weight += all;
	return all > top->child_weight ? all - top->child_weight : 0;
}

/* The innermost open call ends: its self time goes to its path, with one
 * call more; off the CPU, the blocks and samples that ended in it. */
static int close_top(struct chrome *ch)
{
	struct open_call top = ch->open[ch->depth - 1];
	const struct call *call = &ch->calls[top.call];
	struct stack_owner who = owner(ch, call);
	uint64_t dur = top.end - call->ts, n = 1;
	uint64_t self = dur > top.child ? dur - top.child : 0, weight = self;
	int err;

	ch->depth--;
	if (ch->depth)
		ch->open[ch->depth - 1].child += dur;
	if (call->split)
		return add_split(ch, &top, &who, self);
	if (ch->offcpu || ch->sampled)
		n = seen_in(ch, &top);
	if (ch->sampled)
		weight = weight_in(ch, &top);
	/* one call more on its path; off the CPU, the blocks and samples
	 * that ended in it; of samples, what they weigh */
	err = profile__add_stack_count(ch->c->p, &who, ch->path, ch->depth + 1, weight, n);
	if (!err && (ch->offcpu || ch->sampled) && n && ch->c->o->keep_events)
		err = add_seen(ch, call, dur, self, call->weight ? weight : 0, n);
	return err;
}

static int grow_open(struct chrome *ch)
{
	size_t cap = ch->open_cap ? ch->open_cap * 2 : 64;
	struct open_call *o = realloc(ch->open, cap * sizeof(*o));
	uint32_t *p;

	if (!o)
		return -ENOMEM;
	ch->open = o;
	p = realloc(ch->path, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	ch->path = p;
	ch->open_cap = cap;
	return 0;
}

static int add_event(struct chrome *ch, const struct call *call, uint64_t end)
{
	struct profile_event ev = { .flags = call->flags, .ts = call->ts, .dur = end - call->ts };
	struct stack_owner who = owner(ch, call);
	int err = profile__add_stack(ch->c->p, &who, ch->path, ch->depth, 0);

	memcpy(ev.args, call->args, sizeof(ev.args));
	ev.ret = call->ret;
	if (!err && call->split)
		return profile__add_split_event(ch->c->p, &who, ch->path, ch->depth, &ev,
						&call->off);
	ev.stack = profile__last_stack(ch->c->p);
	return err ? err : profile__add_stack_event(ch->c->p, &ev);
}

static int open_call(struct chrome *ch, size_t i)
{
	const struct call *call = &ch->calls[i];
	uint64_t end = call->ts + call->dur;
	int err = 0;

	if (ch->depth && end > ch->open[ch->depth - 1].end) {
		end = ch->open[ch->depth - 1].end; /* overlaps its parent's end: clipped */
		ch->c->st->unmatched++;
	}
	/* a slot spare in path: a split call's state frame after it */
	if (ch->depth + 1 >= ch->open_cap && (err = grow_open(ch)))
		return err;
	err = profile__findnew_frame(ch->c->p, call->name, call->module,
				     call->kernel ? FRAME_KERNEL : FRAME_USER,
				     &ch->path[ch->depth]);
	ch->open[ch->depth++] = (struct open_call){ i, end, 0, { 0 }, 0 };
	if (!err && ch->c->o->keep_events && !ch->offcpu && !ch->sampled)
		err = add_event(ch, call, end);
	return err;
}

/* Samples by otherData's mode, weighed in samples. Off-CPU: by its
 * mode, or without one by spans named as states; named then as a capture
 * names it, unless otherData did. */
static int find_mode(struct chrome *ch)
{
	struct profile_meta m = *profile__meta(ch->c->p);

	ch->sampled = ch->mode_given && ch->mode_sample;
	if (ch->sampled)
		profile__set_unit(ch->c->p, UNIT_SAMPLES);
	ch->offcpu = ch->mode_given ? ch->mode_offcpu : ch->states;
	if (!ch->offcpu || strstr(m.event, PROFILE_EVENT_OFFCPU))
		return 0;
	m.event = ch->running ? PROFILE_EVENT_WALL : PROFILE_EVENT_OFFCPU;
	return profile__set_meta(ch->c->p, &m);
}

static int nest(struct chrome *ch)
{
	int err = find_mode(ch);

	if (err || !ch->ncalls)
		return err;
	qsort(ch->calls, ch->ncalls, sizeof(*ch->calls), cmp_call);
	for (size_t i = 0; i < ch->ncalls && !err; i++) {
		const struct call *call = &ch->calls[i];
		bool other = i && (call->pid != call[-1].pid || call->tid != call[-1].tid);

		while (ch->depth && !err && (other || ch->open[ch->depth - 1].end <= call->ts))
			err = close_top(ch);
		if (!err)
			err = open_call(ch, i);
	}
	while (ch->depth && !err)
		err = close_top(ch);
	return err;
}

/* ---- the whole ---- */

static void chrome_free(struct chrome *ch)
{
	for (size_t i = 0; i < ch->nthreads; i++)
		free(ch->threads[i].open);
	free(ch->threads);
	free(ch->calls);
	free(ch->open);
	free(ch->path);
	hashmap__free(&ch->pnames);
	hashmap__free(&ch->tnames);
	hashmap__free(&ch->thread_idx);
}

int in_chrome__read(struct in_ctx *c)
{
	struct chrome ch = { .c = c };
	struct json_split js = { "traceEvents", "otherData", event, other_data, &ch };
	int err = in_json__split(c, &js);

	if (!err) {
		close_open(&ch);
		err = nest(&ch);
		if (err)
			err = in__fail_errno(c, err);
	}
	chrome_free(&ch);
	return err;
}
