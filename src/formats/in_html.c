// SPDX-License-Identifier: GPL-2.0
/* An HTML report read back (flamebpf render run.html): the JSON of its
 * element #flamebpf-data, decoded as the page's script decodes it (the
 * tables of html_data.h), into the profile it was written from: a stack
 * per stack row, its frames the names of its call path (kernel ones
 * without their "_[k]"), its owner the row's thread; the events when a
 * timeline output asks for them. Every index is checked before it is
 * followed: a page that is no flamebpf report, or a damaged one, fails
 * with the table and row that are wrong. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "util/strbuf.h"
#include "html_data.h"
#include "in.h"
#include "json_arg.h"
#include "json_u64.h"

#define DATA_OPEN  "id=\"flamebpf-data\">"
#define DATA_CLOSE "</script>"
#define KIND_ROOT  2
#define NO_FRAME   UINT32_MAX

struct html_in {
	struct in_ctx *c;
	struct json_object *top;
	struct json_object *strings, *funcs, *nodes, *threads, *stacks;
	size_t nstrings, nfuncs, nnodes, nthreads, nstacks;
	uint32_t *func_frame; /* func -> frame id, NO_FRAME until made */
	uint32_t *stack_map;  /* stack row -> the profile's stack */
	uint32_t *path;	      /* frames of the stack being added */
};

/* ---- finding the data ---- */

/* The text between the data element's start tag and its end tag, which
 * the writer puts on lines of their own. */
static int read_data(struct in_ctx *c, struct strbuf *json)
{
	ssize_t n;
	bool in = false;

	while ((n = in__getline(c)) >= 0) {
		if (!in) {
			in = strstr(c->buf, DATA_OPEN) != NULL;
			continue;
		}
		if (!strncmp(c->buf, DATA_CLOSE, strlen(DATA_CLOSE)))
			return 0;
		if (strbuf__add(json, c->buf, (size_t)n) || strbuf__add(json, "\n", 1))
			return in__fail_errno(c, -ENOMEM);
	}
	if (n != -1)
		return (int)n;
	if (!in)
		return in__fail_at(c, -EINVAL,
				   "no flamebpf data in it (an HTML page, but not "
				   "a flamebpf report)");
	return in__fail_at(c, -EINVAL, "the report's data is cut short (no end of its element)");
}

static int parse(struct html_in *h, const struct strbuf *json)
{
	json_tokener *tok = json_tokener_new_ex(64);
	enum json_tokener_error jerr;

	if (!tok)
		return in__fail_errno(h->c, -ENOMEM);
	h->top = json_tokener_parse_ex(tok, json->s ? json->s : "", (int)json->len);
	jerr = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (!h->top || jerr != json_tokener_success) {
		json_object_put(h->top);
		h->top = NULL;
		if (jerr == json_tokener_continue || jerr == json_tokener_success)
			return in__fail_at(h->c, -EINVAL, "the report's data is cut short");
		return in__fail_at(h->c, -EINVAL, "the report's data is not JSON: %s",
				   json_tokener_error_desc(jerr));
	}
	if (!json_object_is_type(h->top, json_type_object))
		return in__fail_at(h->c, -EINVAL, "the report's data is not a JSON object");
	return 0;
}

/* ---- the tables ---- */

static int bad(struct html_in *h, const char *table, size_t row, const char *why)
{
	return in__fail_at(h->c, -EINVAL, "bad report data: %s row %zu: %s", table, row, why);
}

/* The array under key, its length a multiple of width: *rows rows. */
static int table(struct html_in *h, const char *key, size_t width, struct json_object **out,
		 size_t *rows)
{
	struct json_object *a;

	if (!json_object_object_get_ex(h->top, key, &a) || !json_object_is_type(a, json_type_array))
		return in__fail_at(h->c, -EINVAL, "bad report data: no '%s' table", key);
	if (json_object_array_length(a) % width)
		return in__fail_at(h->c, -EINVAL, "bad report data: the '%s' table is cut short",
				   key);
	*out = a;
	*rows = json_object_array_length(a) / width;
	return 0;
}

/* Cell col of row in table a: an integer in [min, max], into *v. */
static int cell(struct html_in *h, const char *name, struct json_object *a, size_t width,
		size_t row, size_t col, int64_t min, int64_t max, int64_t *v)
{
	struct json_object *o = json_object_array_get_idx(a, row * width + col);

	if (!json_object_is_type(o, json_type_int))
		return bad(h, name, row, "not an integer");
	errno = 0;
	*v = json_object_get_int64(o);
	if (errno || *v < min || *v > max)
		return bad(h, name, row, "a number out of range");
	return 0;
}

static const char *string_at(struct html_in *h, int64_t i)
{
	return json_object_get_string(json_object_array_get_idx(h->strings, (size_t)i));
}

static int check_strings(struct html_in *h)
{
	for (size_t i = 0; i < h->nstrings; i++)
		if (!json_object_is_type(json_object_array_get_idx(h->strings, i),
					 json_type_string))
			return bad(h, "strings", i, "not a string");
	return 0;
}

static int tables(struct html_in *h)
{
	struct json_object *v;
	int err;

	if (!json_object_object_get_ex(h->top, "version", &v) ||
	    json_object_get_int(v) != HTML_DATA_VERSION)
		return in__fail_at(h->c, -EINVAL,
				   "the report's data is of version %d; this flamebpf reads %d",
				   v ? json_object_get_int(v) : 0, HTML_DATA_VERSION);
	err = table(h, "strings", 1, &h->strings, &h->nstrings);
	if (!err)
		err = check_strings(h);
	if (!err)
		err = table(h, "funcs", 4, &h->funcs, &h->nfuncs);
	if (!err)
		err = table(h, "nodes", 2, &h->nodes, &h->nnodes);
	if (!err)
		err = table(h, "threads", 4, &h->threads, &h->nthreads);
	if (!err)
		err = table(h, "stacks", 4, &h->stacks, &h->nstacks);
	return err;
}

/* ---- the metadata ---- */

static const char *meta_str(struct json_object *meta, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(meta, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

static double meta_num(struct json_object *meta, const char *key, double max)
{
	struct json_object *v;
	double d;

	if (!json_object_object_get_ex(meta, key, &v))
		return 0;
	d = json_object_get_double(v);
	return d >= 0 && d <= max ? d : 0;
}

/* The unit and event the mode says (html_data__mode() backwards). */
/* The events' first time, events.t0: a decimal string, as JSON numbers
 * cannot hold every uint64_t. */
static uint64_t events_t0(struct json_object *ev)
{
	struct json_object *t0 = NULL;
	const char *s;

	json_object_object_get_ex(ev, "t0", &t0);
	s = json_object_get_string(t0);
	return strtoull(s ? s : "0", NULL, 10);
}

/* The capture's start: events.lead before its first event; 0 if not given. */
static uint64_t capture_start(struct json_object *top)
{
	struct json_object *ev, *lead;
	uint64_t t0;
	int64_t l;

	if (!json_object_object_get_ex(top, "events", &ev) ||
	    !json_object_object_get_ex(ev, "lead", &lead))
		return 0;
	t0 = events_t0(ev);
	l = json_object_get_int64(lead);
	return l >= 0 && (uint64_t)l < t0 ? t0 - (uint64_t)l : 0;
}

static int read_meta(struct html_in *h)
{
	struct json_object *meta = NULL;
	struct profile_meta m = { 0 };
	const char *mode;

	json_object_object_get_ex(h->top, "meta", &meta);
	mode = meta_str(meta, "mode");
	if (!strcmp(meta_str(meta, "unit"), "ns"))
		profile__set_unit(h->c->p, UNIT_NANOSECONDS);
	m.cmdline = meta_str(meta, "cmdline");
	m.event = !strcmp(mode, "off-cpu") ? PROFILE_EVENT_OFFCPU
		  : !strcmp(mode, "wall")  ? PROFILE_EVENT_WALL
					   : meta_str(meta, "event");
	m.kernel = meta_str(meta, "kernel");
	m.host = meta_str(meta, "host");
	m.losses = meta_str(meta, "losses");
	m.freq = (unsigned int)meta_num(meta, "freq", UINT_MAX);
	m.ncpus = (unsigned int)meta_num(meta, "ncpus", UINT_MAX);
	m.secs = meta_num(meta, "secs", 1e12);
	m.start_ns = capture_start(h->top);
	m.period = (uint64_t)meta_num(meta, "period", 1e15);
	return profile__set_meta(h->c->p, &m) ? in__fail_errno(h->c, -ENOMEM) : 0;
}

/* ---- the stacks ---- */

/* The frame of a func: its name as drawn, less the "_[k]" of a kernel one. */
static int func_frame(struct html_in *h, int64_t fn, uint32_t *id)
{
	int64_t name, module, kind;
	struct strbuf b = { 0 };
	int err;

	if (h->func_frame[fn] != NO_FRAME) {
		*id = h->func_frame[fn];
		return 0;
	}
	err = cell(h, "funcs", h->funcs, 4, fn, 0, 0, (int64_t)h->nstrings - 1, &name);
	if (!err)
		err = cell(h, "funcs", h->funcs, 4, fn, 1, 0, (int64_t)h->nstrings - 1, &module);
	if (!err)
		err = cell(h, "funcs", h->funcs, 4, fn, 2, 0, 3, &kind);
	if (err)
		return err;
	if (kind == KIND_ROOT)
		return bad(h, "funcs", fn, "a process's name inside a stack");
	if (strbuf__add(&b, string_at(h, name), strlen(string_at(h, name))))
		return in__fail_errno(h->c, -ENOMEM);
	if (kind == FRAME_KERNEL && b.len >= 4 && !strcmp(b.s + b.len - 4, "_[k]"))
		b.s[b.len -= 4] = '\0';
	err = profile__findnew_frame(h->c->p, b.s, string_at(h, module),
				     kind == FRAME_KERNEL ? FRAME_KERNEL : FRAME_USER, id);
	strbuf__free(&b);
	if (err)
		return in__fail_errno(h->c, err);
	h->func_frame[fn] = *id;
	return 0;
}

/* The frames of node n's call path, root first, less the root (the
 * process): *n frames into h->path. Parents come before their children,
 * so the walk up ends. */
static int node_path(struct html_in *h, int64_t node, uint32_t *nframes)
{
	uint32_t depth = 0;
	int64_t up, fn;
	int err;

	for (int64_t n = node; n >= 0; n = up) {
		err = cell(h, "nodes", h->nodes, 2, n, 0, -1, n - 1, &up);
		if (!err)
			err = cell(h, "nodes", h->nodes, 2, n, 1, 0, (int64_t)h->nfuncs - 1, &fn);
		if (err)
			return err;
		if (up < 0)
			break;
		err = func_frame(h, fn, &h->path[depth++]);
		if (err)
			return err;
	}
	for (uint32_t i = 0; i < depth / 2; i++) {
		uint32_t t = h->path[i];

		h->path[i] = h->path[depth - 1 - i];
		h->path[depth - 1 - i] = t;
	}
	*nframes = depth;
	return 0;
}

static int thread_of(struct html_in *h, int64_t t, struct stack_owner *who)
{
	int64_t pid, tid, comm, tcomm;
	int64_t last = (int64_t)h->nstrings - 1;
	int err = cell(h, "threads", h->threads, 4, t, 0, -1, UINT32_MAX - 1, &pid);

	if (!err)
		err = cell(h, "threads", h->threads, 4, t, 1, 0, UINT32_MAX, &tid);
	if (!err)
		err = cell(h, "threads", h->threads, 4, t, 2, 0, last, &comm);
	if (!err)
		err = cell(h, "threads", h->threads, 4, t, 3, 0, last, &tcomm);
	if (err)
		return err;
	*who = (struct stack_owner){ .pid = pid < 0 ? PROFILE_PID_UNKNOWN : (uint32_t)pid,
				     .tid = (uint32_t)tid,
				     .comm = string_at(h, comm),
				     .tcomm = string_at(h, tcomm) };
	return 0;
}

static int add_stack(struct html_in *h, size_t s)
{
	int64_t node, thread, weight, count;
	struct stack_owner who;
	uint32_t nframes;
	int err = cell(h, "stacks", h->stacks, 4, s, 0, 0, (int64_t)h->nnodes - 1, &node);

	if (!err)
		err = cell(h, "stacks", h->stacks, 4, s, 1, 0, (int64_t)h->nthreads - 1, &thread);
	if (!err)
		err = cell(h, "stacks", h->stacks, 4, s, 2, 0, INT64_MAX, &weight);
	if (!err)
		err = cell(h, "stacks", h->stacks, 4, s, 3, 0, INT64_MAX, &count);
	if (!err)
		err = node_path(h, node, &nframes);
	if (!err)
		err = thread_of(h, thread, &who);
	if (err)
		return err;
	if (profile__add_stack_count(h->c->p, &who, h->path, nframes, (uint64_t)weight,
				     (uint64_t)count))
		return in__fail_errno(h->c, -ENOMEM);
	h->stack_map[s] = profile__last_stack(h->c->p);
	return 0;
}

static int stacks(struct html_in *h)
{
	int err = 0;

	h->func_frame = malloc((h->nfuncs + 1) * sizeof(*h->func_frame));
	h->stack_map = malloc((h->nstacks + 1) * sizeof(*h->stack_map));
	h->path = malloc((h->nnodes + 1) * sizeof(*h->path));
	if (!h->func_frame || !h->stack_map || !h->path)
		return in__fail_errno(h->c, -ENOMEM);
	memset(h->func_frame, 0xff, (h->nfuncs + 1) * sizeof(*h->func_frame));
	for (size_t s = 0; s < h->nstacks && !err; s++)
		err = add_stack(h, s);
	h->c->st->records = h->nstacks;
	return err;
}

/* ---- the events ---- */

/* Column key of the events, n rows of width values; NULL where it is
 * optional and absent. */
static int column(struct html_in *h, struct json_object *ev, const char *key, size_t n,
		  size_t width, bool needed, struct json_object **out)
{
	*out = NULL;
	if (!json_object_object_get_ex(ev, key, out)) {
		if (!needed)
			return 0;
		return in__fail_at(h->c, -EINVAL, "bad report data: no events '%s' column", key);
	}
	if (!json_object_is_type(*out, json_type_array) ||
	    json_object_array_length(*out) / width != n || json_object_array_length(*out) % width)
		return in__fail_at(h->c, -EINVAL,
				   "bad report data: the events' '%s' column is not %zu long", key,
				   n * width);
	return 0;
}

/* A traced call's arguments and return (events.args), as out_chrome
 * writes them; a null return is a call whose return never came. */
static int call_args(struct html_in *h, struct json_object *a, size_t i, struct profile_event *ev)
{
	const size_t width = PROFILE_NARGS + 1;
	struct json_object *ret = json_object_array_get_idx(a, i * width + PROFILE_NARGS);

	for (size_t k = 0; k < PROFILE_NARGS; k++)
		if (json_u64__get(json_object_array_get_idx(a, i * width + k), &ev->args[k]))
			return bad(h, "events.args", i, "not an unsigned integer");
	if (!ret) {
		ev->flags |= PROFILE_EVENT_UNFINISHED;
		return 0;
	}
	return json_u64__get(ret, &ev->ret) ? bad(h, "events.args", i, "not an unsigned integer")
					    : 0;
}

/* A probe's hit's arguments (events.hits): numbers, signed ones, strings. */
static int hit_args(struct html_in *h, struct json_object *a, size_t i, struct profile_event *ev)
{
	ev->flags |= PROFILE_EVENT_INSTANT;
	for (size_t k = 0; k < PROFILE_NARGS; k++) {
		int err = json_arg__get(json_object_array_get_idx(a, i * PROFILE_NARGS + k),
					h->c->p, ev, k);

		if (err)
			return err == -ENOMEM
				       ? in__fail_errno(h->c, err)
				       : bad(h, "events.hits", i, "not a number or {\"s\":string}");
	}
	return 0;
}

static int add_event(struct html_in *h, struct json_object **cols, size_t i, uint64_t *ts)
{
	struct profile_event ev = { 0 };
	int64_t stack, dt, dur = 0, w = 0;
	int err = cell(h, "events.stack", cols[0], 1, i, 0, 0, (int64_t)h->nstacks - 1, &stack);

	if (!err)
		err = cell(h, "events.dt", cols[1], 1, i, 0, 0, INT64_MAX, &dt);
	if (!err && cols[2])
		err = cell(h, "events.dur", cols[2], 1, i, 0, 0, INT64_MAX, &dur);
	if (!err && cols[3])
		err = call_args(h, cols[3], i, &ev);
	if (!err && cols[5])
		err = hit_args(h, cols[5], i, &ev);
	if (!err && cols[4])
		err = cell(h, "events.w", cols[4], 1, i, 0, 0, INT64_MAX, &w);
	if (err)
		return err;
	*ts += (uint64_t)dt;
	ev.stack = h->stack_map[stack];
	ev.ts = *ts;
	ev.dur = (uint64_t)dur;
	ev.weight = (uint64_t)w;
	return profile__add_stack_event(h->c->p, &ev) ? in__fail_errno(h->c, -ENOMEM) : 0;
}

static int events(struct html_in *h)
{
	struct json_object *ev, *cols[6], *t0;
	uint64_t ts;
	size_t n;
	int err;

	if (!h->c->o->keep_events)
		return 0;
	if (!json_object_object_get_ex(h->top, "events", &ev) ||
	    !json_object_object_get_ex(ev, "n", &t0) || json_object_get_int64(t0) < 0)
		return in__fail_at(h->c, -EINVAL, "bad report data: no events");
	n = (size_t)json_object_get_int64(t0);
	err = column(h, ev, "stack", n, 1, true, &cols[0]);
	if (!err)
		err = column(h, ev, "dt", n, 1, true, &cols[1]);
	if (!err)
		err = column(h, ev, "dur", n, 1, false, &cols[2]);
	if (!err)
		err = column(h, ev, "args", n, PROFILE_NARGS + 1, false, &cols[3]);
	if (!err)
		err = column(h, ev, "w", n, 1, false, &cols[4]);
	if (!err)
		err = column(h, ev, "hits", n, PROFILE_NARGS, false, &cols[5]);
	if (err)
		return err;
	ts = events_t0(ev);
	for (size_t i = 0; i < n && !err; i++)
		err = add_event(h, cols, i, &ts);
	return err;
}

int in_html__read(struct in_ctx *c)
{
	struct html_in h = { .c = c };
	struct strbuf json = { 0 };
	int err = read_data(c, &json);

	if (!err)
		err = parse(&h, &json);
	strbuf__free(&json);
	if (!err)
		err = tables(&h);
	if (!err)
		err = read_meta(&h);
	if (!err)
		err = stacks(&h);
	if (!err)
		err = events(&h);
	json_object_put(h.top);
	free(h.func_frame);
	free(h.stack_map);
	free(h.path);
	return err;
}
