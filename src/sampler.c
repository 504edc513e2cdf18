// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hashmap.h"
#include "procs.h"
#include "sample.skel.h"
#include "sampler.h"
#include "symbolize.h"

struct sampler {
	struct sampler_opts opts;
	struct sample_bpf *skel;
	int ncpus; /* possible CPUs */
	int *perf_fds;
	struct bpf_link **links; /* per CPU */
	struct bpf_link *fork_link, *exec_link, *exit_link;
	unsigned int nattached;
	const char *event;
	struct ring_buffer *rb;
	struct procs *procs;
	uint64_t nstacks;
};

static uint32_t clamp_u32(double v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (uint32_t)v;
}

/* Preallocated: allocating in the timer interrupt fails now and then
 * (-ENOMEM), which would lose stacks. So the maps are sized from the
 * expected number of samples instead of for the worst case. */
static void size_maps(struct sample_bpf *skel, const struct sampler_opts *o, int ncpus)
{
	double expect = (double)o->freq * ncpus * (o->duration > 0 ? o->duration : 60);

	bpf_map__set_max_entries(skel->maps.counts, clamp_u32(expect / 4, 8192, 131072));
	bpf_map__set_max_entries(skel->maps.stacks, clamp_u32(expect / 8, 4096, 32768));
}

static int load(struct sampler *s)
{
	struct sample_bpf *skel = sample_bpf__open();
	int err;

	if (!skel)
		return -errno;
	skel->rodata->filter_pids = s->opts.filter_pids;
	skel->rodata->follow_children = s->opts.follow_children;
	skel->rodata->want_user = s->opts.user;
	skel->rodata->want_kernel = s->opts.kernel;
	bpf_program__set_autoload(skel->progs.on_fork, s->opts.follow_children);
	size_maps(skel, &s->opts, s->ncpus);
	err = sample_bpf__load(skel);
	if (err) {
		sample_bpf__destroy(skel);
		return err;
	}
	s->skel = skel;
	return 0;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	const struct sample_proc_event *ev = data;

	if (size < sizeof(*ev))
		return 0;
	/* a process that is already gone is named from what the maps hold */
	procs__snapshot(s->procs, ev->pid);
	return 0;
}

int sampler__open(struct sampler **out, const struct sampler_opts *o)
{
	struct sampler *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->opts = *o;
	s->ncpus = libbpf_num_possible_cpus();
	s->event = "cpu-clock";
	s->procs = procs__new();
	s->perf_fds = calloc(s->ncpus > 0 ? s->ncpus : 1, sizeof(int));
	s->links = calloc(s->ncpus > 0 ? s->ncpus : 1, sizeof(*s->links));
	if (s->ncpus <= 0 || !s->procs || !s->perf_fds || !s->links) {
		err = s->ncpus < 0 ? s->ncpus : -ENOMEM;
		goto err_free;
	}
	for (int i = 0; i < s->ncpus; i++)
		s->perf_fds[i] = -1;
	err = load(s);
	if (err)
		goto err_free;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), handle_event, s, NULL);
	if (!s->rb) {
		err = -errno;
		goto err_free;
	}
	*out = s;
	return 0;
err_free:
	sampler__free(s);
	return err;
}

int sampler__add_pid(struct sampler *s, pid_t pid)
{
	__u32 key = pid;
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.pids), &key, &one, BPF_ANY))
		return -errno;
	return 0;
}

static int open_event(unsigned int freq, int cpu, __u32 type, __u64 config)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.config = config,
		.sample_freq = freq,
		.freq = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* cpu-clock on every machine: it needs no PMU (VMs often have none) and,
 * unlike cycles, it also samples idle time, so shares are shares of time. */
static int attach_cpu(struct sampler *s, int cpu)
{
	int fd = open_event(s->opts.freq, cpu, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);

	if (fd < 0)
		return fd;
	s->perf_fds[cpu] = fd;
	s->links[cpu] = bpf_program__attach_perf_event(s->skel->progs.on_sample, fd);
	if (!s->links[cpu]) {
		s->links[cpu] = NULL;
		return -errno;
	}
	s->nattached++;
	return 0;
}

static int attach_tracking(struct sampler *s)
{
	s->exec_link = bpf_program__attach(s->skel->progs.on_exec);
	if (!s->exec_link)
		return -errno;
	s->exit_link = bpf_program__attach(s->skel->progs.on_exit);
	if (!s->exit_link)
		return -errno;
	if (!s->opts.follow_children)
		return 0;
	s->fork_link = bpf_program__attach(s->skel->progs.on_fork);
	return s->fork_link ? 0 : -errno;
}

int sampler__start(struct sampler *s)
{
	int err = attach_tracking(s);

	if (err)
		return err;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		err = attach_cpu(s, cpu);
		if (err == -ENODEV) /* offline */
			continue;
		if (err)
			return err;
	}
	return s->nattached ? 0 : -ENODEV;
}

int sampler__poll(struct sampler *s, int timeout_ms)
{
	int n = ring_buffer__poll(s->rb, timeout_ms);

	return n < 0 ? n : 0;
}

static int read_counters(struct sampler *s, uint64_t counter[CNT_NR])
{
	int fd = bpf_map__fd(s->skel->maps.counters);
	__u64 *vals = calloc(s->ncpus, sizeof(*vals));

	if (!vals)
		return -ENOMEM;
	for (__u32 i = 0; i < CNT_NR; i++) {
		counter[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, vals))
			continue;
		for (int cpu = 0; cpu < s->ncpus; cpu++)
			counter[i] += vals[cpu];
	}
	free(vals);
	return 0;
}

uint64_t sampler__samples(struct sampler *s)
{
	uint64_t c[CNT_NR];

	return read_counters(s, c) ? 0 : c[CNT_SAMPLES];
}

void sampler__stop(struct sampler *s)
{
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		bpf_link__destroy(s->links[cpu]);
		s->links[cpu] = NULL;
		if (s->perf_fds[cpu] >= 0)
			close(s->perf_fds[cpu]);
		s->perf_fds[cpu] = -1;
	}
	bpf_link__destroy(s->fork_link);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->exit_link);
	s->fork_link = s->exec_link = s->exit_link = NULL;
	if (s->rb)
		ring_buffer__consume(s->rb);
}

/* Stacks as the kernel stored them, leaf first, read once each. */
struct stack_table {
	struct hashmap idx; /* stack id -> index */
	struct sample_stack *v;
	size_t n, cap;
};

static int read_stacks(int fd, struct stack_table *t)
{
	__u64 key, next, *prev = NULL;
	struct sample_stack *v;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 256;
			v = realloc(t->v, t->cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			t->v = v;
		}
		if (bpf_map_lookup_elem(fd, &key, &t->v[t->n]))
			continue;
		if (t->v[t->n].nr > SAMPLE_MAX_DEPTH)
			t->v[t->n].nr = SAMPLE_MAX_DEPTH;
		if (hashmap__set(&t->idx, key, t->n))
			return -ENOMEM;
		t->n++;
	}
	return 0;
}

static const struct sample_stack *find_stack(const struct stack_table *t, __u64 id)
{
	uint64_t i;

	return hashmap__get(&t->idx, id, &i) ? &t->v[i] : NULL;
}

struct collect_ctx {
	struct sampler *s;
	struct profile *p;
	struct symbolizer *sym;
	struct stack_table stacks;
	uint32_t frames[2 * SAMPLE_MAX_DEPTH + 2];
	uint32_t n;
};

static int push_frame(struct collect_ctx *c, const char *name, enum frame_kind kind)
{
	return profile__findnew_frame(c->p, name, kind == FRAME_KERNEL ? "[kernel]" : "", kind,
				      &c->frames[c->n++]);
}

/* Appends the stack root-first. */
static int push_stack(struct collect_ctx *c, __u64 id, pid_t pid, enum frame_kind kind)
{
	const struct sample_stack *st;
	int err = 0;

	if (id == STACK_ID_NONE)
		return 0;
	st = id == STACK_ID_LOST ? NULL : find_stack(&c->stacks, id);
	if (!st)
		return push_frame(
			c, kind == FRAME_KERNEL ? "[lost kernel stack]" : "[lost user stack]",
			kind);
	for (__u32 i = st->nr; i-- > 0 && !err;) {
		uint32_t *f = &c->frames[c->n++];

		err = kind == FRAME_KERNEL ? symbolizer__kernel(c->sym, st->ip[i], i > 0, f)
					   : symbolizer__user(c->sym, pid, st->ip[i], i > 0, f);
	}
	return err;
}

static int add_sample(struct collect_ctx *c, const struct sample_key *k, __u64 count)
{
	struct sample_key key = *k;
	struct stack_owner who = { key.pid, key.tid, key.comm, key.tcomm };
	int err;

	key.comm[SAMPLE_COMM_LEN - 1] = key.tcomm[SAMPLE_COMM_LEN - 1] = '\0';
	c->n = 0;
	err = push_stack(c, key.ustack, key.pid, FRAME_USER);
	if (!err)
		err = push_stack(c, key.kstack, key.pid, FRAME_KERNEL);
	return err ? err : profile__add_stack(c->p, &who, c->frames, c->n, count);
}

static int read_counts(struct collect_ctx *c)
{
	int fd = bpf_map__fd(c->s->skel->maps.counts), err;
	struct sample_key key, next, *prev = NULL;
	__u64 count;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &count) || !count)
			continue;
		err = add_sample(c, &key, count);
		if (err)
			return err;
	}
	return 0;
}

int sampler__collect(struct sampler *s, struct profile *p)
{
	struct collect_ctx *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->s = s;
	c->p = p;
	c->sym = symbolizer__new(p, s->procs);
	err = c->sym ? read_stacks(bpf_map__fd(s->skel->maps.stacks), &c->stacks) : -ENOMEM;
	if (!err)
		err = read_counts(c);
	s->nstacks = c->stacks.n;
	symbolizer__free(c->sym);
	hashmap__free(&c->stacks.idx);
	free(c->stacks.v);
	free(c);
	return err;
}

static uint64_t map_bytes(const struct bpf_map *m)
{
	return (uint64_t)bpf_map__max_entries(m) * (bpf_map__key_size(m) + bpf_map__value_size(m));
}

void sampler__stats(struct sampler *s, struct sampler_stats *st)
{
	memset(st, 0, sizeof(*st));
	read_counters(s, st->counter);
	st->ncpus = s->nattached;
	st->event = s->event;
	st->stacks = s->nstacks;
	st->map_bytes = map_bytes(s->skel->maps.counts) + map_bytes(s->skel->maps.stacks) +
			map_bytes(s->skel->maps.seen) + map_bytes(s->skel->maps.events);
}

void sampler__free(struct sampler *s)
{
	if (!s)
		return;
	if (s->skel)
		sampler__stop(s);
	ring_buffer__free(s->rb);
	sample_bpf__destroy(s->skel);
	procs__free(s->procs);
	free(s->perf_fds);
	free(s->links);
	free(s);
}
