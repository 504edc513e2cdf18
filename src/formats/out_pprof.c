// SPDX-License-Identifier: GPL-2.0
/*
 * pprof: the profile as a perftools.profiles.Profile message (built from
 * proto/profile.proto by protoc-c), packed by protobuf-c straight into a
 * gzip stream. Locations are the profile's frames (id = frame id + 1), one
 * function per name and binary, one mapping per binary; a sample is a stack
 * with its owner as labels.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gen/profile.pb-c.h"
#include "util/hashmap.h"
#include "out_pprof.h"
#include "strtab.h"

#define NSEC_PER_SEC 1000000000ULL
#define MAX_VALUES   PROFILE_MAX_TYPES /* several -e's; --alloc's four */
/* pid, tid, comm, thread; --span's span and span_label; the process's */
#define MAX_LABELS    (6 + PROC_LABELS_MAX)
#define MAX_COMMENTS  4
#define KERNEL_BINARY "[kernel.kallsyms]"
#define GZ_CHUNK      (64 * 1024)

struct pprof {
	const struct profile *p;
	const struct proc_labeler *procs;
	struct strtab st;
	Perftools__Profiles__Profile msg;
	Perftools__Profiles__ValueType types[MAX_VALUES], period_type;
	Perftools__Profiles__ValueType *type_ptrs[MAX_VALUES];
	Perftools__Profiles__Function *funcs, **func_ptrs;
	struct hashmap func_idx; /* name index << 32 | file index -> function index */
	Perftools__Profiles__Mapping *maps, **map_ptrs;
	struct hashmap map_idx; /* filename index -> mapping index */
	Perftools__Profiles__Location *locs, **loc_ptrs;
	Perftools__Profiles__Line *lines, **line_ptrs;
	Perftools__Profiles__Sample *samples, **sample_ptrs;
	Perftools__Profiles__Label *labels, **label_ptrs;
	uint64_t *loc_ids;
	int64_t *values;
	int64_t comments[MAX_COMMENTS];
	int64_t label_key[MAX_LABELS];
};

/* The binary a frame belongs to: its mapping, and its function's file. */
static const char *frame_binary(const struct frame *f)
{
	if (f->kind == FRAME_KERNEL)
		return KERNEL_BINARY;
	return f->dso[0] ? f->dso : f->module;
}

static void map_widen(Perftools__Profiles__Mapping *m, uint64_t addr)
{
	if (!addr)
		return;
	if (!m->memory_limit || addr < m->memory_start)
		m->memory_start = addr;
	if (addr >= m->memory_limit)
		m->memory_limit = addr + 1;
}

/* The mapping of f's binary (made on first sight), widened to f's address;
 * 0 in *id when the frame names no binary. */
static int mapping_findnew(struct pprof *b, const struct frame *f, uint64_t *id)
{
	Perftools__Profiles__Mapping *m;
	int64_t file;
	uint64_t i;

	*id = 0;
	if (!frame_binary(f)[0])
		return 0;
	if (strtab__findnew(&b->st, frame_binary(f), &file))
		return -ENOMEM;
	if (!hashmap__get(&b->map_idx, (uint64_t)file, &i)) {
		i = b->msg.n_mapping++;
		if (hashmap__set(&b->map_idx, (uint64_t)file, i))
			return -ENOMEM;
		m = &b->maps[i];
		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->filename = file;
		m->has_functions = true; /* names come with the profile */
		b->map_ptrs[i] = m;
	}
	m = &b->maps[i];
	if (!m->build_id && f->build_id[0] && strtab__findnew(&b->st, f->build_id, &m->build_id))
		return -ENOMEM;
	map_widen(m, f->addr);
	*id = m->id;
	return 0;
}

/* How early a binary's mapping comes: consumers take the first mapping for
 * the main binary, so executables, then libraries, then the kernel. */
static int binary_rank(const struct frame *f)
{
	const char *bin = frame_binary(f), *base = strrchr(bin, '/'), *so;

	if (f->kind == FRAME_KERNEL || bin[0] == '[')
		return 2;
	so = strstr(base ? base : bin, ".so");
	return so && (so[3] == '\0' || so[3] == '.') ? 1 : 0;
}

/* The mappings, by rank, each rank in the order its frames were made. */
static int add_mappings(struct pprof *b)
{
	size_t n = profile__nr_frames(b->p);
	uint64_t id;

	for (int rank = 0; rank < 3; rank++) {
		for (uint32_t i = 0; i < n; i++) {
			const struct frame *f = profile__frame(b->p, i);

			if (binary_rank(f) == rank && mapping_findnew(b, f, &id))
				return -ENOMEM;
		}
	}
	return 0;
}

static int function_findnew(struct pprof *b, const struct frame *f, uint64_t *id)
{
	Perftools__Profiles__Function *fn;
	int64_t name, file;
	uint64_t key, i;

	if (strtab__findnew(&b->st, f->name[0] ? f->name : "[unknown]", &name) ||
	    strtab__findnew(&b->st, frame_binary(f), &file))
		return -ENOMEM;
	key = (uint64_t)name << 32 | (uint64_t)file;
	if (!hashmap__get(&b->func_idx, key, &i)) {
		i = b->msg.n_function++;
		if (hashmap__set(&b->func_idx, key, i))
			return -ENOMEM;
		fn = &b->funcs[i];
		perftools__profiles__function__init(fn);
		fn->id = i + 1;
		fn->name = fn->system_name = name;
		fn->filename = file;
		b->func_ptrs[i] = fn;
	}
	*id = i + 1;
	return 0;
}

/* One location per frame, with the frame's address and one line. */
static int add_locations(struct pprof *b)
{
	size_t n = profile__nr_frames(b->p);

	for (uint32_t i = 0; i < n; i++) {
		const struct frame *f = profile__frame(b->p, i);
		Perftools__Profiles__Location *l = &b->locs[i];
		Perftools__Profiles__Line *line = &b->lines[i];

		perftools__profiles__location__init(l);
		perftools__profiles__line__init(line);
		if (function_findnew(b, f, &line->function_id) ||
		    mapping_findnew(b, f, &l->mapping_id))
			return -ENOMEM;
		l->id = i + 1;
		l->address = f->addr;
		l->n_line = 1;
		b->line_ptrs[i] = line;
		l->line = &b->line_ptrs[i];
		b->loc_ptrs[i] = l;
	}
	b->msg.n_location = n;
	return 0;
}

static bool has_time(const struct pprof *b)
{
	return profile__unit(b->p) == UNIT_NANOSECONDS || profile__meta(b->p)->freq;
}

static bool has_count(const struct pprof *b)
{
	return profile__unit(b->p) == UNIT_SAMPLES || profile__total_count(b->p);
}

/* --alloc: [alloc_objects, alloc_space, inuse_objects, inuse_space], from
 * the view the weight is and the other one. */
static size_t alloc_values(const struct pprof *b, const struct profile_stack *s, int64_t *v)
{
	bool live = profile__meta(b->p)->alloc == PROFILE_ALLOC_LIVE;

	v[0] = (int64_t)(live ? s->other_count : s->count);
	v[1] = (int64_t)(live ? s->other : s->weight);
	v[2] = (int64_t)(live ? s->count : s->other_count);
	v[3] = (int64_t)(live ? s->weight : s->other);
	return 4;
}

/* A stack's values, in the order of add_sample_types(); returns how many. */
static size_t stack_values(const struct pprof *b, size_t i, int64_t *v)
{
	const struct profile_stack *s = profile__stack(b->p, i);
	unsigned int freq = profile__meta(b->p)->freq;
	size_t n = 0;

	if (profile__meta(b->p)->alloc)
		return alloc_values(b, s, v);
	if (profile__meta(b->p)->ntypes) {
		for (unsigned int t = 0; t < profile__meta(b->p)->ntypes; t++)
			v[t] = t == s->type ? (int64_t)s->weight : 0;
		return profile__meta(b->p)->ntypes;
	}
	if (profile__unit(b->p) == UNIT_NANOSECONDS) {
		if (has_count(b))
			v[n++] = (int64_t)s->count;
		v[n++] = (int64_t)s->weight;
		return n;
	}
	if (profile__meta(b->p)->period) {
		if (profile__total_count(b->p))
			v[n++] = (int64_t)s->count;
		v[n++] = (int64_t)s->weight;
		return n;
	}
	v[n++] = (int64_t)s->weight;
	if (freq)
		v[n++] = (int64_t)((s->weight * NSEC_PER_SEC + freq / 2) / freq);
	return n;
}

static void set_label(Perftools__Profiles__Label *l, int64_t key, int64_t str, int64_t num)
{
	perftools__profiles__label__init(l);
	l->key = key;
	l->str = str;
	l->num = num;
}

/* pid and tid as numbers, the process and thread names when known. */
/* --span: the sample's innermost span, "[req GET /users]", as the labels
 * span=req and span_label=GET /users, which Pyroscope and Parca filter by. */
static int add_span_labels(struct pprof *b, const struct profile_stack *s,
			   Perftools__Profiles__Label *l, size_t *n)
{
	const struct frame *f = profile__stack_span(b->p, s);
	size_t len = f ? strlen(f->name) : 0, name_len;
	int64_t key, name, label;
	char *copy;
	int err;

	if (len < 3 || f->name[0] != '[' || f->name[len - 1] != ']')
		return 0;
	name_len = strcspn(f->name + 1, " ]");
	copy = strndup(f->name + 1, len - 2);
	if (!copy)
		return -ENOMEM;
	copy[name_len] = '\0';
	err = strtab__findnew(&b->st, "span", &key)
		      ?: strtab__findnew_named(&b->st, "", copy, &name);
	if (!err)
		set_label(&l[(*n)++], key, name, 0);
	if (!err && name_len + 1 < len - 2) {
		err = strtab__findnew(&b->st, "span_label", &key)
			      ?: strtab__findnew_named(&b->st, "", copy + name_len + 1, &label);
		if (!err)
			set_label(&l[(*n)++], key, label, 0);
	}
	free(copy);
	return err;
}

/* What the labeler knows of the process (build-id, cgroup), as labels. */
static int add_proc_labels(struct pprof *b, uint32_t pid, Perftools__Profiles__Label *l, size_t *n)
{
	const struct proc_label *pl;
	size_t np =
		b->procs && pid != PROFILE_PID_UNKNOWN ? b->procs->get(b->procs->arg, pid, &pl) : 0;
	int64_t key, value;

	for (size_t i = 0; i < np && i < PROC_LABELS_MAX; i++) {
		if (strtab__findnew(&b->st, pl[i].key, &key) ||
		    strtab__findnew(&b->st, pl[i].value, &value))
			return -ENOMEM;
		set_label(&l[(*n)++], key, value, 0);
	}
	return 0;
}

static int add_labels(struct pprof *b, const struct profile_stack *s,
		      Perftools__Profiles__Sample *smp, size_t at)
{
	const struct stack_owner *who = &s->who;
	Perftools__Profiles__Label *l = &b->labels[at];
	int64_t comm, thread;
	size_t n = 0;

	if (strtab__findnew(&b->st, who->comm, &comm) ||
	    strtab__findnew(&b->st, who->tcomm, &thread))
		return -ENOMEM;
	if (who->pid != PROFILE_PID_UNKNOWN)
		set_label(&l[n++], b->label_key[0], 0, who->pid);
	set_label(&l[n++], b->label_key[1], 0, who->tid);
	if (comm)
		set_label(&l[n++], b->label_key[2], comm, 0);
	if (thread)
		set_label(&l[n++], b->label_key[3], thread, 0);
	if (add_span_labels(b, s, l, &n) || add_proc_labels(b, who->pid, l, &n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		b->label_ptrs[at + i] = &l[i];
	smp->label = &b->label_ptrs[at];
	smp->n_label = n;
	return 0;
}

/* The sample of stack i: its locations leaf first. Stacks with nothing to
 * count (made only for an event with no weight) are left out. */
static int add_sample(struct pprof *b, size_t i, uint64_t *loc_ids)
{
	const struct profile_stack *s = profile__stack(b->p, i);
	Perftools__Profiles__Sample *smp = &b->samples[b->msg.n_sample];
	int64_t *v = &b->values[i * MAX_VALUES];
	size_t nv = stack_values(b, i, v), nonzero = 0;

	for (size_t j = 0; j < nv; j++)
		nonzero += v[j] != 0;
	if (!nonzero)
		return 0;
	perftools__profiles__sample__init(smp);
	for (uint32_t j = 0; j < s->nframes; j++)
		loc_ids[j] = s->frames[s->nframes - 1 - j] + 1;
	smp->location_id = loc_ids;
	smp->n_location_id = s->nframes;
	smp->value = v;
	smp->n_value = nv;
	b->sample_ptrs[b->msg.n_sample++] = smp;
	return add_labels(b, s, smp, i * MAX_LABELS);
}

static int add_samples(struct pprof *b)
{
	size_t n = profile__nr_stacks(b->p), nframes = 0;

	for (size_t i = 0; i < n; i++)
		nframes += profile__stack(b->p, i)->nframes;
	b->loc_ids = malloc((nframes ? nframes : 1) * sizeof(*b->loc_ids));
	if (!b->loc_ids)
		return -ENOMEM;
	nframes = 0;
	for (size_t i = 0; i < n; i++) {
		if (add_sample(b, i, &b->loc_ids[nframes]))
			return -ENOMEM;
		nframes += profile__stack(b->p, i)->nframes;
	}
	return 0;
}

static int value_type(struct pprof *b, Perftools__Profiles__ValueType *t, const char *type,
		      const char *unit)
{
	perftools__profiles__value_type__init(t);
	if (strtab__findnew(&b->st, type, &t->type) || strtab__findnew(&b->st, unit, &t->unit))
		return -ENOMEM;
	return 0;
}

static int push_type(struct pprof *b, const char *type, const char *unit)
{
	size_t i = b->msg.n_sample_type++;

	b->type_ptrs[i] = &b->types[i];
	return value_type(b, &b->types[i], type, unit);
}

/* A counted event (-e page-faults -c N): [samples/count, page-faults/count],
 * a sample every N of them, the events shown by default; samples only
 * when known (not at a frequency, nor for a tracepoint's --weight). */
static int add_event_types(struct pprof *b)
{
	const struct profile_meta *m = profile__meta(b->p);

	if (profile__total_count(b->p) && push_type(b, "samples", "count"))
		return -ENOMEM;
	if (push_type(b, m->event, "count"))
		return -ENOMEM;
	b->msg.default_sample_type = b->types[b->msg.n_sample_type - 1].type;
	b->msg.period_type = &b->period_type;
	b->msg.period = (int64_t)m->period;
	return value_type(b, &b->period_type, m->event, "count");
}

/* Several -e: a type per event, [page-faults/count, context-switches/count],
 * each sample's value in its event's (-sample_index=context-switches), the
 * first shown by default; a sample every period events of each. */
static int add_types(struct pprof *b)
{
	const struct profile_meta *m = profile__meta(b->p);

	for (unsigned int t = 0; t < m->ntypes; t++)
		if (push_type(b, m->types[t], "count"))
			return -ENOMEM;
	b->msg.default_sample_type = b->types[0].type;
	b->msg.period_type = &b->period_type;
	b->msg.period = (int64_t)m->period;
	return value_type(b, &b->period_type, m->types[0], "count");
}

/* --alloc: Go's heap profile types, so that -sample_index=inuse_space and
 * the rest work; the view asked for is the default. Every allocation is
 * recorded: a period of 1 byte. */
static int add_alloc_types(struct pprof *b)
{
	bool live = profile__meta(b->p)->alloc == PROFILE_ALLOC_LIVE;

	if (push_type(b, "alloc_objects", "count") || push_type(b, "alloc_space", "bytes") ||
	    push_type(b, "inuse_objects", "count") || push_type(b, "inuse_space", "bytes"))
		return -ENOMEM;
	b->msg.default_sample_type = b->types[live ? 3 : 1].type;
	b->msg.period_type = &b->period_type;
	b->msg.period = 1;
	return value_type(b, &b->period_type, "space", "bytes");
}

/* What a count counts: samples; in ns, calls, or off the CPU blocks (and
 * with --wall samples beside them: events). */
static const char *count_name(const struct pprof *b)
{
	if (profile__unit(b->p) == UNIT_SAMPLES)
		return "samples";
	if (profile__is_offcpu(b->p))
		return profile__is_wall(b->p) ? "events" : "blocks";
	return "calls";
}

/* Sampling: [samples/count, cpu/nanoseconds], a sample every 1/freq s of
 * CPU. Uprobe mode: [calls/count, wall/nanoseconds], every call counted (a
 * period of 1 call, as Go's block profiles say); off the CPU, blocks. A
 * column the profile cannot fill is left out; the time one is shown by
 * default. */
static int add_sample_types(struct pprof *b)
{
	bool wall = profile__unit(b->p) == UNIT_NANOSECONDS;
	const char *count = count_name(b);
	unsigned int freq = profile__meta(b->p)->freq;

	b->msg.sample_type = b->type_ptrs;
	if (profile__meta(b->p)->alloc)
		return add_alloc_types(b);
	if (profile__meta(b->p)->ntypes)
		return add_types(b);
	if (profile__meta(b->p)->period)
		return add_event_types(b);
	if (has_count(b) && push_type(b, count, "count"))
		return -ENOMEM;
	if (has_time(b) && push_type(b, wall ? "wall" : "cpu", "nanoseconds"))
		return -ENOMEM;
	b->msg.default_sample_type = b->types[b->msg.n_sample_type - 1].type;
	if (!wall && !freq)
		return 0;
	b->msg.period_type = &b->period_type;
	b->msg.period = wall ? 1 : (int64_t)((NSEC_PER_SEC + freq / 2) / freq);
	return wall ? value_type(b, &b->period_type, count, "count")
		    : value_type(b, &b->period_type, "cpu", "nanoseconds");
}

/* The capture's description, for `pprof -comments` and report headers. */
static int add_comments(struct pprof *b)
{
	const struct profile_meta *m = profile__meta(b->p);
	const char *text[MAX_COMMENTS] = { m->cmdline, m->event, m->kernel, m->losses };
	static const char *const what[MAX_COMMENTS] = { "", "event", "kernel", "lost" };

	b->msg.comment = b->comments;
	for (size_t i = 0; i < MAX_COMMENTS; i++) {
		if (!text[i][0])
			continue;
		if (strtab__findnew_named(&b->st, what[i], text[i],
					  &b->comments[b->msg.n_comment++]))
			return -ENOMEM;
	}
	return 0;
}

static int add_header(struct pprof *b)
{
	static const char *const keys[] = { "pid", "tid", "comm", "thread" };
	int64_t empty;

	if (strtab__findnew(&b->st, "", &empty))
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strtab__findnew(&b->st, keys[i], &b->label_key[i]))
			return -ENOMEM;
	b->msg.duration_nanos = (int64_t)(profile__meta(b->p)->secs * NSEC_PER_SEC);
	return add_comments(b);
}

/* Arrays sized by the profile: a function and a mapping at most per frame. */
static int alloc_arrays(struct pprof *b)
{
	size_t nf = profile__nr_frames(b->p) + 1, ns = profile__nr_stacks(b->p) + 1;

	b->funcs = calloc(nf, sizeof(*b->funcs));
	b->func_ptrs = calloc(nf, sizeof(*b->func_ptrs));
	b->maps = calloc(nf, sizeof(*b->maps));
	b->map_ptrs = calloc(nf, sizeof(*b->map_ptrs));
	b->locs = calloc(nf, sizeof(*b->locs));
	b->loc_ptrs = calloc(nf, sizeof(*b->loc_ptrs));
	b->lines = calloc(nf, sizeof(*b->lines));
	b->line_ptrs = calloc(nf, sizeof(*b->line_ptrs));
	b->samples = calloc(ns, sizeof(*b->samples));
	b->sample_ptrs = calloc(ns, sizeof(*b->sample_ptrs));
	b->values = calloc(ns * MAX_VALUES, sizeof(*b->values));
	b->labels = calloc(ns * MAX_LABELS, sizeof(*b->labels));
	b->label_ptrs = calloc(ns * MAX_LABELS, sizeof(*b->label_ptrs));
	if (!b->funcs || !b->func_ptrs || !b->maps || !b->map_ptrs || !b->locs || !b->loc_ptrs ||
	    !b->lines || !b->line_ptrs || !b->samples || !b->sample_ptrs || !b->values ||
	    !b->labels || !b->label_ptrs)
		return -ENOMEM;
	return 0;
}

static void pprof_free(struct pprof *b)
{
	void *arrays[] = { b->funcs,	b->func_ptrs, b->maps,	     b->map_ptrs, b->locs,
			   b->loc_ptrs, b->lines,     b->line_ptrs,  b->samples,  b->sample_ptrs,
			   b->values,	b->labels,    b->label_ptrs, b->loc_ids };

	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		free(arrays[i]);
	hashmap__free(&b->func_idx);
	hashmap__free(&b->map_idx);
	strtab__free(&b->st);
}

/* Fills b->msg from the profile; its strings and arrays stay owned by b. */
static int pprof_build(struct pprof *b)
{
	/* in this order: mappings are made in their own order before the
	 * locations refer to them */
	static int (*const steps[])(struct pprof *) = {
		alloc_arrays, add_header,    add_sample_types,
		add_mappings, add_locations, add_samples,
	};
	int err;

	perftools__profiles__profile__init(&b->msg);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		err = steps[i](b);
		if (err)
			return err;
	}
	b->msg.function = b->func_ptrs;
	b->msg.mapping = b->map_ptrs;
	b->msg.location = b->loc_ptrs;
	b->msg.sample = b->sample_ptrs;
	b->msg.string_table = b->st.s;
	b->msg.n_string_table = b->st.n;
	return 0;
}

/* protobuf-c's output buffer: the packed bytes go through deflate to f. */
struct gz_out {
	ProtobufCBuffer base; /* first: protobuf-c hands this back to append() */
	z_stream z;
	FILE *f;
	int err;
	size_t nin;
	unsigned char in[GZ_CHUNK], out[GZ_CHUNK];
};

/* Compresses what is buffered; Z_FINISH also ends the gzip stream. */
static int gz_deflate(struct gz_out *g, int flush)
{
	int ret;

	g->z.next_in = g->in;
	g->z.avail_in = (uInt)g->nin;
	do {
		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		ret = deflate(&g->z, flush);
		if (ret == Z_STREAM_ERROR)
			return -EIO;
		if (fwrite(g->out, 1, sizeof(g->out) - g->z.avail_out, g->f) !=
		    sizeof(g->out) - g->z.avail_out)
			return -EIO;
	} while (g->z.avail_out == 0);
	g->nin = 0;
	return flush == Z_FINISH && ret != Z_STREAM_END ? -EIO : 0;
}

static void gz_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
	struct gz_out *g = (struct gz_out *)buf;

	while (len && !g->err) {
		size_t n = sizeof(g->in) - g->nin < len ? sizeof(g->in) - g->nin : len;

		memcpy(g->in + g->nin, data, n);
		g->nin += n;
		data += n;
		len -= n;
		if (g->nin == sizeof(g->in))
			g->err = gz_deflate(g, Z_NO_FLUSH);
	}
}

/* Packs msg into a gzip stream (windowBits 15 + 16: a gzip header) on f. */
static int write_gz(const ProtobufCMessage *msg, FILE *f)
{
	struct gz_out *g = calloc(1, sizeof(*g));
	int err;

	if (!g)
		return -ENOMEM;
	g->base.append = gz_append;
	g->f = f;
	if (deflateInit2(&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		err = -ENOMEM;
		goto free_g;
	}
	protobuf_c_message_pack_to_buffer(msg, &g->base);
	err = g->err ? g->err : gz_deflate(g, Z_FINISH);
	deflateEnd(&g->z);
free_g:
	free(g);
	return err;
}

int pprof__write(const struct profile *p, const struct write_opts *o, FILE *f)
{
	/* the root style has no meaning here: owners are labels */
	struct pprof b = { .p = p, .procs = o ? o->procs : NULL };
	int err;

	err = pprof_build(&b);
	if (!err)
		err = write_gz(&b.msg.base, f);
	pprof_free(&b);
	return err;
}
