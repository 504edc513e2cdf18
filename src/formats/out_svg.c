// SPDX-License-Identifier: GPL-2.0
/* The SVG flame graph: the profile's stacks merged into a tree by frame name
 * (or, as a flame chart, laid out in time order), one <g> per frame that
 * carries its start and width in profile units (fg:x, fg:w) so that the
 * embedded script (src/formats/svg/flamegraph.js) zooms and searches from the DOM
 * alone. Memory follows the tree (24 bytes a node); the output is streamed. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen/svg_js.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/utf8.h"
#include "out_folded.h"
#include "numfmt.h"
#include "out_svg.h"
#include "palette.h"
#include "xml.h"

/* Geometry in px: flamegraph.pl's defaults, which users know. */
#define IMG_W	    1200
#define PAD_X	    10
#define FRAMES_W    (IMG_W - 2 * PAD_X)
#define FRAME_H	    16
#define FONT_SIZE   12
#define CHAR_W	    (FONT_SIZE * 0.59) /* Verdana's mean advance */
#define PAD_TOP	    (FONT_SIZE * 5)
#define PAD_BOTTOM  (FONT_SIZE * 2 + 10)
#define TEXT_DY	    10.5 /* a label's baseline below its frame's top */
#define MIN_PX	    0.1	 /* narrower frames (so their callees too) are left out */
#define TITLE_CHARS 160

enum name_role {
	ROLE_USER,
	ROLE_KERNEL,
	ROLE_PROCESS,
	ROLE_ALL,
};

/* A display name: frames of any address with it merge into one node. */
struct svg_name {
	char *s;
	enum name_role role;
	uint32_t rank; /* place in the (string, role) order: the order of siblings */
};

/* Nodes are stored depth first, a parent before its children and siblings
 * left to right, which is also the order they are drawn in. */
struct svg_node {
	uint32_t name, depth;
	uint64_t x, w; /* start and inclusive weight, in profile units */
};

struct svg_tree {
	bool chart; /* time order: a node starts where the timeline is */
	struct svg_name *names;
	size_t nnames, names_cap;
	struct hashmap name_idx; /* hash of (string, role), probed on collisions -> name */
	struct svg_node *nodes;	 /* 0 is "all" */
	size_t nnodes, nodes_cap;
	uint32_t *frame_name; /* frame id -> name + 1; 0 until looked up */
	uint32_t *stack_root; /* stack -> its root frame's name + 1 */
	/* The path last added: open[d] is its node at depth d < nopen, which
	 * the next path extends while the names agree; fill[d] is how much of
	 * open[d]'s width its children took so far. */
	uint32_t *open;
	uint64_t *fill;
	uint32_t nopen;
	/* Graphs: the total weight, known before the tree grows, so that a
	 * subtree too narrow to draw is dropped once complete; 0 in charts. */
	uint64_t total;
	bool keep_narrow; /* no pruning: a differential graph's base looks up every path */
	size_t pruned;	  /* nodes dropped so */
	struct strbuf scratch;
};

struct svg_rgb {
	unsigned int r, g, b;
};

/* How a frame is filled: the flame graph colours by name; a differential
 * graph by change, from the same tree and drawing. */
typedef struct svg_rgb (*svg_paint_fn)(const struct svg_tree *t, uint32_t node, void *arg);

struct svg_draw;

/* What a frame's title says after its name: " (" first, which the script
 * cuts the name at. */
typedef void (*svg_value_fn)(const struct svg_draw *d, uint32_t node);

struct svg_draw {
	const struct svg_tree *t;
	FILE *f;
	enum profile_unit unit;
	svg_paint_fn paint;
	svg_value_fn value;
	void *paint_arg; /* for paint and value */
	uint64_t total;
	double scale; /* px per profile unit */
	double height;
	const char *counted; /* what a count is, not being samples: "page-faults"; or NULL */
};

/* A counted event's name (-e page-faults), for its counts. */
static const char *counted_of(const struct profile *p)
{
	if (profile__meta(p)->alloc)
		return "bytes";
	return profile__meta(p)->period ? profile__meta(p)->event : NULL;
}

/* Makes room for one more element: returns the (moved) array, or NULL. */
static void *reserve(void *v, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 256;
	void *nv;

	if (n < *cap)
		return v;
	nv = realloc(v, ncap * size);
	if (nv)
		*cap = ncap;
	return nv;
}

static int name_push(struct svg_tree *t, const char *s, enum name_role role, uint64_t key)
{
	struct svg_name *names = reserve(t->names, &t->names_cap, t->nnames, sizeof(*names));
	char *copy;

	if (!names)
		return -ENOMEM;
	t->names = names;
	copy = strdup(s);
	if (!copy || hashmap__set(&t->name_idx, key, t->nnames)) {
		free(copy);
		return -ENOMEM;
	}
	names[t->nnames++] = (struct svg_name){ copy, role, 0 };
	return 0;
}

/* Find-or-create by content, so that names from any profile compare. */
static int names_findnew(struct svg_tree *t, const char *s, enum name_role role, uint32_t *idx)
{
	uint64_t h = hash_bytes(s, strlen(s), role), i;

	while (hashmap__get(&t->name_idx, h, &i)) {
		if (t->names[i].role == role && !strcmp(t->names[i].s, s)) {
			*idx = i;
			return 0;
		}
		h = hash_mix(h + 0x9e3779b97f4a7c15ULL); /* a 64-bit collision: probe on */
	}
	*idx = t->nnames;
	return name_push(t, s, role, h);
}

/* Kernel frames are "NAME_[k]", as in folded output: apart from user frames
 * of the same name, and found by the same searches. */
static int frame_name(struct svg_tree *t, const struct profile *p, uint32_t id, uint32_t *idx)
{
	const struct frame *f = profile__frame(p, id);
	bool kernel = f->kind == FRAME_KERNEL;
	int err;

	if (t->frame_name[id]) {
		*idx = t->frame_name[id] - 1;
		return 0;
	}
	strbuf__reset(&t->scratch);
	if (strbuf__addf(&t->scratch, "%s%s", f->name[0] ? f->name : "[unknown]",
			 kernel ? "_[k]" : ""))
		return -ENOMEM;
	err = names_findnew(t, t->scratch.s, kernel ? ROLE_KERNEL : ROLE_USER, idx);
	if (!err)
		t->frame_name[id] = *idx + 1;
	return err;
}

/* COMM, COMM-PID or COMM-PID/TID, as folded__format_stack() names it. */
static int stack_root(struct svg_tree *t, const struct profile *p, const struct write_opts *o,
		      uint32_t si, uint32_t *idx)
{
	const struct stack_owner *who = &profile__stack(p, si)->who;
	int err;

	if (t->stack_root[si]) {
		*idx = t->stack_root[si] - 1;
		return 0;
	}
	strbuf__reset(&t->scratch);
	err = strbuf__addf(&t->scratch, "%s", who->comm[0] ? who->comm : "[unknown]");
	if (!err)
		err = folded__append_ids(&t->scratch, who, o->root);
	if (!err)
		err = names_findnew(t, t->scratch.s, ROLE_PROCESS, idx);
	if (!err)
		t->stack_root[si] = *idx + 1;
	return err;
}

/* The name at depth d (1 for the root frame) of stack si's path. */
static int path_name(struct svg_tree *t, const struct profile *p, const struct write_opts *o,
		     uint32_t si, uint32_t d, uint32_t *idx)
{
	if (d == 1)
		return stack_root(t, p, o, si, idx);
	return frame_name(t, p, profile__stack(p, si)->frames[d - 2], idx);
}

static int node_new(struct svg_tree *t, uint32_t name, uint32_t depth, uint64_t x, uint32_t *idx)
{
	struct svg_node *nodes;

	if (t->nnodes >= UINT32_MAX)
		return -ENOMEM;
	nodes = reserve(t->nodes, &t->nodes_cap, t->nnodes, sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	t->nodes = nodes;
	nodes[t->nnodes] = (struct svg_node){ name, depth, x, 0 };
	*idx = t->nnodes++;
	return 0;
}

static int tree_init(struct svg_tree *t, const struct profile *p, bool chart)
{
	size_t nstacks = profile__nr_stacks(p), depth = 0;
	uint32_t all;

	t->chart = chart;
	for (size_t i = 0; i < nstacks; i++)
		if (profile__stack(p, i)->nframes > depth)
			depth = profile__stack(p, i)->nframes;
	t->frame_name = calloc(profile__nr_frames(p) + 1, sizeof(*t->frame_name));
	t->stack_root = calloc(nstacks + 1, sizeof(*t->stack_root));
	t->open = calloc(depth + 2, sizeof(*t->open));
	t->fill = calloc(depth + 2, sizeof(*t->fill));
	if (!t->frame_name || !t->stack_root || !t->open || !t->fill)
		return -ENOMEM;
	t->nopen = 1;
	if (names_findnew(t, "all", ROLE_ALL, &all))
		return -ENOMEM;
	return node_new(t, all, 0, 0, &t->open[0]);
}

static void tree_free(struct svg_tree *t)
{
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i].s);
	free(t->names);
	free(t->nodes);
	hashmap__free(&t->name_idx);
	free(t->frame_name);
	free(t->stack_root);
	free(t->open);
	free(t->fill);
	strbuf__free(&t->scratch);
}

/* Whether a frame of weight w is too narrow to draw: under MIN_PX. */
static bool narrow(uint64_t w, uint64_t total)
{
	return (double)w * FRAMES_W < MIN_PX * total;
}

/* Ends the nodes open at depth d and deeper. Nodes are stored depth first,
 * so the first of them too narrow to draw, with all that follows it, is a
 * subtree whose frames are narrower still: a graph drops it. */
static void close_from(struct svg_tree *t, uint32_t d)
{
	for (; d < t->nopen && t->total && !t->keep_narrow; d++) {
		if (narrow(t->nodes[t->open[d]].w, t->total)) {
			t->pruned += t->nnodes - t->open[d];
			t->nnodes = t->open[d];
			break;
		}
	}
}

/* Makes open[d] the node called name below open[d - 1]: the open one when it
 * has that name, so that a path shares its prefix with the one before; a
 * new one otherwise, after its earlier siblings (graph) or where the
 * timeline is (chart). */
static int descend(struct svg_tree *t, uint32_t d, uint32_t name, uint64_t at)
{
	uint64_t x = t->chart ? at : t->nodes[t->open[d - 1]].x + t->fill[d - 1];
	int err;

	if (d < t->nopen && t->nodes[t->open[d]].name == name)
		return 0;
	close_from(t, d);
	err = node_new(t, name, d, x, &t->open[d]);
	if (!err) {
		t->fill[d] = 0;
		t->nopen = d + 1;
	}
	return err;
}

/* Adds w units of stack si after the path added last. */
static int tree_add(struct svg_tree *t, const struct profile *p, const struct write_opts *o,
		    uint32_t si, uint64_t w)
{
	uint32_t depth = profile__stack(p, si)->nframes + 1, name;
	uint64_t at = t->nodes[0].w;
	int err;

	if (!w)
		return 0;
	t->nodes[0].w += w;
	for (uint32_t d = 1; d <= depth; d++) {
		err = path_name(t, p, o, si, d, &name);
		if (!err)
			err = descend(t, d, name, at);
		if (err)
			return err;
		t->nodes[t->open[d]].w += w;
		t->fill[d - 1] += w;
	}
	close_from(t, depth + 1); /* a longer path before this one ended here */
	t->nopen = depth + 1;
	return 0;
}

/* ---- a flame graph: stacks sorted by the names on their paths, merged ---- */

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct svg_tree *t = arg;
	const struct svg_name *x = &t->names[*(const uint32_t *)a];
	const struct svg_name *y = &t->names[*(const uint32_t *)b];
	int c = strcmp(x->s, y->s);

	return c ? c : (x->role > y->role) - (x->role < y->role);
}

/* Names every path (all are then cached) and ranks the names. */
static int rank_names(struct svg_tree *t, const struct profile *p, const struct write_opts *o)
{
	uint32_t *order, name;
	int err = 0;

	for (size_t si = 0; si < profile__nr_stacks(p) && !err; si++)
		for (uint32_t d = 1; d <= profile__stack(p, si)->nframes + 1 && !err; d++)
			err = path_name(t, p, o, si, d, &name);
	order = err ? NULL : malloc(t->nnames * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < t->nnames; i++)
		order[i] = i;
	qsort_r(order, t->nnames, sizeof(*order), cmp_name, t);
	for (size_t i = 0; i < t->nnames; i++)
		t->names[order[i]].rank = i;
	free(order);
	return 0;
}

struct stack_cmp {
	const struct svg_tree *t;
	const struct profile *p;
};

static uint32_t rank_at(const struct stack_cmp *c, uint32_t si, uint32_t d)
{
	const struct profile_stack *s = profile__stack(c->p, si);
	uint32_t name = d == 1 ? c->t->stack_root[si] : c->t->frame_name[s->frames[d - 2]];

	return c->t->names[name - 1].rank;
}

/* Paths in name order, a path before its extensions: the tree then grows
 * depth first, each sibling once, in the same order on every run. */
static int cmp_stack(const void *a, const void *b, void *arg)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint32_t ni = profile__stack(((struct stack_cmp *)arg)->p, i)->nframes + 1;
	uint32_t nj = profile__stack(((struct stack_cmp *)arg)->p, j)->nframes + 1;

	for (uint32_t d = 1; d <= ni && d <= nj; d++) {
		uint32_t x = rank_at(arg, i, d), y = rank_at(arg, j, d);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return (ni > nj) - (ni < nj);
}

static int build_graph(struct svg_tree *t, const struct profile *p, const struct write_opts *o)
{
	size_t n = profile__nr_stacks(p);
	struct stack_cmp c = { t, p };
	uint32_t *order;
	int err = rank_names(t, p, o);

	order = err ? NULL : malloc((n ? n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		t->total += profile__stack(p, i)->weight;
	}
	qsort_r(order, n, sizeof(*order), cmp_stack, &c);
	for (size_t i = 0; i < n && !err; i++)
		err = tree_add(t, p, o, order[i], profile__stack(p, order[i])->weight);
	close_from(t, 1);
	free(order);
	return err;
}

/* ---- a flame chart: time order, only adjacent identical prefixes merge ---- */

static const struct stack_owner *owner_of(const struct profile *p, size_t ev)
{
	return &profile__stack(p, profile__event(p, ev)->stack)->who;
}

static bool new_thread(const struct profile *p, const size_t *order, size_t i)
{
	const struct stack_owner *a, *b;

	if (!i)
		return true;
	a = owner_of(p, order[i - 1]);
	b = owner_of(p, order[i]);
	return a->pid != b->pid || a->tid != b->tid;
}

/* Traced calls are split into self-time stretches around their children,
 * as folded__write_flamechart() does, so that widths follow the timeline. */
struct sweep {
	struct svg_tree *t;
	const struct profile *p;
	const struct write_opts *o;
	size_t *ev;	  /* the open calls, outermost first */
	uint64_t *cursor; /* where each one's next self-time stretch starts */
	size_t depth;
};

static uint64_t end_of(const struct profile *p, size_t ev)
{
	return profile__event(p, ev)->ts + profile__event(p, ev)->dur;
}

static int stretch(struct sweep *sw, size_t i, uint64_t to)
{
	uint64_t from = sw->cursor[i];

	if (to <= from)
		return 0;
	sw->cursor[i] = to;
	return tree_add(sw->t, sw->p, sw->o, profile__event(sw->p, sw->ev[i])->stack, to - from);
}

static int close_top(struct sweep *sw)
{
	size_t top = --sw->depth;
	uint64_t end = end_of(sw->p, sw->ev[top]);
	int err = stretch(sw, top, end);

	if (top && sw->cursor[top - 1] < end)
		sw->cursor[top - 1] = end;
	return err;
}

static int sweep_step(struct sweep *sw, size_t ev, bool first)
{
	uint64_t ts = profile__event(sw->p, ev)->ts;
	int err = 0;

	while (sw->depth && !err && (first || end_of(sw->p, sw->ev[sw->depth - 1]) <= ts))
		err = close_top(sw);
	if (first)
		sw->t->nopen = 1; /* a thread's timeline starts a new root */
	if (!err && sw->depth)
		err = stretch(sw, sw->depth - 1, ts);
	sw->ev[sw->depth] = ev;
	sw->cursor[sw->depth++] = ts;
	return err;
}

static int chart_calls(struct sweep *sw, const size_t *order, size_t n)
{
	int err = 0;

	sw->ev = malloc(n * sizeof(*sw->ev));
	sw->cursor = malloc(n * sizeof(*sw->cursor));
	if (!sw->ev || !sw->cursor)
		err = -ENOMEM;
	for (size_t i = 0; i < n && !err; i++)
		err = sweep_step(sw, order[i], new_thread(sw->p, order, i));
	while (sw->depth && !err)
		err = close_top(sw);
	free(sw->ev);
	free(sw->cursor);
	return err;
}

/* Samples: one unit each, consecutive ones of a thread sharing frames. */
static int chart_samples(struct svg_tree *t, const struct profile *p, const struct write_opts *o,
			 const size_t *order, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		if (new_thread(p, order, i))
			t->nopen = 1;
		err = tree_add(t, p, o, profile__event(p, order[i])->stack, 1);
	}
	return err;
}

static int build_chart(struct svg_tree *t, const struct profile *p, const struct write_opts *o)
{
	size_t n = profile__nr_events(p), *order;
	struct sweep sw = { t, p, o, NULL, NULL, 0 };
	int err;

	if (!n)
		return -ENODATA;
	if (profile__events_in_order(p, &order))
		return -ENOMEM;
	if (profile__unit(p) == UNIT_SAMPLES)
		err = chart_samples(t, p, o, order, n);
	else
		err = chart_calls(&sw, order, n);
	free(order);
	return err;
}

/* ---- drawing ---- */

/* "1,234 samples", "12.3 ms", "1,234 page-faults". */
static void format_weight(const struct svg_draw *d, uint64_t w, char *v, size_t size)
{
	char count[32];

	if (d->unit == UNIT_NANOSECONDS) {
		numfmt__ns(w, v, size);
		return;
	}
	numfmt__count(w, count, sizeof(count));
	if (d->counted)
		snprintf(v, size, "%s %s", count, d->counted);
	else
		snprintf(v, size, "%s sample%s", count, w == 1 ? "" : "s");
}

/* " (1,234 samples, 12.34%)": the script cuts titles at their last " (". */
static void put_value(const struct svg_draw *d, uint32_t i)
{
	uint64_t w = d->t->nodes[i].w;
	char v[48];

	format_weight(d, w, v, sizeof(v));
	fprintf(d->f, " (%s, %.2f%%)", v, 100.0 * w / d->total);
}

/* Stable per name (src/formats/palette.c, shared with the HTML report). */
static struct svg_rgb paint_by_name(const struct svg_tree *t, uint32_t node, void *arg)
{
	static const enum palette_role roles[] = {
		[ROLE_USER] = PALETTE_USER,
		[ROLE_KERNEL] = PALETTE_KERNEL,
		[ROLE_PROCESS] = PALETTE_PROCESS,
		[ROLE_ALL] = PALETTE_ALL,
	};
	const struct svg_name *nm = &t->names[t->nodes[node].name];
	struct palette_rgb c = palette__by_name(nm->s, roles[nm->role]);

	(void)arg;
	return (struct svg_rgb){ c.r, c.g, c.b };
}

static bool drawn(const struct svg_draw *d, uint32_t i)
{
	return !i || !narrow(d->t->nodes[i].w, d->total);
}

static void put_label(const struct svg_draw *d, const char *name, double x, double y, double w)
{
	long fit = (long)((w - 6) / CHAR_W);

	if (fit < 3)
		return;
	fprintf(d->f, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + TEXT_DY);
	xml__put(d->f, name, fit);
	fputs("</text>", d->f);
}

static void put_frame(const struct svg_draw *d, uint32_t i)
{
	const struct svg_node *n = &d->t->nodes[i];
	const char *name = d->t->names[n->name].s;
	double x = PAD_X + n->x * d->scale, w = n->w * d->scale;
	double y = d->height - PAD_BOTTOM - (n->depth + 1.0) * FRAME_H;
	struct svg_rgb c = d->paint(d->t, i, d->paint_arg);

	fprintf(d->f, "<g fg:x=\"%" PRIu64 "\" fg:w=\"%" PRIu64 "\"><title>", n->x, n->w);
	xml__put(d->f, name, SIZE_MAX);
	d->value(d, i);
	fprintf(d->f,
		"</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>",
		x, y, w, FRAME_H - 1, c.r, c.g, c.b);
	put_label(d, name, x, y, w);
	fputs("</g>\n", d->f);
}

/* In tree order; a pruned frame's callees are narrower still, so pruned
 * too. */
static void put_frames(const struct svg_draw *d)
{
	for (uint32_t i = 0; i < d->t->nnodes; i++)
		if (drawn(d, i))
			put_frame(d, i);
}

/* The title asked for, or "Flame Graph: cpu-clock samples" and the like. */
/* What the widths measure, for titles: nanoseconds are the wall time of
 * traced calls, time off the CPU (--off-cpu, by sched_switch), or both
 * on and off it (--wall). */
static const char *ns_what(const struct profile *p)
{
	if (profile__is_wall(p))
		return "wall time, on and off the CPU";
	return profile__is_offcpu(p) ? "time off the CPU" : "wall time of traced calls";
}

static int make_title(const struct profile *p, const struct write_opts *o, struct strbuf *b)
{
	const struct profile_meta *m = profile__meta(p);

	if (o->title)
		return strbuf__addf(b, "%s", o->title);
	if (strbuf__addf(b, "%s", o->flamechart ? "Flame Chart" : "Flame Graph"))
		return -ENOMEM;
	if (profile__unit(p) == UNIT_NANOSECONDS)
		return strbuf__addf(b, ": %s", ns_what(p));
	if (m->period)
		return strbuf__addf(b, ": %s", m->event);
	return strbuf__addf(b, ": %s samples", m->event[0] ? m->event : "CPU");
}

static const char *sep(const struct strbuf *b)
{
	return b->len ? ", " : "";
}

int svg__subtitle(const struct profile *p, struct strbuf *b)
{
	const struct profile_meta *m = profile__meta(p);
	int err = strbuf__addf(b, "%s", m->cmdline);

	if (!err && m->freq)
		err = strbuf__addf(b, "%s%u Hz", sep(b), m->freq);
	if (!err && m->secs > 0)
		err = strbuf__addf(b, "%s%.2f s", sep(b), m->secs);
	if (!err && m->ncpus)
		err = strbuf__addf(b, "%s%u CPUs", sep(b), m->ncpus);
	if (!err && m->kernel[0])
		err = strbuf__addf(b, "%sLinux %s", sep(b), m->kernel);
	if (!err && m->losses[0])
		err = strbuf__addf(b, "%slost: %s", sep(b), m->losses);
	return err;
}

static void put_head(const struct svg_draw *d, size_t ndrawn)
{
	fprintf(d->f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<!-- Flame graph written by flamebpf %s. %zu frames drawn; %zu frames narrower "
		"than %.1f px at %d px were pruned, with their callees. -->\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\" xmlns:fg=\"urn:x-flamebpf:svg\">\n",
		FLAMEBPF_VERSION, ndrawn, d->t->pruned + d->t->nnodes - ndrawn, MIN_PX, IMG_W,
		IMG_W, d->height, IMG_W, d->height);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	      "#title { text-anchor: middle; font-size: 17px; }\n"
	      "#subtitle { text-anchor: middle; fill: rgb(90,90,90); }\n"
	      "#matched { text-anchor: end; }\n"
	      "#search, #unzoom { cursor: pointer; }\n"
	      "#search { opacity: 0.4; }\n"
	      "#search:hover, #search.on { opacity: 1; }\n"
	      "#frames g { cursor: pointer; }\n"
	      "#frames g:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	      "#frames text { pointer-events: none; }\n"
	      ".hide { display: none; }\n"
	      ".parent { opacity: 0.5; }\n"
	      "</style>\n"
	      "<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop offset=\"0\" stop-color=\"rgb(248,248,248)\"/>"
	      "<stop offset=\"1\" stop-color=\"rgb(236,236,218)\"/></linearGradient></defs>\n",
	      d->f);
}

static void put_subtitle(const struct svg_draw *d, const char *sub)
{
	if (!sub[0])
		return;
	fprintf(d->f, "<text id=\"subtitle\" x=\"%d\" y=\"%d\">", IMG_W / 2, FONT_SIZE * 3 + 6);
	if (xml__len((const unsigned char *)sub, strlen(sub)) > TITLE_CHARS) {
		fputs("<title>", d->f);
		xml__put(d->f, sub, SIZE_MAX);
		fputs("</title>", d->f);
	}
	xml__put(d->f, sub, TITLE_CHARS);
	fputs("</text>\n", d->f);
}

static void put_titles(const struct svg_draw *d, const char *title, const char *sub)
{
	fprintf(d->f,
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"url(#background)\"/>\n",
		IMG_W, d->height);
	fprintf(d->f, "<text id=\"title\" x=\"%d\" y=\"%d\">", IMG_W / 2, FONT_SIZE * 2);
	xml__put(d->f, title, TITLE_CHARS);
	fputs("</text>\n", d->f);
	put_subtitle(d, sub);
	fprintf(d->f,
		"<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"%d\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%.0f\"> </text>\n",
		PAD_X, FONT_SIZE * 2, IMG_W - PAD_X - 100, FONT_SIZE * 2, PAD_X,
		d->height - FONT_SIZE - 5, IMG_W - PAD_X, d->height - FONT_SIZE - 5);
}

static void put_body(const struct svg_draw *d)
{
	fprintf(d->f,
		"<g id=\"frames\" fg:total=\"%" PRIu64 "\" fg:pad=\"%d\" fg:width=\"%d\" "
		"fg:charw=\"%.2f\" fg:ty=\"%.1f\">\n",
		d->t->nodes[0].w, PAD_X, FRAMES_W, CHAR_W, TEXT_DY);
	put_frames(d);
	fputs("</g>\n<script type=\"text/ecmascript\"><![CDATA[\n", d->f);
	fwrite(svg_js, 1, sizeof(svg_js) - 1, d->f);
	fputs("]]></script>\n</svg>\n", d->f);
}

/* Sizes the image for the frames that will be drawn; returns their number. */
static size_t measure(struct svg_draw *d)
{
	uint32_t depth = 0;
	size_t n = 0;

	for (size_t i = 0; i < d->t->nnodes; i++) {
		if (!drawn(d, i))
			continue;
		n++;
		if (d->t->nodes[i].depth > depth)
			depth = d->t->nodes[i].depth;
	}
	d->height = PAD_TOP + (depth + 1.0) * FRAME_H + PAD_BOTTOM;
	return n;
}

static int draw(struct svg_draw *d, const char *title, const char *sub)
{
	size_t ndrawn;

	d->total = d->t->nodes[0].w ? d->t->nodes[0].w : 1;
	d->scale = (double)FRAMES_W / d->total;
	ndrawn = measure(d);
	put_head(d, ndrawn);
	put_titles(d, title, sub);
	put_body(d);
	return ferror(d->f) ? -EIO : 0;
}

int svg__write(const struct profile *p, const struct write_opts *o, FILE *f)
{
	struct svg_tree t = {};
	struct svg_draw d = { &t, f, profile__unit(p), paint_by_name, put_value, NULL, 0,
			      0,  0, counted_of(p) };
	struct strbuf title = {}, sub = {};
	int err = tree_init(&t, p, o->flamechart);

	if (!err)
		err = o->flamechart ? build_chart(&t, p, o) : build_graph(&t, p, o);
	if (!err && (make_title(p, o, &title) || svg__subtitle(p, &sub)))
		err = -ENOMEM;
	if (!err)
		err = draw(&d, title.s, sub.s ? sub.s : "");
	strbuf__free(&title);
	strbuf__free(&sub);
	tree_free(&t);
	return err;
}

/* ---- a differential flame graph: new's shape, coloured by the change ---- */

#define ABSENT	   UINT64_MAX /* a path the base does not have */
#define FULL_FLOOR PALETTE_DIFF_FULL_FLOOR

struct diff_paint {
	uint64_t *base_w; /* per node of the new tree: the same path's weight in the base */
	uint64_t base_total, new_total;
	double full; /* the change in share drawn at full colour */
};

/* Each node's path by content, names and roles from "all" down, so that
 * paths of two trees (whose names are numbered apart) compare. */
static uint64_t *path_hashes(const struct svg_tree *t)
{
	uint64_t *h = malloc((t->nnodes + 1) * sizeof(*h)), *last = NULL;
	uint32_t depth = 0;

	for (size_t i = 0; i < t->nnodes; i++)
		depth = t->nodes[i].depth > depth ? t->nodes[i].depth : depth;
	last = calloc(depth + 1, sizeof(*last));
	for (size_t i = 0; h && last && i < t->nnodes; i++) {
		const struct svg_node *n = &t->nodes[i];
		const struct svg_name *nm = &t->names[n->name];
		uint64_t up = n->depth ? last[n->depth - 1] : 0;

		h[i] = last[n->depth] = hash_mix(up ^ hash_bytes(nm->s, strlen(nm->s), nm->role));
	}
	if (!last) {
		free(h);
		h = NULL;
	}
	free(last);
	return h;
}

/* dp->base_w: for each node of nt, the weight of the same path in bt. */
static int match_paths(const struct svg_tree *nt, const struct svg_tree *bt, struct diff_paint *dp)
{
	uint64_t *nh = path_hashes(nt), *bh = path_hashes(bt), at;
	struct hashmap base = {};
	int err = nh && bh ? 0 : -ENOMEM;

	for (size_t i = 0; i < bt->nnodes && !err; i++)
		err = hashmap__set(&base, bh[i], i);
	dp->base_w = err ? NULL : malloc((nt->nnodes + 1) * sizeof(*dp->base_w));
	if (!err && !dp->base_w)
		err = -ENOMEM;
	for (size_t i = 0; i < nt->nnodes && !err; i++)
		dp->base_w[i] = hashmap__get(&base, nh[i], &at) ? bt->nodes[at].w : ABSENT;
	hashmap__free(&base);
	free(nh);
	free(bh);
	return err;
}

static double share_change(const struct diff_paint *dp, const struct svg_tree *t, uint32_t i)
{
	double now = (double)t->nodes[i].w / dp->new_total;

	if (dp->base_w[i] == ABSENT)
		return now;
	return now - (double)dp->base_w[i] / dp->base_total;
}

/* Red grew, blue shrank (palette.c, which the HTML report shares). */
static struct svg_rgb paint_by_change(const struct svg_tree *t, uint32_t node, void *arg)
{
	const struct diff_paint *dp = arg;
	struct palette_rgb c =
		palette__by_change(share_change(dp, t, node), dp->full, dp->base_w[node] == ABSENT);

	return (struct svg_rgb){ c.r, c.g, c.b };
}

/* " (base 1,234 samples 12.30%, new 2,345 samples 20.10%, +7.80 points)" */
static void put_diff_value(const struct svg_draw *d, uint32_t i)
{
	const struct diff_paint *dp = d->paint_arg;
	uint64_t w = d->t->nodes[i].w, bw = dp->base_w[i];
	char v[48];

	if (bw == ABSENT) {
		fputs(" (base: none", d->f);
	} else {
		format_weight(d, bw, v, sizeof(v));
		fprintf(d->f, " (base %s %.2f%%", v, 100.0 * bw / dp->base_total);
	}
	format_weight(d, w, v, sizeof(v));
	fprintf(d->f, ", new %s %.2f%%, %+.2f points)", v, 100.0 * w / dp->new_total,
		100 * share_change(dp, d->t, i));
}

/* The largest change drawn is drawn fully: so the colours say where the
 * change is, whatever its size; but never a change under FULL_FLOOR. */
static void scale_colours(const struct svg_tree *nt, struct diff_paint *dp)
{
	dp->full = FULL_FLOOR;
	for (uint32_t i = 0; i < nt->nnodes; i++)
		if (dp->base_w[i] != ABSENT && !narrow(nt->nodes[i].w, dp->new_total))
			dp->full = fmax(dp->full, fabs(share_change(dp, nt, i)));
}

static int make_diff_titles(const struct profile *p, const struct write_opts *o,
			    struct strbuf *title, struct strbuf *sub)
{
	int err;

	if (o->title)
		err = strbuf__addf(title, "%s", o->title);
	else
		err = strbuf__addf(title, "Differential Flame Graph: %s",
				   profile__unit(p) == UNIT_NANOSECONDS ? ns_what(p) : "samples");
	if (!err)
		err = strbuf__addf(sub,
				   "the new profile; red: a larger share than in the base, "
				   "blue: a smaller one; frames only in the base are not drawn");
	return err;
}

static int draw_diff(const struct profile *new, const struct write_opts *o, struct svg_tree *nt,
		     struct svg_tree *bt, FILE *f)
{
	struct diff_paint dp = { NULL, bt->nodes[0].w, nt->nodes[0].w, FULL_FLOOR };
	struct svg_draw d = { nt, f, profile__unit(new), paint_by_change, put_diff_value, &dp, 0,
			      0,  0, counted_of(new) };
	struct strbuf title = {}, sub = {};
	int err = match_paths(nt, bt, &dp);

	if (!dp.base_total || !dp.new_total)
		err = err ? err : -ENODATA;
	if (!err)
		scale_colours(nt, &dp);
	if (!err && make_diff_titles(new, o, &title, &sub))
		err = -ENOMEM;
	if (!err)
		err = draw(&d, title.s, sub.s);
	strbuf__free(&title);
	strbuf__free(&sub);
	free(dp.base_w);
	return err;
}

int svg__write_diff(const struct profile *base, const struct profile *new,
		    const struct write_opts *o, FILE *f)
{
	struct write_opts go = *o;
	struct svg_tree nt = {}, bt = { .keep_narrow = true };
	int err;

	if (profile__unit(base) != profile__unit(new))
		return -EINVAL;
	go.flamechart = false;
	err = tree_init(&nt, new, false);
	if (!err)
		err = build_graph(&nt, new, &go);
	if (!err)
		err = tree_init(&bt, base, false);
	if (!err)
		err = build_graph(&bt, base, &go);
	if (!err)
		err = draw_diff(new, &go, &nt, &bt, f);
	tree_free(&nt);
	tree_free(&bt);
	return err;
}
