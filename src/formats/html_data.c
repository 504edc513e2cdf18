// SPDX-License-Identifier: GPL-2.0
/* The tables of html_data.h, built from the profile in one pass over its
 * frames and stacks, then written with the metadata; the events are
 * html_events.c's. Memory: a few words per frame, stack and call path. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/utf8.h"
#include "html_data.h"
#include "html_diff.h"
#include "html_events.h"
#include "out_folded.h"
#include "palette.h"

#ifndef FLAMEBPF_VERSION
#define FLAMEBPF_VERSION "unknown"
#endif

#define NO_PARENT UINT32_MAX

struct html_func {
	uint32_t name, module; /* strings */
	uint32_t kind;	       /* enum palette_role */
	uint32_t rgb;
};

struct html_node {
	uint32_t parent, func;
};

struct html_thread {
	uint32_t pid, tid, comm, tcomm;
};

struct html_data {
	const struct profile *p;
	const struct write_opts *o;
	char **strings;
	size_t nstrings, strings_cap;
	struct hashmap string_idx; /* hash of the bytes, probed on collisions */
	struct html_func *funcs;
	size_t nfuncs, funcs_cap;
	struct hashmap func_idx; /* (string, kind) -> func */
	uint32_t *frame_func;	 /* frame id -> func + 1 */
	struct html_node *nodes;
	size_t nnodes, nodes_cap;
	struct hashmap node_idx; /* parent << 32 | func -> node */
	struct html_thread *threads;
	size_t nthreads, threads_cap;
	struct hashmap thread_idx; /* hash of pid, tid, comm, tcomm -> thread */
	uint32_t *stack_node, *stack_thread;
	struct strbuf scratch;
};

/* ---- building ---- */

static int string_findnew(struct html_data *d, const char *s, uint32_t *idx)
{
	uint64_t h = hash_bytes(s, strlen(s), 0), i;
	char *copy;

	while (hashmap__get(&d->string_idx, h, &i)) {
		if (!strcmp(d->strings[i], s)) {
			*idx = i;
			return 0;
		}
		h = hash_mix(h + 0x9e3779b97f4a7c15ULL); /* a 64-bit collision: probe on */
	}
	copy = strdup(s);
	if (!copy ||
	    array__push((void **)&d->strings, &d->nstrings, &d->strings_cap, &copy, sizeof(copy)) ||
	    hashmap__set(&d->string_idx, h, d->nstrings - 1)) {
		free(copy);
		return -ENOMEM;
	}
	*idx = d->nstrings - 1;
	return 0;
}

static int func_findnew(struct html_data *d, const char *name, const char *module,
			enum palette_role kind, uint32_t *idx)
{
	struct html_func fn = { .kind = kind };
	uint64_t i;
	int err = string_findnew(d, name, &fn.name);

	if (err)
		return err;
	if (hashmap__get(&d->func_idx, (uint64_t)fn.name << 8 | kind, &i)) {
		*idx = i;
		return 0;
	}
	err = string_findnew(d, module, &fn.module);
	fn.rgb = palette__rgb24(name, kind);
	if (!err)
		err = array__push((void **)&d->funcs, &d->nfuncs, &d->funcs_cap, &fn, sizeof(fn));
	if (!err)
		err = hashmap__set(&d->func_idx, (uint64_t)fn.name << 8 | kind, d->nfuncs - 1);
	*idx = d->nfuncs - 1;
	return err;
}

/* Named as the SVG names it: kernel frames "NAME_[k]". */
static int frame_func(struct html_data *d, uint32_t id, uint32_t *idx)
{
	const struct frame *f = profile__frame(d->p, id);
	bool kernel = f->kind == FRAME_KERNEL;
	int err;

	if (d->frame_func[id]) {
		*idx = d->frame_func[id] - 1;
		return 0;
	}
	strbuf__reset(&d->scratch);
	if (strbuf__addf(&d->scratch, "%s%s", f->name[0] ? f->name : "[unknown]",
			 kernel ? "_[k]" : ""))
		return -ENOMEM;
	err = func_findnew(d, d->scratch.s, f->module, kernel ? PALETTE_KERNEL : PALETTE_USER, idx);
	if (!err)
		d->frame_func[id] = *idx + 1;
	return err;
}

/* COMM, COMM-PID or COMM-PID/TID, as folded output names the root. */
static int root_func(struct html_data *d, const struct stack_owner *who, uint32_t *idx)
{
	strbuf__reset(&d->scratch);
	if (strbuf__addf(&d->scratch, "%s", who->comm[0] ? who->comm : "[unknown]") ||
	    folded__append_ids(&d->scratch, who, d->o->root))
		return -ENOMEM;
	return func_findnew(d, d->scratch.s, "", PALETTE_PROCESS, idx);
}

static int node_findnew(struct html_data *d, uint32_t parent, uint32_t func, uint32_t *idx)
{
	uint64_t key = (uint64_t)parent << 32 | func, i;
	struct html_node n = { parent, func };

	if (hashmap__get(&d->node_idx, key, &i)) {
		*idx = i;
		return 0;
	}
	if (array__push((void **)&d->nodes, &d->nnodes, &d->nodes_cap, &n, sizeof(n)) ||
	    hashmap__set(&d->node_idx, key, d->nnodes - 1))
		return -ENOMEM;
	*idx = d->nnodes - 1;
	return 0;
}

/* A thread by pid, tid and names: one that exec'd during the capture is a
 * row per name, so that reading the page back gives each stack its own. */
static int thread_findnew(struct html_data *d, const struct stack_owner *who, uint32_t *idx)
{
	struct html_thread t = { who->pid, who->tid, 0, 0 };
	uint64_t key, i;

	if (string_findnew(d, who->comm, &t.comm) || string_findnew(d, who->tcomm, &t.tcomm))
		return -ENOMEM;
	key = hash_mix(((uint64_t)t.pid << 32 | t.tid) ^
		       hash_mix((uint64_t)t.comm << 32 | t.tcomm));
	while (hashmap__get(&d->thread_idx, key, &i)) {
		if (!memcmp(&d->threads[i], &t, sizeof(t))) {
			*idx = i;
			return 0;
		}
		key = hash_mix(key + 0x9e3779b97f4a7c15ULL); /* a collision: probe on */
	}
	if (array__push((void **)&d->threads, &d->nthreads, &d->threads_cap, &t, sizeof(t)) ||
	    hashmap__set(&d->thread_idx, key, d->nthreads - 1))
		return -ENOMEM;
	*idx = d->nthreads - 1;
	return 0;
}

/* The stack's call path: its root, then its frames' names. */
static int add_stack(struct html_data *d, uint32_t si)
{
	const struct profile_stack *s = profile__stack(d->p, si);
	uint32_t node, func;
	int err = root_func(d, &s->who, &func);

	if (!err)
		err = node_findnew(d, NO_PARENT, func, &node);
	for (uint32_t i = 0; i < s->nframes && !err; i++) {
		err = frame_func(d, s->frames[i], &func);
		if (!err)
			err = node_findnew(d, node, func, &node);
	}
	if (!err)
		err = thread_findnew(d, &s->who, &d->stack_thread[si]);
	d->stack_node[si] = node;
	return err;
}

static int build(struct html_data *d)
{
	size_t nstacks = profile__nr_stacks(d->p);
	int err = 0;

	d->frame_func = calloc(profile__nr_frames(d->p) + 1, sizeof(*d->frame_func));
	d->stack_node = calloc(nstacks + 1, sizeof(*d->stack_node));
	d->stack_thread = calloc(nstacks + 1, sizeof(*d->stack_thread));
	if (!d->frame_func || !d->stack_node || !d->stack_thread)
		return -ENOMEM;
	for (size_t i = 0; i < nstacks && !err; i++)
		err = add_stack(d, i);
	return err;
}

static void data_free(struct html_data *d)
{
	for (size_t i = 0; i < d->nstrings; i++)
		free(d->strings[i]);
	free(d->strings);
	hashmap__free(&d->string_idx);
	free(d->funcs);
	hashmap__free(&d->func_idx);
	free(d->frame_func);
	free(d->nodes);
	hashmap__free(&d->node_idx);
	free(d->threads);
	hashmap__free(&d->thread_idx);
	free(d->stack_node);
	free(d->stack_thread);
	strbuf__free(&d->scratch);
}

const char *html_data__mode(const struct profile *p)
{
	const char *event = profile__meta(p)->event;

	if (profile__unit(p) == UNIT_SAMPLES)
		return "sample";
	if (!strcmp(event, "sched_switch"))
		return "off-cpu";
	return strstr(event, "sched_switch") ? "wall" : "trace";
}

/* ---- writing ---- */

static void put_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, "\"%s\":", key);
	utf8__put_json_str_html(f, s);
}

static void put_meta(const struct profile *p, const struct write_opts *o, FILE *f)
{
	const struct profile_meta *m = profile__meta(p);
	bool ns = profile__unit(p) == UNIT_NANOSECONDS;

	fprintf(f, "\"version\":%d,\n\"meta\":{", HTML_DATA_VERSION);
	put_str(f, "flamebpf", FLAMEBPF_VERSION);
	fputc(',', f);
	put_str(f, "title", o->title ? o->title : "");
	fputc(',', f);
	put_str(f, "mode", html_data__mode(p));
	fprintf(f, ",\"unit\":\"%s\",", ns ? "ns" : "samples");
	put_str(f, "cmdline", m->cmdline);
	fputc(',', f);
	put_str(f, "event", m->event);
	fputc(',', f);
	put_str(f, "kernel", m->kernel);
	fputc(',', f);
	put_str(f, "host", m->host);
	fputc(',', f);
	put_str(f, "losses", m->losses);
	fprintf(f, ",\"freq\":%u,\"ncpus\":%u,\"secs\":%.6f", m->freq, m->ncpus,
		isfinite(m->secs) ? m->secs : 0);
	/* a counted event's events a sample: that its samples are events */
	fprintf(f, ",\"period\":%" PRIu64, m->period);
	fprintf(f, ",\"processes\":%zu}", profile__nr_processes(p));
}

static void put_tables(const struct html_data *d, FILE *f)
{
	fputs(",\n\"strings\":[", f);
	for (size_t i = 0; i < d->nstrings; i++) {
		fputs(i ? (i % 16 ? "," : ",\n") : "", f);
		utf8__put_json_str_html(f, d->strings[i]);
	}
	fputs("],\n\"funcs\":[", f);
	for (size_t i = 0; i < d->nfuncs; i++)
		fprintf(f, "%s%u,%u,%u,%u", i ? (i % 16 ? "," : ",\n") : "", d->funcs[i].name,
			d->funcs[i].module, d->funcs[i].kind, d->funcs[i].rgb);
	fputs("],\n\"nodes\":[", f);
	for (size_t i = 0; i < d->nnodes; i++)
		fprintf(f, "%s%d,%u", i ? (i % 32 ? "," : ",\n") : "",
			d->nodes[i].parent == NO_PARENT ? -1 : (int)d->nodes[i].parent,
			d->nodes[i].func);
	fputs("],\n\"threads\":[", f);
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct html_thread *t = &d->threads[i];

		fprintf(f, "%s%" PRId64 ",%u,%u,%u", i ? ",\n" : "",
			t->pid == PROFILE_PID_UNKNOWN ? -1 : (int64_t)t->pid, t->tid, t->comm,
			t->tcomm);
	}
}

static void put_stacks(const struct html_data *d, FILE *f)
{
	fputs("],\n\"stacks\":[", f);
	for (size_t i = 0; i < profile__nr_stacks(d->p); i++) {
		const struct profile_stack *s = profile__stack(d->p, i);

		fprintf(f, "%s%u,%u,%" PRIu64 ",%" PRIu64, i ? (i % 8 ? "," : ",\n") : "",
			d->stack_node[i], d->stack_thread[i], s->weight, s->count);
	}
	fputs("]", f);
	if (!profile__is_wall(d->p))
		return;
	fputs(",\n\"sampled\":[", f);
	for (size_t i = 0, n = 0; i < profile__nr_stacks(d->p); i++)
		if (!profile__stack_is_offcpu(d->p, profile__stack(d->p, i)))
			fprintf(f, "%s%zu", n++ ? (n % 32 ? "," : ",\n") : "", i);
	fputs("]", f);
}

/* ---- a differential report ---- */

/* Each node's path by content (names and kinds from the root), so that
 * the nodes of two trees, whose strings are numbered apart, compare. */
static uint64_t *node_hashes(const struct html_data *d)
{
	uint64_t *h = malloc((d->nnodes + 1) * sizeof(*h));

	for (size_t i = 0; h && i < d->nnodes; i++) {
		const struct html_func *fn = &d->funcs[d->nodes[i].func];
		const char *name = d->strings[fn->name];
		uint64_t up = d->nodes[i].parent == NO_PARENT ? 0 : h[d->nodes[i].parent];

		h[i] = hash_mix(up ^ hash_bytes(name, strlen(name), fn->kind));
	}
	return h;
}

/* Each node's inclusive weight (a parent comes before its children). */
static uint64_t *node_weights(const struct html_data *d, uint64_t *total)
{
	uint64_t *w = calloc(d->nnodes + 1, sizeof(*w));

	*total = 0;
	for (size_t s = 0; w && s < profile__nr_stacks(d->p); s++) {
		w[d->stack_node[s]] += profile__stack(d->p, s)->weight;
		*total += profile__stack(d->p, s)->weight;
	}
	for (size_t i = d->nnodes; w && i-- > 0;)
		if (d->nodes[i].parent != NO_PARENT)
			w[d->nodes[i].parent] += w[i];
	return w;
}

/* out->base_w: for each node of d, the same path's weight in b. */
static int match_base(const struct html_data *d, const struct html_data *b,
		      struct html_diff_nodes *out, uint64_t *base_w)
{
	uint64_t *nh = node_hashes(d), *bh = node_hashes(b),
		 *bw = node_weights(b, &out->base_total);
	struct hashmap base = {};
	int err = nh && bh && bw ? 0 : -ENOMEM;
	uint64_t at;

	for (size_t i = 0; i < b->nnodes && !err; i++)
		err = hashmap__set(&base, bh[i], i);
	for (size_t i = 0; i < d->nnodes && !err; i++)
		base_w[i] = hashmap__get(&base, nh[i], &at) ? bw[at] : HTML_DIFF_ABSENT;
	hashmap__free(&base);
	free(nh);
	free(bh);
	free(bw);
	return err;
}

static int put_diff(const struct html_data *d, const struct html_diff *diff, FILE *f)
{
	struct html_data b = { .p = diff->base, .o = d->o };
	struct html_diff_nodes t = { .n = d->nnodes };
	uint64_t *new_w = node_weights(d, &t.new_total);
	uint64_t *base_w = malloc((d->nnodes + 1) * sizeof(*base_w));
	int err = new_w && base_w ? build(&b) : -ENOMEM;

	if (!err)
		err = match_base(d, &b, &t, base_w);
	t.new_w = new_w;
	t.base_w = base_w;
	if (!err && (!t.new_total || !t.base_total))
		err = -ENODATA;
	if (!err)
		err = html_diff__write(diff, &t, f);
	data_free(&b);
	free(new_w);
	free(base_w);
	return err;
}

static int write_data(const struct profile *p, const struct html_diff *diff,
		      const struct write_opts *o, FILE *f)
{
	struct html_data d = { .p = p, .o = o };
	int err = build(&d);

	if (!err) {
		fputc('{', f);
		put_meta(p, o, f);
		put_tables(&d, f);
		put_stacks(&d, f);
		err = html_events__write(p, f);
		if (!err && diff)
			err = put_diff(&d, diff, f);
		fputs("}", f);
	}
	if (!err && ferror(f))
		err = -EIO;
	data_free(&d);
	return err;
}

int html_data__write(const struct profile *p, const struct write_opts *o, FILE *f)
{
	return write_data(p, NULL, o, f);
}

int html_data__write_diff(const struct profile *new, const struct html_diff *diff,
			  const struct write_opts *o, FILE *f)
{
	return write_data(new, diff, o, f);
}
