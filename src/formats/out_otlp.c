// SPDX-License-Identifier: GPL-2.0
/*
 * OTLP profiles: the dictionary (strings, functions, mappings, locations,
 * stacks, attributes; each table opening with its zero value, index 0
 * meaning none) and one Profile of the profile's one sample type.
 * Locations are the profile's frames (index = frame id + 1), a stack per
 * profile stack (index = stack + 1), leaf first as pprof orders them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen/otlp_profiles.pb-c.h"
#include "util/hashmap.h"
#include "out_otlp.h"
#include "strtab.h"

#define NSEC_PER_SEC  1000000000ULL
#define KERNEL_BINARY "[kernel.kallsyms]"
#define SAMPLE_ATTRS  (4 + PROC_LABELS_MAX) /* pid, tid, comm, thread; the process's */

/* The semantic conventions' names for what the labeler calls build_id,
 * cgroup and container (otherwise its own key is kept). */
static const char *const semconv[][2] = {
	{ "build_id", "process.executable.build_id.gnu" },
	{ "cgroup", "process.linux.cgroup" },
	{ "container", "container.id" },
};

typedef Flamebpf__Otlp__KeyValueAndUnit Attr;

struct otlp {
	const struct profile *p;
	const struct otlp_opts *o;
	struct strtab st;
	Flamebpf__Otlp__ProfilesDictionary dict;
	Flamebpf__Otlp__Function *funcs, **func_ptrs;
	Flamebpf__Otlp__Mapping *maps, **map_ptrs;
	Flamebpf__Otlp__Location *locs, **loc_ptrs;
	Flamebpf__Otlp__Line *lines, **line_ptrs;
	Flamebpf__Otlp__Stack *stacks, **stack_ptrs;
	Flamebpf__Otlp__Sample *samples, **sample_ptrs;
	Attr *attrs, **attr_ptrs;
	Flamebpf__Otlp__AnyValue *values;
	size_t nattrs, attr_cap;
	int32_t *loc_idx, *sample_attrs, *map_attrs;
	int64_t *sample_values;
	struct hashmap func_idx, map_idx, attr_str, attr_int;
};

static int32_t str(struct otlp *b, const char *s, int *err)
{
	int64_t i = 0;

	if (!*err)
		*err = strtab__findnew(&b->st, s, &i);
	return (int32_t)i;
}

static int attr_grow(struct otlp *b)
{
	size_t cap = b->attr_cap ? b->attr_cap * 2 : 64;
	Attr *a = realloc(b->attrs, cap * sizeof(*a));
	Flamebpf__Otlp__AnyValue *v;

	if (!a)
		return -ENOMEM;
	b->attrs = a;
	v = realloc(b->values, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->values = v;
	b->attr_cap = cap;
	return 0;
}

/* The index of the attribute key=value (a string, or num when s is NULL),
 * made on first sight. */
static int attr_findnew(struct otlp *b, const char *key, const char *s, int64_t num, int32_t *idx)
{
	int err = 0;
	int32_t k = str(b, key, &err), v = s ? str(b, s, &err) : 0;
	uint64_t hkey = (uint64_t)k << 32 | (s ? (uint32_t)v : (uint32_t)num), i;
	struct hashmap *m = s ? &b->attr_str : &b->attr_int;

	if (err)
		return err;
	if (hashmap__get(m, hkey, &i)) {
		*idx = (int32_t)i;
		return 0;
	}
	if (b->nattrs == b->attr_cap && attr_grow(b))
		return -ENOMEM;
	i = b->nattrs++;
	flamebpf__otlp__key_value_and_unit__init(&b->attrs[i]);
	flamebpf__otlp__any_value__init(&b->values[i]);
	b->attrs[i].key_strindex = k;
	if (s) {
		b->values[i].value_case = FLAMEBPF__OTLP__ANY_VALUE__VALUE_STRING_VALUE;
		b->values[i].string_value = b->st.s[v];
	} else {
		b->values[i].value_case = FLAMEBPF__OTLP__ANY_VALUE__VALUE_INT_VALUE;
		b->values[i].int_value = num;
	}
	*idx = (int32_t)i;
	return hashmap__set(m, hkey, i);
}

static const char *semconv_key(const char *key)
{
	for (size_t i = 0; i < sizeof(semconv) / sizeof(semconv[0]); i++)
		if (!strcmp(key, semconv[i][0]))
			return semconv[i][1];
	return key;
}

static const char *frame_binary(const struct frame *f)
{
	if (f->kind == FRAME_KERNEL)
		return KERNEL_BINARY;
	return f->dso[0] ? f->dso : f->module;
}

/* The mapping of f's binary, with its build-id as an attribute; 0: none. */
static int mapping_findnew(struct otlp *b, const struct frame *f, int32_t *idx)
{
	Flamebpf__Otlp__Mapping *m;
	int err = 0;
	int32_t file;
	uint64_t i;

	*idx = 0;
	if (!frame_binary(f)[0])
		return 0;
	file = str(b, frame_binary(f), &err);
	if (err)
		return err;
	if (hashmap__get(&b->map_idx, (uint64_t)file, &i)) {
		*idx = (int32_t)i;
		return 0;
	}
	i = b->dict.n_mapping_table++;
	m = &b->maps[i];
	flamebpf__otlp__mapping__init(m);
	m->filename_strindex = file;
	b->map_ptrs[i] = m;
	*idx = (int32_t)i;
	if (f->build_id[0]) {
		m->attribute_indices = &b->map_attrs[i];
		m->n_attribute_indices = 1;
		err = attr_findnew(b, semconv_key("build_id"), f->build_id, 0, &b->map_attrs[i]);
	}
	return err ?: hashmap__set(&b->map_idx, (uint64_t)file, i);
}

static int function_findnew(struct otlp *b, const struct frame *f, int32_t *idx)
{
	Flamebpf__Otlp__Function *fn;
	int err = 0;
	int32_t name = str(b, f->name, &err), file = str(b, frame_binary(f), &err);
	uint64_t key = (uint64_t)name << 32 | (uint32_t)file, i;

	if (err)
		return err;
	if (!hashmap__get(&b->func_idx, key, &i)) {
		i = b->dict.n_function_table++;
		fn = &b->funcs[i];
		flamebpf__otlp__function__init(fn);
		fn->name_strindex = name;
		fn->system_name_strindex = name;
		fn->filename_strindex = file;
		b->func_ptrs[i] = fn;
		if (hashmap__set(&b->func_idx, key, i))
			return -ENOMEM;
	}
	*idx = (int32_t)i;
	return 0;
}

static int add_locations(struct otlp *b)
{
	size_t n = profile__nr_frames(b->p);

	for (size_t i = 0; i <= n; i++) {
		Flamebpf__Otlp__Location *l = &b->locs[i];
		const struct frame *f;

		flamebpf__otlp__location__init(l);
		b->loc_ptrs[i] = l;
		if (!i)
			continue;
		f = profile__frame(b->p, (uint32_t)(i - 1));
		flamebpf__otlp__line__init(&b->lines[i]);
		b->line_ptrs[i] = &b->lines[i];
		l->lines = &b->line_ptrs[i];
		l->n_lines = 1;
		l->address = f->addr;
		if (mapping_findnew(b, f, &l->mapping_index) ||
		    function_findnew(b, f, &b->lines[i].function_index))
			return -ENOMEM;
	}
	b->dict.n_location_table = n + 1;
	return 0;
}

/* The owner of stack s as attributes (the process's known labels too). */
static int sample_attrs(struct otlp *b, const struct profile_stack *s, int32_t *a, size_t *n)
{
	const struct proc_label *pl;
	size_t np = 0;
	int err = 0;

	if (s->who.pid != PROFILE_PID_UNKNOWN) {
		err = attr_findnew(b, "process.pid", NULL, s->who.pid, &a[(*n)++]);
		if (b->o->procs)
			np = b->o->procs->get(b->o->procs->arg, s->who.pid, &pl);
	}
	err = err ?: attr_findnew(b, "thread.id", NULL, s->who.tid, &a[(*n)++]);
	if (!err && s->who.comm[0])
		err = attr_findnew(b, "process.executable.name", s->who.comm, 0, &a[(*n)++]);
	if (!err && s->who.tcomm[0])
		err = attr_findnew(b, "thread.name", s->who.tcomm, 0, &a[(*n)++]);
	for (size_t i = 0; !err && i < np && i < PROC_LABELS_MAX; i++)
		err = attr_findnew(b, semconv_key(pl[i].key), pl[i].value, 0, &a[(*n)++]);
	return err;
}

/* Stack i's stack (leaf first) and its sample, when it weighs anything. */
static int add_sample(struct otlp *b, size_t i, int32_t *locs)
{
	const struct profile_stack *s = profile__stack(b->p, i);
	Flamebpf__Otlp__Stack *st = &b->stacks[i + 1];
	Flamebpf__Otlp__Sample *smp;
	size_t n = 0;

	flamebpf__otlp__stack__init(st);
	b->stack_ptrs[i + 1] = st;
	for (uint32_t j = 0; j < s->nframes; j++)
		locs[j] = (int32_t)s->frames[s->nframes - 1 - j] + 1;
	st->location_indices = locs;
	st->n_location_indices = s->nframes;
	if (!s->weight)
		return 0;
	smp = &b->samples[b->dict.n_stack_table];
	flamebpf__otlp__sample__init(smp);
	smp->stack_index = (int32_t)i + 1;
	b->sample_values[i] = (int64_t)s->weight;
	smp->values = &b->sample_values[i];
	smp->n_values = 1;
	smp->attribute_indices = &b->sample_attrs[i * SAMPLE_ATTRS];
	b->sample_ptrs[b->dict.n_stack_table++] = smp;
	if (sample_attrs(b, s, smp->attribute_indices, &n))
		return -ENOMEM;
	smp->n_attribute_indices = n;
	return 0;
}

/* Samples and stacks; n_stack_table counts the samples until the end. */
static int add_samples(struct otlp *b, size_t *nsamples)
{
	size_t n = profile__nr_stacks(b->p), nframes = 0;

	for (size_t i = 0; i < n; i++)
		nframes += profile__stack(b->p, i)->nframes;
	b->loc_idx = malloc((nframes ? nframes : 1) * sizeof(*b->loc_idx));
	if (!b->loc_idx)
		return -ENOMEM;
	flamebpf__otlp__stack__init(&b->stacks[0]);
	b->stack_ptrs[0] = &b->stacks[0];
	nframes = 0;
	for (size_t i = 0; i < n; i++) {
		if (add_sample(b, i, &b->loc_idx[nframes]))
			return -ENOMEM;
		nframes += profile__stack(b->p, i)->nframes;
	}
	*nsamples = b->dict.n_stack_table;
	b->dict.n_stack_table = n + 1;
	return 0;
}

static int alloc_arrays(struct otlp *b)
{
	size_t nf = profile__nr_frames(b->p) + 1, ns = profile__nr_stacks(b->p) + 1;

	b->funcs = calloc(nf, sizeof(*b->funcs));
	b->func_ptrs = calloc(nf, sizeof(*b->func_ptrs));
	b->maps = calloc(nf, sizeof(*b->maps));
	b->map_ptrs = calloc(nf, sizeof(*b->map_ptrs));
	b->map_attrs = calloc(nf, sizeof(*b->map_attrs));
	b->locs = calloc(nf, sizeof(*b->locs));
	b->loc_ptrs = calloc(nf, sizeof(*b->loc_ptrs));
	b->lines = calloc(nf, sizeof(*b->lines));
	b->line_ptrs = calloc(nf, sizeof(*b->line_ptrs));
	b->stacks = calloc(ns, sizeof(*b->stacks));
	b->stack_ptrs = calloc(ns, sizeof(*b->stack_ptrs));
	b->samples = calloc(ns, sizeof(*b->samples));
	b->sample_ptrs = calloc(ns, sizeof(*b->sample_ptrs));
	b->sample_values = calloc(ns, sizeof(*b->sample_values));
	b->sample_attrs = calloc(ns * SAMPLE_ATTRS, sizeof(*b->sample_attrs));
	if (!b->funcs || !b->func_ptrs || !b->maps || !b->map_ptrs || !b->map_attrs || !b->locs ||
	    !b->loc_ptrs || !b->lines || !b->line_ptrs || !b->stacks || !b->stack_ptrs ||
	    !b->samples || !b->sample_ptrs || !b->sample_values || !b->sample_attrs)
		return -ENOMEM;
	return 0;
}

/* The zero values that open the tables, and "" as string 0. */
static int add_zeros(struct otlp *b)
{
	int32_t none;
	int err = 0;

	str(b, "", &err);
	flamebpf__otlp__mapping__init(&b->maps[0]);
	flamebpf__otlp__function__init(&b->funcs[0]);
	b->map_ptrs[0] = &b->maps[0];
	b->func_ptrs[0] = &b->funcs[0];
	b->dict.n_mapping_table = b->dict.n_function_table = 1;
	/* the attribute table's zero: no key, no value */
	err = err ?: attr_findnew(b, "", NULL, 0, &none);
	if (!err)
		b->values[0].value_case = FLAMEBPF__OTLP__ANY_VALUE__VALUE__NOT_SET;
	return err;
}

static void otlp_free(struct otlp *b)
{
	void *arrays[] = { b->funcs,	   b->func_ptrs,     b->maps,	      b->map_ptrs,
			   b->map_attrs,   b->locs,	     b->loc_ptrs,     b->lines,
			   b->line_ptrs,   b->stacks,	     b->stack_ptrs,   b->samples,
			   b->sample_ptrs, b->sample_values, b->sample_attrs, b->loc_idx,
			   b->attrs,	   b->attr_ptrs,     b->values };

	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		free(arrays[i]);
	hashmap__free(&b->func_idx);
	hashmap__free(&b->map_idx);
	hashmap__free(&b->attr_str);
	hashmap__free(&b->attr_int);
	strtab__free(&b->st);
}

/* Points the dictionary at its tables (the attributes' moved as they grew). */
static int finish_dict(struct otlp *b)
{
	b->attr_ptrs = calloc(b->nattrs, sizeof(*b->attr_ptrs));
	if (!b->attr_ptrs)
		return -ENOMEM;
	for (size_t i = 0; i < b->nattrs; i++) {
		b->attrs[i].value = &b->values[i];
		b->attr_ptrs[i] = &b->attrs[i];
	}
	b->dict.attribute_table = b->attr_ptrs;
	b->dict.n_attribute_table = b->nattrs;
	b->dict.mapping_table = b->map_ptrs;
	b->dict.location_table = b->loc_ptrs;
	b->dict.function_table = b->func_ptrs;
	b->dict.stack_table = b->stack_ptrs;
	b->dict.string_table = b->st.s;
	b->dict.n_string_table = b->st.n;
	return 0;
}

/* What a value counts: samples (each 1/freq s of CPU), bytes, or ns. */
static int set_types(struct otlp *b, Flamebpf__Otlp__Profile *pr, Flamebpf__Otlp__ValueType *t,
		     Flamebpf__Otlp__ValueType *pt)
{
	const struct profile_meta *m = profile__meta(b->p);
	bool ns = profile__unit(b->p) == UNIT_NANOSECONDS;
	int err = 0;

	t->type_strindex = str(b, m->alloc ? "alloc_space" : ns ? "wall" : "samples", &err);
	t->unit_strindex = str(b, m->alloc ? "bytes" : ns ? "nanoseconds" : "count", &err);
	pr->sample_type = t;
	if (!ns && !m->alloc && m->freq && !m->period) {
		pt->type_strindex = str(b, "cpu", &err);
		pt->unit_strindex = str(b, "nanoseconds", &err);
		pr->period_type = pt;
		pr->period = (int64_t)((NSEC_PER_SEC + m->freq / 2) / m->freq);
	}
	return err;
}

struct request {
	Flamebpf__Otlp__ExportProfilesServiceRequest rq;
	Flamebpf__Otlp__ResourceProfiles rp, *rp_ptr;
	Flamebpf__Otlp__Resource res;
	Flamebpf__Otlp__ScopeProfiles sp, *sp_ptr;
	Flamebpf__Otlp__InstrumentationScope scope;
	Flamebpf__Otlp__Profile prof, *prof_ptr;
	Flamebpf__Otlp__ValueType type, period_type;
	Flamebpf__Otlp__KeyValue *kv, **kv_ptrs;
	Flamebpf__Otlp__AnyValue *kv_values;
};

static int add_resource(struct request *r, const struct otlp_opts *o)
{
	r->kv = calloc(o->nresource + 1, sizeof(*r->kv));
	r->kv_ptrs = calloc(o->nresource + 1, sizeof(*r->kv_ptrs));
	r->kv_values = calloc(o->nresource + 1, sizeof(*r->kv_values));
	if (!r->kv || !r->kv_ptrs || !r->kv_values)
		return -ENOMEM;
	for (size_t i = 0; i < o->nresource; i++) {
		flamebpf__otlp__key_value__init(&r->kv[i]);
		flamebpf__otlp__any_value__init(&r->kv_values[i]);
		r->kv[i].key = (char *)o->resource[i].key;
		r->kv_values[i].value_case = FLAMEBPF__OTLP__ANY_VALUE__VALUE_STRING_VALUE;
		r->kv_values[i].string_value = (char *)o->resource[i].value;
		r->kv[i].value = &r->kv_values[i];
		r->kv_ptrs[i] = &r->kv[i];
	}
	r->res.attributes = r->kv_ptrs;
	r->res.n_attributes = o->nresource;
	return 0;
}

/* The request around the profile: one resource, one scope (flamebpf). */
static int build_request(struct otlp *b, struct request *r, size_t nsamples)
{
	flamebpf__otlp__export_profiles_service_request__init(&r->rq);
	flamebpf__otlp__resource_profiles__init(&r->rp);
	flamebpf__otlp__resource__init(&r->res);
	flamebpf__otlp__scope_profiles__init(&r->sp);
	flamebpf__otlp__instrumentation_scope__init(&r->scope);
	flamebpf__otlp__profile__init(&r->prof);
	flamebpf__otlp__value_type__init(&r->type);
	flamebpf__otlp__value_type__init(&r->period_type);
	r->scope.name = "flamebpf";
	r->scope.version = FLAMEBPF_VERSION;
	r->prof.samples = b->sample_ptrs;
	r->prof.n_samples = nsamples;
	r->prof.time_unix_nano = b->o->start_unix_ns;
	r->prof.duration_nano = b->o->end_unix_ns - b->o->start_unix_ns;
	r->prof_ptr = &r->prof;
	r->sp.scope = &r->scope;
	r->sp.profiles = &r->prof_ptr;
	r->sp.n_profiles = 1;
	r->sp_ptr = &r->sp;
	r->rp.resource = &r->res;
	r->rp.scope_profiles = &r->sp_ptr;
	r->rp.n_scope_profiles = 1;
	r->rp_ptr = &r->rp;
	r->rq.resource_profiles = &r->rp_ptr;
	r->rq.n_resource_profiles = 1;
	r->rq.dictionary = &b->dict;
	return set_types(b, &r->prof, &r->type, &r->period_type) ?: add_resource(r, b->o);
}

static int pack(const ProtobufCMessage *m, uint8_t **buf, size_t *len)
{
	*len = protobuf_c_message_get_packed_size(m);
	*buf = malloc(*len ? *len : 1);
	if (!*buf)
		return -ENOMEM;
	protobuf_c_message_pack(m, *buf);
	return 0;
}

int otlp__encode(const struct profile *p, const struct otlp_opts *o, uint8_t **buf, size_t *len)
{
	struct otlp b = { .p = p, .o = o };
	struct request r = {};
	size_t nsamples = 0;
	int err;

	*buf = NULL;
	flamebpf__otlp__profiles_dictionary__init(&b.dict);
	err = alloc_arrays(&b) ?: add_zeros(&b) ?: add_locations(&b) ?: add_samples(&b, &nsamples);
	err = err ?: build_request(&b, &r, nsamples) ?: finish_dict(&b);
	err = err ?: pack(&r.rq.base, buf, len);
	free(r.kv);
	free(r.kv_ptrs);
	free(r.kv_values);
	otlp_free(&b);
	return err;
}
