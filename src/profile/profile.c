// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "profile.h"

struct vec {
	void *v;
	size_t n, cap;
};

struct profile {
	enum profile_unit unit;
	struct vec strings; /* char * */
	struct vec frames;  /* struct frame */
	struct vec stacks;  /* struct profile_stack */
	struct vec events;  /* struct profile_event */
	struct vec splits;  /* struct profile_split, of the events that have one */
	struct hashmap string_idx, frame_idx, stack_idx, pids;
	uint64_t total, total_count;
	uint32_t last_stack;
	uint32_t type; /* of the stacks added next */
	struct profile_meta meta;
};

static int vec_push(struct vec *v, const void *elem, size_t size)
{
	return array__push(&v->v, &v->n, &v->cap, elem, size);
}

/* Finds the index stored under hash h for which eq() holds, probing further
 * hashes on 64-bit collisions. Returns true and *idx when found; otherwise
 * *slot_key is the free key to store a new index under. */
static bool idx_find(const struct hashmap *m, uint64_t h, bool (*eq)(const void *, uint64_t),
		     const void *arg, uint64_t *idx, uint64_t *slot_key)
{
	uint64_t i;

	while (hashmap__get(m, h, &i)) {
		if (eq(arg, i)) {
			*idx = i;
			return true;
		}
		h = hash_mix(h + 0x9e3779b97f4a7c15ULL);
	}
	*slot_key = h;
	return false;
}

struct profile *profile__new(enum profile_unit unit)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->unit = unit;
	p->meta = (struct profile_meta){
		.cmdline = "", .event = "", .kernel = "", .losses = "", .host = ""
	};
	return p;
}

void profile__free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->strings.n; i++)
		free(((char **)p->strings.v)[i]);
	for (size_t i = 0; i < p->stacks.n; i++)
		free((void *)((struct profile_stack *)p->stacks.v)[i].frames);
	free(p->strings.v);
	free(p->frames.v);
	free(p->stacks.v);
	free(p->events.v);
	free(p->splits.v);
	hashmap__free(&p->string_idx);
	hashmap__free(&p->frame_idx);
	hashmap__free(&p->stack_idx);
	hashmap__free(&p->pids);
	free(p);
}

struct str_eq_arg {
	const struct profile *p;
	const char *s;
};

static bool str_eq(const void *arg, uint64_t i)
{
	const struct str_eq_arg *a = arg;

	return !strcmp(((char **)a->p->strings.v)[i], a->s);
}

/* By enum profile_off_state, then the state not known. */
static const char *const off_states[] = { PROFILE_STATE_SLEEPING, PROFILE_STATE_DISK,
					  PROFILE_STATE_PREEMPTED, PROFILE_STATE_STOPPED,
					  PROFILE_STATE_OFF };

bool profile__is_offcpu_state(const char *name)
{
	for (size_t i = 0; i < sizeof(off_states) / sizeof(off_states[0]); i++)
		if (!strcmp(name, off_states[i]))
			return true;
	return false;
}

const char *profile__off_state_name(unsigned int state)
{
	return off_states[state < PROFILE_OFF_NR ? state : PROFILE_OFF_NR];
}

/* s's index in p->strings, added if new. Returns 0 or -ENOMEM. */
static int intern_index(struct profile *p, const char *s, uint64_t *i)
{
	struct str_eq_arg arg = { p, s };
	uint64_t key;
	char *copy;

	if (idx_find(&p->string_idx, hash_bytes(s, strlen(s), 0), str_eq, &arg, i, &key))
		return 0;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	*i = p->strings.n;
	/* the string first: the index never names one that is not there */
	if (vec_push(&p->strings, &copy, sizeof(copy))) {
		free(copy);
		return -ENOMEM;
	}
	if (hashmap__set(&p->string_idx, key, *i)) {
		p->strings.n--;
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

const char *profile__intern(struct profile *p, const char *s)
{
	uint64_t i;

	return intern_index(p, s, &i) ? NULL : ((char **)p->strings.v)[i];
}

int profile__set_event_str(struct profile *p, struct profile_event *e, int i, const char *s)
{
	uint64_t idx;
	int err = intern_index(p, s, &idx);

	if (err)
		return err;
	e->args[i] = idx;
	e->flags |= PROFILE_EVENT_ARG_STR(i);
	return 0;
}

int profile__set_hit_arg(struct profile *p, struct profile_event *e, int i, uint64_t v,
			 bool is_signed, const char *str)
{
	e->flags |= PROFILE_EVENT_INSTANT;
	if (str)
		return profile__set_event_str(p, e, i, str);
	e->args[i] = v;
	if (is_signed)
		e->flags |= PROFILE_EVENT_ARG_SIGNED(i);
	return 0;
}

const char *profile__event_str(const struct profile *p, const struct profile_event *e, int i)
{
	if (!(e->flags & PROFILE_EVENT_ARG_STR(i)) || e->args[i] >= p->strings.n)
		return NULL;
	return ((char **)p->strings.v)[e->args[i]];
}

struct frame_eq_arg {
	const struct profile *p;
	struct frame f;
};

/* Interned strings compare by pointer. */
static bool frame_eq(const void *arg, uint64_t i)
{
	const struct frame_eq_arg *a = arg;
	const struct frame *f = &((struct frame *)a->p->frames.v)[i];

	return f->name == a->f.name && f->module == a->f.module && f->kind == a->f.kind &&
	       f->addr == a->f.addr && f->sym_off == a->f.sym_off && f->dso == a->f.dso &&
	       f->build_id == a->f.build_id;
}

static const char *intern_or_empty(struct profile *p, const char *s)
{
	return profile__intern(p, s ? s : "");
}

static uint64_t frame_hash(const struct frame *f)
{
	uint64_t h = hash_mix((uintptr_t)f->name ^ hash_mix((uintptr_t)f->module + f->kind));

	h = hash_mix(h ^ f->addr ^ hash_mix(f->sym_off + (uintptr_t)f->dso));
	return hash_mix(h ^ (uintptr_t)f->build_id);
}

int profile__findnew_frame_at(struct profile *p, const struct frame *f, uint32_t *id)
{
	struct frame_eq_arg arg = { p, *f };
	uint64_t i, key;

	arg.f.name = intern_or_empty(p, f->name);
	arg.f.module = intern_or_empty(p, f->module);
	arg.f.dso = intern_or_empty(p, f->dso);
	arg.f.build_id = intern_or_empty(p, f->build_id);
	if (!arg.f.name || !arg.f.module || !arg.f.dso || !arg.f.build_id)
		return -ENOMEM;
	if (!idx_find(&p->frame_idx, frame_hash(&arg.f), frame_eq, &arg, &i, &key)) {
		i = p->frames.n;
		if (hashmap__set(&p->frame_idx, key, i) ||
		    vec_push(&p->frames, &arg.f, sizeof(arg.f)))
			return -ENOMEM;
	}
	*id = i;
	return 0;
}

int profile__findnew_frame(struct profile *p, const char *name, const char *module,
			   enum frame_kind kind, uint32_t *id)
{
	struct frame f = { .name = name, .module = module, .kind = kind };

	return profile__findnew_frame_at(p, &f, id);
}

struct stack_eq_arg {
	const struct profile *p;
	const struct profile_stack *s;
};

static bool stack_eq(const void *arg, uint64_t i)
{
	const struct stack_eq_arg *a = arg;
	const struct profile_stack *s = &((struct profile_stack *)a->p->stacks.v)[i];

	return s->type == a->s->type && s->who.pid == a->s->who.pid &&
	       s->who.tid == a->s->who.tid && s->who.comm == a->s->who.comm &&
	       s->who.tcomm == a->s->who.tcomm && s->nframes == a->s->nframes &&
	       (!s->nframes || !memcmp(s->frames, a->s->frames, s->nframes * sizeof(*s->frames)));
}

static uint64_t stack_hash(const struct profile_stack *s)
{
	uint64_t h = s->nframes ? hash_bytes(s->frames, s->nframes * sizeof(*s->frames), 0) : 0;

	h = hash_mix(h ^ (((uint64_t)s->who.pid << 32) | s->who.tid) ^ ((uint64_t)s->type << 17));
	return hash_mix(h ^ (uintptr_t)s->who.comm ^ ((uintptr_t)s->who.tcomm << 1));
}

static int stack_insert(struct profile *p, const struct profile_stack *s, uint64_t key)
{
	struct profile_stack copy = *s;
	uint32_t *frames = malloc((s->nframes ? s->nframes : 1) * sizeof(*frames));

	if (!frames)
		return -ENOMEM;
	if (s->nframes)
		memcpy(frames, s->frames, s->nframes * sizeof(*frames));
	copy.frames = frames;
	if (hashmap__set(&p->stack_idx, key, p->stacks.n) ||
	    vec_push(&p->stacks, &copy, sizeof(copy))) {
		free(frames);
		return -ENOMEM;
	}
	return 0;
}

static int findnew_stack(struct profile *p, const struct stack_owner *who, const uint32_t *frames,
			 uint32_t nframes, uint64_t *idx)
{
	struct profile_stack s = {
		.who = *who, .type = p->type, .nframes = nframes, .frames = frames
	};
	struct stack_eq_arg arg = { p, &s };
	uint64_t key;
	int err;

	s.who.comm = profile__intern(p, who->comm ? who->comm : "");
	s.who.tcomm = profile__intern(p, who->tcomm ? who->tcomm : "");
	if (!s.who.comm || !s.who.tcomm)
		return -ENOMEM;
	if (idx_find(&p->stack_idx, stack_hash(&s), stack_eq, &arg, idx, &key))
		return 0;
	*idx = p->stacks.n;
	err = stack_insert(p, &s, key);
	return err ? err : hashmap__set(&p->pids, who->pid, 1);
}

int profile__add_stack_count(struct profile *p, const struct stack_owner *who,
			     const uint32_t *frames, uint32_t nframes, uint64_t weight,
			     uint64_t count)
{
	struct profile_stack *s;
	uint64_t i;
	int err = findnew_stack(p, who, frames, nframes, &i);

	if (err)
		return err;
	s = &((struct profile_stack *)p->stacks.v)[i];
	s->weight += weight;
	s->count += count;
	p->total += weight;
	p->total_count += count;
	p->last_stack = i;
	return 0;
}

void profile__set_type(struct profile *p, uint32_t type)
{
	p->type = type;
}

void profile__type_totals(const struct profile *p, uint32_t type, uint64_t *weight, uint64_t *count)
{
	*weight = *count = 0;
	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct profile_stack *s = &((const struct profile_stack *)p->stacks.v)[i];

		if (s->type == type) {
			*weight += s->weight;
			*count += s->count;
		}
	}
}

int profile__add_stack_alloc(struct profile *p, const struct stack_owner *who,
			     const uint32_t *frames, uint32_t nframes, uint64_t weight,
			     uint64_t count, uint64_t other, uint64_t other_count)
{
	struct profile_stack *s;
	int err = profile__add_stack_count(p, who, frames, nframes, weight, count);

	if (err)
		return err;
	s = &((struct profile_stack *)p->stacks.v)[p->last_stack];
	s->other += other;
	s->other_count += other_count;
	return 0;
}

int profile__add_stack(struct profile *p, const struct stack_owner *who, const uint32_t *frames,
		       uint32_t nframes, uint64_t weight)
{
	return profile__add_stack_count(p, who, frames, nframes, weight,
					p->unit == UNIT_SAMPLES ? weight : 0);
}

int profile__merge(struct profile *dst, const struct profile *src)
{
	return profile__merge_if(dst, src, NULL, NULL, NULL);
}

/* profile__merge_if(), the stacks keeping their types, or all of them
 * dst's current one (one_type). */
static int merge_stacks(struct profile *dst, const struct profile *src,
			bool (*keep)(const struct profile_stack *, void *), void *arg,
			uint32_t *stack_map, bool one_type)
{
	uint32_t type = dst->type;
	size_t nf = profile__nr_frames(src), ns = profile__nr_stacks(src);
	uint32_t *map = malloc((nf ? nf : 1) * sizeof(*map)), *frames = NULL;
	size_t cap = 0;
	int err = map ? 0 : -ENOMEM;

	for (size_t i = 0; i < nf && !err; i++)
		err = profile__findnew_frame_at(dst, profile__frame(src, (uint32_t)i), &map[i]);
	for (size_t i = 0; i < ns && !err; i++) {
		const struct profile_stack *s = profile__stack(src, i);

		if (stack_map)
			stack_map[i] = UINT32_MAX;
		if (keep && !keep(s, arg))
			continue;
		if (s->nframes > cap) {
			uint32_t *grown = realloc(frames, s->nframes * sizeof(*frames));

			if (!grown) {
				err = -ENOMEM;
				break;
			}
			frames = grown;
			cap = s->nframes;
		}
		for (uint32_t k = 0; k < s->nframes; k++)
			frames[k] = map[s->frames[k]];
		dst->type = one_type ? type : s->type;
		err = profile__add_stack_alloc(dst, &s->who, frames, s->nframes, s->weight,
					       s->count, s->other, s->other_count);
		if (!err && stack_map)
			stack_map[i] = profile__last_stack(dst);
	}
	dst->type = type;
	free(frames);
	free(map);
	return err;
}

int profile__merge_if(struct profile *dst, const struct profile *src,
		      bool (*keep)(const struct profile_stack *, void *), void *arg,
		      uint32_t *stack_map)
{
	return merge_stacks(dst, src, keep, arg, stack_map, false);
}

/* ev, of src, names its string arguments by their index in src: now in dst. */
static int copy_event_strs(struct profile *dst, const struct profile *src, struct profile_event *ev)
{
	int err = 0;

	for (int a = 0; a < PROFILE_NARGS && !err; a++) {
		const char *str = profile__event_str(src, ev, a);

		ev->flags &= ~PROFILE_EVENT_ARG_STR(a);
		if (str)
			err = profile__set_event_str(dst, ev, a, str);
	}
	return err;
}

/* The events of src on the stacks map gives them in dst (UINT32_MAX: none). */
static int copy_events(struct profile *dst, const struct profile *src, const uint32_t *map)
{
	int err = 0;

	for (size_t i = 0; i < src->events.n && !err; i++) {
		struct profile_event ev = ((const struct profile_event *)src->events.v)[i];
		const struct profile_split *sp = profile__event_split(src, &ev);

		if (map[ev.stack] == UINT32_MAX)
			continue;
		ev.stack = map[ev.stack];
		ev.split = 0;
		err = copy_event_strs(dst, src, &ev);
		if (!err && sp)
			err = vec_push(&dst->splits, sp, sizeof(*sp));
		if (sp && !err)
			ev.split = dst->splits.n;
		if (!err)
			err = profile__add_stack_event(dst, &ev);
	}
	return err;
}

static struct profile *select_stacks(const struct profile *src,
				     bool (*keep)(const struct profile_stack *, void *), void *arg,
				     bool one_type)
{
	struct profile *dst = profile__new(src->unit);
	uint32_t *map = malloc((src->stacks.n ? src->stacks.n : 1) * sizeof(*map));
	int err = dst && map ? merge_stacks(dst, src, keep, arg, map, one_type) : -ENOMEM;

	if (!err)
		err = copy_events(dst, src, map);
	if (!err)
		err = profile__set_meta(dst, &src->meta);
	free(map);
	if (err) {
		profile__free(dst);
		errno = -err;
		return NULL;
	}
	return dst;
}

struct profile *profile__select(const struct profile *src,
				bool (*keep)(const struct profile_stack *, void *), void *arg)
{
	return select_stacks(src, keep, arg, false);
}

static bool of_type(const struct profile_stack *s, void *arg)
{
	return s->type == *(const uint32_t *)arg;
}

struct profile *profile__of_type(const struct profile *src, uint32_t type)
{
	struct profile *dst = select_stacks(src, of_type, &type, true);
	struct profile_meta m;

	if (!dst)
		return NULL;
	m = dst->meta;
	m.event = type < m.ntypes ? m.types[type] : m.event;
	m.ntypes = 0;
	if (profile__set_meta(dst, &m)) {
		profile__free(dst);
		errno = ENOMEM;
		return NULL;
	}
	return dst;
}

uint32_t profile__last_stack(const struct profile *p)
{
	return p->last_stack;
}

int profile__add_event(struct profile *p, const struct stack_owner *who, const uint32_t *frames,
		       uint32_t nframes, const struct profile_event *ev)
{
	struct profile_event copy = *ev;
	uint64_t i;
	int err = findnew_stack(p, who, frames, nframes, &i);

	if (err)
		return err;
	copy.stack = i;
	return vec_push(&p->events, &copy, sizeof(copy));
}

int profile__add_split_event(struct profile *p, const struct stack_owner *who,
			     const uint32_t *frames, uint32_t nframes,
			     const struct profile_event *ev, const struct profile_split *split)
{
	struct profile_event copy = *ev;
	int err = vec_push(&p->splits, split, sizeof(*split));

	if (err)
		return err;
	copy.split = p->splits.n;
	err = profile__add_event(p, who, frames, nframes, &copy);
	if (err)
		p->splits.n--;
	return err;
}

const struct profile_split *profile__event_split(const struct profile *p,
						 const struct profile_event *ev)
{
	if (!ev->split || ev->split > p->splits.n)
		return NULL;
	return &((const struct profile_split *)p->splits.v)[ev->split - 1];
}

int profile__add_stack_event(struct profile *p, const struct profile_event *ev)
{
	if (ev->stack >= p->stacks.n)
		return -EINVAL;
	return vec_push(&p->events, ev, sizeof(*ev));
}

int profile__set_meta(struct profile *p, const struct profile_meta *m)
{
	struct profile_meta c = *m;

	c.cmdline = intern_or_empty(p, m->cmdline);
	c.event = intern_or_empty(p, m->event);
	c.kernel = intern_or_empty(p, m->kernel);
	c.losses = intern_or_empty(p, m->losses);
	c.host = intern_or_empty(p, m->host);
	if (!c.cmdline || !c.event || !c.kernel || !c.losses || !c.host)
		return -ENOMEM;
	if (c.ntypes > PROFILE_MAX_TYPES)
		return -EINVAL;
	for (unsigned int t = 0; t < c.ntypes; t++)
		if (!(c.types[t] = intern_or_empty(p, m->types[t])))
			return -ENOMEM;
	p->meta = c;
	return 0;
}

const struct profile_meta *profile__meta(const struct profile *p)
{
	return &p->meta;
}

static int cmp_event(const void *a, const void *b, void *arg)
{
	const struct profile *p = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	const struct profile_event *x = profile__event(p, ia), *y = profile__event(p, ib);
	const struct profile_stack *sx = profile__stack(p, x->stack),
				   *sy = profile__stack(p, y->stack);

	if (sx->who.pid != sy->who.pid)
		return sx->who.pid < sy->who.pid ? -1 : 1;
	if (sx->who.tid != sy->who.tid)
		return sx->who.tid < sy->who.tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	if (sx->nframes != sy->nframes)
		return sx->nframes < sy->nframes ? -1 : 1;
	return (ia > ib) - (ia < ib);
}

int profile__events_in_order(const struct profile *p, size_t **order)
{
	size_t n = p->events.n;

	*order = malloc((n ? n : 1) * sizeof(**order));
	if (!*order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		(*order)[i] = i;
	qsort_r(*order, n, sizeof(**order), cmp_event, (void *)p);
	return 0;
}

size_t profile__nr_events(const struct profile *p)
{
	return p->events.n;
}

const struct profile_event *profile__event(const struct profile *p, size_t i)
{
	return &((const struct profile_event *)p->events.v)[i];
}

enum profile_unit profile__unit(const struct profile *p)
{
	return p->unit;
}

size_t profile__nr_stacks(const struct profile *p)
{
	return p->stacks.n;
}

const struct profile_stack *profile__stack(const struct profile *p, size_t i)
{
	return &((const struct profile_stack *)p->stacks.v)[i];
}

size_t profile__nr_frames(const struct profile *p)
{
	return p->frames.n;
}

const struct frame *profile__frame(const struct profile *p, uint32_t id)
{
	return &((const struct frame *)p->frames.v)[id];
}

uint64_t profile__total_weight(const struct profile *p)
{
	return p->total;
}

uint64_t profile__total_count(const struct profile *p)
{
	return p->total_count;
}

size_t profile__nr_processes(const struct profile *p)
{
	return p->pids.n;
}

bool profile__is_offcpu(const struct profile *p)
{
	return strstr(p->meta.event, PROFILE_EVENT_OFFCPU) != NULL;
}

bool profile__is_wall(const struct profile *p)
{
	return !strcmp(p->meta.event, PROFILE_EVENT_WALL);
}

/* States are never kernel frames: "[sleeping]_[k]" is some kernel symbol. */
static bool is_state(const struct profile *p, uint32_t id)
{
	const struct frame *f = profile__frame(p, id);

	return f->kind != FRAME_KERNEL &&
	       (profile__is_offcpu_state(f->name) || !strcmp(f->name, PROFILE_STATE_RUNNING));
}

const char *profile__stack_state(const struct profile *p, const struct profile_stack *s)
{
	uint32_t n = s->nframes;

	if (!n)
		return NULL;
	if (is_state(p, s->frames[n - 1]))
		return profile__frame(p, s->frames[n - 1])->name;
	if (is_state(p, s->frames[0]))
		return profile__frame(p, s->frames[0])->name;
	for (uint32_t i = 1; i + 1 < n; i++)
		if (!strcmp(profile__frame(p, s->frames[i + 1])->name, "--") &&
		    is_state(p, s->frames[i]))
			return profile__frame(p, s->frames[i])->name;
	return NULL;
}

bool profile__stack_is_offcpu(const struct profile *p, const struct profile_stack *s)
{
	const char *state = profile__stack_state(p, s);

	return state && profile__is_offcpu_state(state);
}

uint64_t profile__event_from(const struct profile *p, const struct profile_event *e)
{
	if (!profile__is_wall(p) || profile__stack_is_offcpu(p, profile__stack(p, e->stack)))
		return e->ts;
	return e->ts > e->dur ? e->ts - e->dur : 0;
}

void profile__set_unit(struct profile *p, enum profile_unit unit)
{
	p->unit = unit;
}

void profile__set_weight(struct profile *p, size_t stack, uint64_t weight, uint64_t count)
{
	struct profile_stack *s = &((struct profile_stack *)p->stacks.v)[stack];

	p->total += weight - s->weight;
	p->total_count += count - s->count;
	s->weight = weight;
	s->count = count;
}

const struct frame *profile__stack_span(const struct profile *p, const struct profile_stack *s)
{
	const struct frame *span = NULL;

	for (uint32_t i = 0; i < s->nframes; i++) {
		const struct frame *f = profile__frame(p, s->frames[i]);

		if (strcmp(f->module, PROFILE_SPAN_MODULE))
			break;
		span = f;
	}
	return span;
}
