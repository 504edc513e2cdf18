// SPDX-License-Identifier: GPL-2.0
/* The comparison behind `flamebpf diff` (see diff.h): both profiles are
 * folded into one table of functions by name, then each function's change
 * is measured and tested. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/strbuf.h"
#include "diff.h"
#include "stats.h"

enum { BASE, NEW };

/* What one profile holds of a function while it is read. */
struct acc {
	uint64_t incl, self, n;
	size_t seen;	/* the stack last counted (index + 1): a recursion counts once */
	size_t seen_ev; /* likewise, the event last counted */
	uint64_t *durs; /* per-call inclusive durations, from the events */
	size_t ndurs, cap;
};

struct fn {
	char *name;
	struct acc side[2];
};

struct table {
	struct fn *fns;
	size_t n, cap;
	struct hashmap idx; /* hash of the name -> fn, probed on collisions */
	uint32_t *frame_fn; /* the profile's frame id -> fn + 1; 0 until looked up */
	struct strbuf scratch;
	uint64_t weight[2], count[2];
	enum diff_mode mode;
};

static int fn_push(struct table *t, const char *name, uint64_t key)
{
	struct fn *fns = t->fns;
	char *copy;

	if (t->n == t->cap) {
		fns = realloc(t->fns, (t->cap ? t->cap * 2 : 256) * sizeof(*fns));
		if (!fns)
			return -ENOMEM;
		t->fns = fns;
		t->cap = t->cap ? t->cap * 2 : 256;
	}
	copy = strdup(name);
	if (!copy || hashmap__set(&t->idx, key, t->n)) {
		free(copy);
		return -ENOMEM;
	}
	fns[t->n++] = (struct fn){ .name = copy };
	return 0;
}

static int fn_findnew(struct table *t, const char *name, uint32_t *idx)
{
	uint64_t h = hash_bytes(name, strlen(name), 0), i;

	while (hashmap__get(&t->idx, h, &i)) {
		if (!strcmp(t->fns[i].name, name)) {
			*idx = i;
			return 0;
		}
		h = hash_mix(h + 0x9e3779b97f4a7c15ULL); /* a 64-bit collision: probe on */
	}
	*idx = t->n;
	return fn_push(t, name, h);
}

/* Named as folded output and the flame graph name it, so that a function
 * is the same whatever format each profile came in. */
static int frame_fn(struct table *t, const struct profile *p, uint32_t id, uint32_t *idx)
{
	const struct frame *f = profile__frame(p, id);
	int err;

	if (t->frame_fn[id]) {
		*idx = t->frame_fn[id] - 1;
		return 0;
	}
	strbuf__reset(&t->scratch);
	if (strbuf__addf(&t->scratch, "%s%s", f->name[0] ? f->name : "[unknown]",
			 f->kind == FRAME_KERNEL ? "_[k]" : ""))
		return -ENOMEM;
	err = fn_findnew(t, t->scratch.s, idx);
	if (!err)
		t->frame_fn[id] = *idx + 1;
	return err;
}

/* Sampling: n counts the samples of every stack holding the function, and
 * off the CPU its blocks and samples; uprobe mode: the calls, which a
 * stack counts for its leaf only. */
static int add_stack(struct table *t, const struct profile *p, int side, size_t si)
{
	const struct profile_stack *s = profile__stack(p, si);
	bool samples = t->mode != DIFF_CALLS;
	uint64_t n = t->mode == DIFF_SAMPLES && !s->count ? s->weight : s->count;
	uint32_t fi = 0;
	int err;

	t->weight[side] += s->weight;
	t->count[side] += n;
	for (uint32_t j = 0; j < s->nframes; j++) {
		struct acc *a;

		err = frame_fn(t, p, s->frames[j], &fi);
		if (err)
			return err;
		a = &t->fns[fi].side[side];
		if (a->seen != si + 1) {
			a->seen = si + 1;
			a->incl += s->weight;
			a->n += samples ? n : 0;
		}
	}
	if (s->nframes) {
		t->fns[fi].side[side].self += s->weight;
		t->fns[fi].side[side].n += samples ? 0 : n;
	}
	return 0;
}

static int push_dur(struct acc *a, uint64_t dur)
{
	uint64_t *d = a->durs;

	if (a->ndurs == a->cap) {
		d = realloc(a->durs, (a->cap ? a->cap * 2 : 16) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		a->durs = d;
		a->cap = a->cap ? a->cap * 2 : 16;
	}
	d[a->ndurs++] = dur;
	return 0;
}

/* Off the CPU an event is a block or a sample of its whole stack: each
 * function in a block, once, was there for dur. A sample's duration is its
 * period, the same for all: their number says how the time on the CPU
 * changed (the count test), and only blocks have durations to compare. */
static int add_seen(struct table *t, const struct profile *p, int side, size_t i)
{
	const struct profile_event *e = profile__event(p, i);
	const struct profile_stack *s = profile__stack(p, e->stack);
	const char *state = profile__stack_state(p, s);
	uint32_t fi;
	int err = 0;

	if (!state || !profile__is_offcpu_state(state))
		return 0;
	for (uint32_t j = 0; j < s->nframes && !err; j++) {
		struct acc *a;

		err = frame_fn(t, p, s->frames[j], &fi);
		a = &t->fns[fi].side[side];
		if (!err && a->seen_ev != i + 1) {
			a->seen_ev = i + 1;
			err = push_dur(a, e->dur);
		}
	}
	return err;
}

/* In uprobe mode an event is a call of its stack's leaf, lasting dur
 * (inclusive). */
static int add_events(struct table *t, const struct profile *p, int side)
{
	uint32_t fi;
	int err = 0;

	for (size_t i = 0; i < profile__nr_events(p) && !err; i++) {
		const struct profile_event *e = profile__event(p, i);
		const struct profile_stack *s = profile__stack(p, e->stack);

		if (t->mode != DIFF_CALLS) {
			err = add_seen(t, p, side, i);
			continue;
		}
		if (!s->nframes)
			continue;
		err = frame_fn(t, p, s->frames[s->nframes - 1], &fi);
		if (!err)
			err = push_dur(&t->fns[fi].side[side], e->dur);
	}
	return err;
}

/* Time without its blocks: each quantum of it counts as a sample. */
static uint64_t quanta(uint64_t ns, uint64_t q)
{
	return ns / q + (ns % q >= q / 2);
}

static void count_quanta(struct table *t, uint64_t q)
{
	for (int side = BASE; side <= NEW; side++) {
		t->count[side] = quanta(t->weight[side], q);
		for (size_t i = 0; i < t->n; i++)
			t->fns[i].side[side].n = quanta(t->fns[i].side[side].incl, q);
	}
}

static int add_profile(struct table *t, const struct profile *p, int side, bool events)
{
	int err = 0;

	free(t->frame_fn);
	t->frame_fn = calloc(profile__nr_frames(p) + 1, sizeof(*t->frame_fn));
	if (!t->frame_fn)
		return -ENOMEM;
	for (size_t i = 0; i < profile__nr_stacks(p) && !err; i++)
		err = add_stack(t, p, side, i);
	if (!err && events)
		err = add_events(t, p, side);
	return err;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->fns[i].name);
		free(t->fns[i].side[BASE].durs);
		free(t->fns[i].side[NEW].durs);
	}
	free(t->fns);
	hashmap__free(&t->idx);
	free(t->frame_fn);
	strbuf__free(&t->scratch);
}

/* ---- the tests ---- */

struct ctx {
	const struct diff_opts *o;
	struct table *t;
	struct diff_result *r;
};

/* Uprobe mode: calls and per-call time, each of which can show growth;
 * off the CPU, per block and sample alike. */
static double p_calls_time(const struct ctx *c, struct fn *f, int from, int to)
{
	const struct acc *a = &f->side[from], *b = &f->side[to];
	double calls, time;

	if (c->o->absolute)
		calls = stats__poisson_greater(a->n, b->n);
	else
		calls = stats__prop_greater(a->n, c->t->count[from], b->n, c->t->count[to]);
	if (c->r->per_event)
		time = stats__mwu_greater(f->side[from].durs, a->ndurs, f->side[to].durs, b->ndurs);
	else
		time = stats__mean_greater(a->n ? (double)a->incl / a->n : 0, a->n,
					   b->n ? (double)b->incl / b->n : 0, b->n);
	return fmin(1, 2 * fmin(calls, time));
}

/* The one-sided p-value of growth from side from to side to. */
static double p_greater(const struct ctx *c, struct fn *f, int from, int to)
{
	const struct acc *a = &f->side[from], *b = &f->side[to];

	if (c->r->mode == DIFF_CALLS || c->r->per_event)
		return p_calls_time(c, f, from, to);
	if (c->o->absolute)
		return stats__poisson_greater(a->n, b->n);
	return stats__prop_greater(a->n, c->t->count[from], b->n, c->t->count[to]);
}

static const char *time_test_name(const struct diff_result *r, bool absolute)
{
	if (r->quantum)
		return absolute ? "Poisson test of the inclusive time in quanta (same duration "
				  "assumed)"
				: "two-proportion z-test of the inclusive time in quanta";
	if (r->mode == DIFF_OFFCPU)
		return absolute ? "blocks (Poisson test) and their durations (Mann-Whitney U)"
				: "share of blocks (two-proportion z-test) and their durations "
				  "(Mann-Whitney U)";
	return absolute ? "blocks and samples (Poisson test) and the blocks' durations "
			  "(Mann-Whitney U)"
			: "share of blocks and samples (two-proportion z-test) and the blocks' "
			  "durations (Mann-Whitney U)";
}

static const char *test_name(const struct diff_result *r, bool absolute)
{
	if (r->mode == DIFF_MEMORY)
		return absolute ? "Poisson test of the inclusive bytes in quanta"
				: "two-proportion z-test of the inclusive bytes in quanta";
	if (r->mode == DIFF_OFFCPU || r->mode == DIFF_WALL)
		return time_test_name(r, absolute);
	if (r->unit == UNIT_SAMPLES)
		return absolute ? "Poisson test of the inclusive samples (same duration assumed)"
				: "two-proportion z-test of the inclusive samples";
	if (r->per_event)
		return absolute ? "calls (Poisson test) and per-call durations (Mann-Whitney U)"
				: "share of calls (two-proportion z-test) and per-call durations "
				  "(Mann-Whitney U)";
	return absolute ? "calls (Poisson test) and mean call duration (log-ratio z-test, "
			  "assuming a coefficient of variation of 1)"
			: "share of calls (two-proportion z-test) and mean call duration "
			  "(log-ratio z-test, assuming a coefficient of variation of 1)";
}

static bool matches(const regex_t *re, const char *s)
{
	return re && !regexec(re, s, 0, NULL, 0);
}

static bool tested(const struct fn *f, uint64_t min_samples)
{
	return f->side[BASE].n >= min_samples || f->side[NEW].n >= min_samples;
}

static struct diff_side side_of(const struct acc *a, uint64_t total)
{
	return (struct diff_side){
		.incl = a->incl,
		.self = a->self,
		.n = a->n,
		.incl_pct = total ? 100.0 * a->incl / total : 0,
		.self_pct = total ? 100.0 * a->self / total : 0,
	};
}

static double change_of(const struct diff_func *d, bool absolute)
{
	if (!absolute)
		return d->new.incl_pct - d->base.incl_pct;
	if (d->base.incl)
		return 100.0 * ((double)d->new.incl - d->base.incl) / d->base.incl;
	return d->new.incl ? INFINITY : 0;
}

/* level: alpha over the number of functions tested. */
static void judge(const struct ctx *c, struct fn *f, struct diff_func *d, double level)
{
	d->p = 1;
	if (!tested(f, c->o->min_samples)) {
		d->status = DIFF_FEW;
		return;
	}
	d->p = d->change < 0 ? p_greater(c, f, NEW, BASE) : p_greater(c, f, BASE, NEW);
	if (!(d->p < level))
		d->status = DIFF_NOISE;
	else if (d->change < 0)
		d->status = DIFF_SHRANK;
	else if (d->may_fail && d->change > c->o->threshold)
		d->status = DIFF_REGRESSION;
	else
		d->status = DIFF_GREW;
}

static void make_row(const struct ctx *c, struct fn *f, struct diff_func *d, double level)
{
	d->base = side_of(&f->side[BASE], c->t->weight[BASE]);
	d->new = side_of(&f->side[NEW], c->t->weight[NEW]);
	d->change = change_of(d, c->o->absolute);
	d->may_fail = !c->o->fail_on || matches(c->o->fail_on, f->name);
	judge(c, f, d, level);
	d->name = f->name; /* the row owns it now */
	f->name = NULL;
	c->r->nregressions += d->status == DIFF_REGRESSION;
}

/* Regressions first, then the largest changes either way; among equal
 * changes the functions tested, then the largest. */
static int cmp_row(const void *a, const void *b)
{
	const struct diff_func *x = a, *y = b;
	bool rx = x->status == DIFF_REGRESSION, ry = y->status == DIFF_REGRESSION;
	bool fx = x->status == DIFF_FEW, fy = y->status == DIFF_FEW;
	double cx = fabs(x->change), cy = fabs(y->change);

	if (rx != ry)
		return rx ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	if (fx != fy)
		return fx ? 1 : -1;
	if (x->new.incl != y->new.incl)
		return x->new.incl > y->new.incl ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* A row per function not ignored, each judged at alpha / (functions tested). */
static int make_rows(const struct ctx *c)
{
	struct diff_result *r = c->r;
	struct table *t = c->t;
	size_t nrows = 0;
	double level;

	for (size_t i = 0; i < t->n; i++) {
		if (matches(c->o->ignore, t->fns[i].name))
			continue;
		nrows++;
		r->ntested += tested(&t->fns[i], c->o->min_samples);
	}
	r->funcs = calloc(nrows ? nrows : 1, sizeof(*r->funcs));
	if (!r->funcs)
		return -ENOMEM;
	level = c->o->alpha / (r->ntested ? r->ntested : 1);
	for (size_t i = 0; i < t->n; i++)
		if (!matches(c->o->ignore, t->fns[i].name))
			make_row(c, &t->fns[i], &r->funcs[r->nfuncs++], level);
	qsort(r->funcs, r->nfuncs, sizeof(*r->funcs), cmp_row);
	return 0;
}

int diff__compare(const struct profile *base, const struct profile *new, const struct diff_opts *o,
		  struct diff_result *r)
{
	struct table t = {};
	struct ctx c = { o, &t, r };
	int err;

	memset(r, 0, sizeof(*r));
	if (diff__mode(base) != diff__mode(new))
		return -EINVAL;
	r->unit = profile__unit(base);
	t.mode = r->mode = diff__mode(base);
	r->per_event =
		r->unit == UNIT_NANOSECONDS && profile__nr_events(base) && profile__nr_events(new);
	if (r->mode != DIFF_SAMPLES && r->mode != DIFF_CALLS) {
		r->seen[BASE] = profile__total_count(base);
		r->seen[NEW] = profile__total_count(new);
		if (!r->per_event)
			r->quantum = diff__quantum(base, new);
	}
	r->test = test_name(r, o->absolute);
	if (r->mode == DIFF_SAMPLES && profile__meta(base)->period && *profile__meta(base)->event)
		r->events = profile__meta(base)->event;
	err = add_profile(&t, base, BASE, r->per_event);
	if (!err)
		err = add_profile(&t, new, NEW, r->per_event);
	if (!err && r->quantum)
		count_quanta(&t, r->quantum);
	if (!err)
		err = make_rows(&c);
	memcpy(r->weight, t.weight, sizeof(r->weight));
	memcpy(r->count, t.count, sizeof(r->count));
	table_free(&t);
	if (err)
		diff__free(r);
	return err;
}

void diff__free(struct diff_result *r)
{
	for (size_t i = 0; i < r->nfuncs; i++)
		free(r->funcs[i].name);
	free(r->funcs);
	r->funcs = NULL;
	r->nfuncs = 0;
}
