// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "symbols/beam_procs.h"
#include "symbols/jvm_procs.h"
#include "symbols/kallsyms.h"
#include "symbols/procs.h"
#include "symbols/py_merge.h"
#include "symbols/py_procs.h"
#include "symbols/symbolize.h"
#include "symbols/symcache.h"
#include "util/array.h"
#include "util/hashmap.h"
#include "bpf_maps.h"
#include "command.h"
#include "task_iter.h"
#include "map_slot.h"
#include "mmap_events.h"
#include "probe_args.h"
#include "prog_on_cpus.h"
#include "py_batch.h"
#include "sample.skel.h"
#include "sampler.h"
#include "stack_table.h"
#include "tp_event.h"
#include "unwinder.h"
#include "uprobe_sites.h"
#include "alloc.h"

/* A span level as its first sight told it (struct sample_span_event). */
struct span_node {
	uint64_t parent;
	uint32_t span;
	char label[SPAN_LABEL_LEN + 24];
};

struct sampler {
	struct sampler_opts opts;
	struct sample_bpf *skel;
	int ncpus;		 /* possible CPUs */
	int *perf_fds;		 /* per event slot and CPU: [slot * ncpus + cpu] */
	struct bpf_link **links; /* ... the same */
	struct bpf_link *fork_link, *exec_link, *exit_link;
	struct bpf_link *switch_link;	/* --off-cpu */
	struct bpf_link *wakeup_link;	/* --wakers */
	struct bpf_link *tp_link;	/* -e tracepoint:... */
	struct uprobe_sites usdt_links; /* -f usdt:...: the probes' sites */
	struct uprobe_sites span_links; /* --span: the spans' */
	bool multi;			/* those as uprobe_multi links, else classic uprobes */
	struct runtimes runtimes;	/* of the last collect */
	struct hashmap span_idx; /* --span: a span level's id -> 1 + its index in span_nodes */
	struct span_node *span_nodes;
	size_t nspan_nodes, span_nodes_cap;
	uint64_t stop_ns;	   /* CLOCK_MONOTONIC at the stop */
	uint64_t still_left[4];	   /* blocks open at the stop left out, as CNT_OFF_SHORT.. */
	uint64_t still_kthread[2]; /* ... of kernel threads, as CNT_OFF_KTHREAD.. */
	uint64_t idle[2];	   /* threads off the CPU for the whole capture: count, ns */
	uint64_t still_kept;	   /* blocks open at the stop, counted */
	bool no_iter;		   /* threads blocked at the start cannot be found */
	bool still_err;		   /* the blocks open at the stop could not be read */
	struct hashmap thread_ns;  /* --wall: each thread's time, on and off the CPU */
	struct hashmap remapped;   /* pids that mapped code in the drain: new tables */
	unsigned int nattached;
	const char *event;
	char weighed_event[TRACEPOINT_SPEC_LEN + 32]; /* "syscalls:sys_enter_write:count" */
	char events_named[PROFILE_MAX_TYPES * 32];    /* "page-faults, context-switches" */
	struct ring_buffer *rb;
	struct procs *procs;
	struct symcache *bins;	   /* binaries read during the capture (containers) */
	struct unwinder *unwinder; /* NULL with --unwind fp */
	struct py_procs *py;	   /* Python processes found; NULL without user stacks */
	struct beam_procs *beam;   /* Erlang nodes found; NULL without user stacks */
	uint64_t runtimes_ns;	   /* when their JITs' names were last looked at */
	struct jvm_procs *jvm;	   /* JVMs found; NULL without user stacks */
	pid_t *jvm_waiting;	   /* JVMs whose interpreter was not made yet */
	size_t njvm_waiting, jvm_waiting_cap;
	bool py_off;		   /* FLAMEBPF_NO_PYTHON=1: found, their frames not walked */
	bool py_time;		   /* FLAMEBPF_PY_TIME=1: the walk timed (CNT_PY_WALK_NS) */
	struct mmap_events *mmaps; /* mappings as they are made; NULL if unavailable */
	struct stack_table stacks;
	struct sample_count_event *spilled; /* samples that did not fit in the counts map */
	size_t nspilled, spilled_cap;
	struct offcpu_start *still;	 /* blocks open at the stop, read then: the */
	size_t nstill, still_cap;	 /* threads may be gone by the collection */
	struct sample_tick_event *ticks; /* timeline: every sample's time and CPU */
	size_t nticks, ticks_cap;
	struct sample_hit_event *hits; /* timeline of -f usdt:...: every hit's */
	size_t nhits, hits_cap;
	uint64_t period_ns;	  /* 1/freq */
	uint64_t rng;		  /* xorshift state for the jitter */
	struct timespec jittered; /* when the periods last changed */
	int event_err;		  /* the first error handling ring buffer records */
	int flush_err;		  /* the Python records kept at the stop could not be sent */
	uint64_t live[3];	  /* --alloc: live allocations at the stop, bytes, unnamed */
	/* --continuous: the counts map samples go to (counts_now), and its
	 * twin, made at the first interval's end; -1 until then (made_fd:
	 * the one made) */
	int counts_fd, twin_fd, made_fd;
	/* --continuous: the kernel's symbols, for every interval, read again
	 * now and then (modules come and go); NULL until the first */
	struct kallsyms *ksyms;
	uint64_t ksyms_ns;   /* when they were read */
	struct hashmap gone; /* pids found gone at the last drain */
};

/* The perf events opened on each CPU: one, or each of several -e. */
static size_t event_slots(const struct sampler *s)
{
	return s->opts.nevents > 1 ? s->opts.nevents : 1;
}

/* --span without samples or blocks: the spans' own time is the profile. */
static bool span_time(const struct sampler *s)
{
	return s->opts.spans && !s->opts.freq && !s->opts.offcpu;
}

/* What each span site does, by its cookie. */
static int fill_span_sites(struct sample_bpf *skel, const struct span_plan *pl)
{
	int fd = bpf_map__fd(skel->maps.span_sites);

	for (__u32 c = 1; pl && c <= pl->sites.nnames; c++)
		if (bpf_map_update_elem(fd, &c, &pl->info[c - 1], BPF_ANY))
			return -errno;
	return 0;
}

/* -f usdt:... with a timeline: where each site's arguments are, by cookie. */
static int fill_usdt_args(struct sample_bpf *skel, const struct usdt_plan *pl)
{
	int fd = bpf_map__fd(skel->maps.usdt_args);

	for (size_t b = 0; b < pl->nbins; b++) {
		for (size_t i = 0; i < pl->bins[b].n; i++) {
			__u32 cookie = (__u32)pl->bins[b].v[i].cookie;
			struct probe_args pa;

			probe_args__of(pl->bins[b].v[i].args, &pa);
			if (bpf_map_update_elem(fd, &cookie, &pa, BPF_ANY))
				return -errno;
		}
	}
	return 0;
}

/* Several -e: each sample key says its event (sample_key.probe). */
static bool typed(const struct sampler *s)
{
	return s->opts.nevents > 1;
}

/* -e page-faults -F FREQ: each sample weighs its own period, in events. */
static bool counted_at_freq(const struct sampler *s)
{
	return s->opts.event && !s->opts.event->clock && s->opts.freq;
}

/* Whether counts are a tracepoint's values (--weight), not hits. */
static bool weighed(const struct sampler *s)
{
	return s->opts.tp && s->opts.weight != TP_WEIGHT_HITS;
}

/* --weight FIELD: the tracepoint is a perf event, its record the context. */
static bool by_field(const struct sampler *s)
{
	return s->opts.tp && s->opts.weight == TP_WEIGHT_FIELD;
}

/* Preallocated maps (allocating in the timer interrupt fails now and then),
 * sized from the expected number of samples. Neither map can lose data when
 * full: the ring buffer takes new stacks and overflowing samples, and user
 * space drains it every poll. */
static uint32_t unwind_rows(const struct sampler_opts *o)
{
	if (o->unwind == UNWIND_MODE_FP || !o->user)
		return UNWIND_CHUNK_ROWS;
	return UNWINDER_ROWS_MAX;
}

static void size_maps(struct sample_bpf *skel, const struct sampler_opts *o, int ncpus)
{
	double expect = (double)o->freq * ncpus * (o->duration > 0 ? o->duration : 60);
	/* a tick record per sample on top of new stacks: drained every poll */
	uint32_t ring =
		o->timeline ? bpf_maps__clamp((double)o->freq * ncpus * 256, 1 << 20, 32 << 20)
			    : bpf_maps__clamp((double)o->freq * ncpus * 128, 256 << 10, 2 << 20);

	/* a record per block, allocation or probe hit: they come far faster
	 * than ticks (4000 hits of usdt_work in a burst overflowed 1 MiB) */
	if (o->timeline && (o->offcpu || o->alloc || o->usdt))
		ring = 32 << 20;

	/* off the CPU: a key per (thread, stacks, state) */
	if (o->offcpu && expect < 65536 * 8)
		expect = 65536 * 8;
	bpf_map__set_max_entries(skel->maps.counts, bpf_maps__clamp(expect / 8, 8192, 65536));
	bpf_map__set_max_entries(skel->maps.sent, bpf_maps__clamp(expect / 8, 8192, 65536));
	bpf_map__set_max_entries(skel->maps.events, bpf_maps__pow2(ring));
	/* a batch of Python records a CPU sends every PY_STAGE_NS at most,
	 * drained every poll: room for one a CPU and no more, the smaller the
	 * warmer (py_events: a batch of 900 bytes took 2-3 us at 99 Hz in
	 * 8-16 KiB, 3-4 in 32-256) */
	bpf_map__set_max_entries(
		skel->maps.py_events,
		o->user ? bpf_maps__pow2(bpf_maps__clamp(ncpus * PY_STAGE_BYTES, 2 * PY_STAGE_BYTES,
							 1 << 20))
			: 4096);
	bpf_map__set_max_entries(skel->maps.unwind_rows, unwind_rows(o) / UNWIND_CHUNK_ROWS);
	bpf_map__set_max_entries(skel->maps.alloc_counts, o->alloc ? 65536 : 1);
	bpf_map__set_max_entries(skel->maps.alloc_live, o->alloc ? o->alloc_live_max : 1);
	/* read only under their options (filter_pids, spans): one entry
	 * rather than a preallocated MiB each */
	if (!o->filter_pids)
		bpf_map__set_max_entries(skel->maps.pids, 1);
	if (!o->spans)
		bpf_map__set_max_entries(skel->maps.span_slots, 1);
}

/* The uprobe programs: for uprobe_multi links or classic uprobes, as the
 * kernel has them (libbpf 1.1 knows no uprobe_multi section). */
static void set_uprobe_progs(struct sampler *s, struct sample_bpf *skel)
{
	const struct uprobe_sites *how = &s->usdt_links;

	bpf_program__set_autoload(skel->progs.on_usdt, s->opts.usdt != NULL);
	uprobe_sites__prepare(how, skel->progs.on_usdt, UPROBE_MULTI_ENTRY);
	bpf_program__set_autoload(skel->progs.on_span, s->opts.spans != NULL);
	uprobe_sites__prepare(how, skel->progs.on_span, UPROBE_MULTI_ENTRY);
	bpf_program__set_autoload(skel->progs.on_alloc_enter, s->opts.alloc);
	uprobe_sites__prepare(how, skel->progs.on_alloc_enter, UPROBE_MULTI_ENTRY);
	bpf_program__set_autoload(skel->progs.on_alloc_exit, s->opts.alloc);
	uprobe_sites__prepare(how, skel->progs.on_alloc_exit, UPROBE_MULTI_RETURN);
}

/* The maps of maps, made before the load (map_slot.h): counts_now with
 * counts in its slot, and the unwinder's row array. counts_fd: counts,
 * ours until the slot is filled. */
static int make_slots(struct sampler *s, struct sample_bpf *skel, struct map_slot *now,
		      int *counts_fd)
{
	int err;

	*counts_fd = map_slot__make(skel->maps.counts, -1);
	if (*counts_fd < 0)
		return *counts_fd;
	err = map_slot__start(now, skel->maps.counts_now, *counts_fd);
	if (err || skel->rodata->unwind_mode == UNWIND_MODE_FP)
		return err;
	return unwinder__new(&s->unwinder, skel->maps.unwind_rows,
			     bpf_map__max_entries(skel->maps.unwind_rows) * UNWIND_CHUNK_ROWS);
}

/* The object loaded while make_slots()'s slots go in. */
static int load_with_slots(struct sampler *s, struct sample_bpf *skel)
{
	struct map_slot now = { .outer_fd = -1 };
	int counts_fd, err = make_slots(s, skel, &now, &counts_fd);

	if (!err)
		err = sample_bpf__load(skel);
	if (!err && s->unwinder)
		err = unwinder__ready(s->unwinder, bpf_map__fd(skel->maps.unwind_procs),
				      bpf_map__fd(skel->maps.unwind_files),
				      bpf_map__fd(skel->maps.unwind_fp_below));
	err = map_slot__finish(&now) ?: err;
	if (now.outer_fd >= 0)
		close(now.outer_fd);
	if (counts_fd >= 0)
		close(counts_fd);
	return err;
}

/* with_iter: offcpu_at_start too, which needs a sleepable task iterator
 * and bpf_copy_from_user_task() (Linux 5.18). */
static int load_skel(struct sampler *s, bool with_iter)
{
	struct sample_bpf *skel = sample_bpf__open();
	int err;

	if (!skel)
		return -errno;
	skel->rodata->filter_pids = s->opts.filter_pids;
	skel->rodata->spawner_ino = command__spawner_ino();
	skel->rodata->want_user = s->opts.user;
	skel->rodata->want_kernel = s->opts.kernel;
	skel->rodata->timeline = s->opts.timeline;
	skel->rodata->unwind_mode = s->opts.user ? s->opts.unwind : UNWIND_MODE_FP;
	skel->rodata->hold_exec = skel->rodata->unwind_mode != UNWIND_MODE_FP;
	skel->rodata->offcpu = s->opts.offcpu;
	skel->rodata->weigh_period = counted_at_freq(s);
	skel->rodata->multi_event = s->opts.nevents > 1;
	skel->rodata->min_block_ns = s->opts.min_block_ns;
	skel->rodata->max_block_ns = s->opts.max_block_ns;
	bpf_program__set_autoload(skel->progs.on_fork, s->opts.follow_children);
	bpf_program__set_autoload(skel->progs.on_sample, s->opts.freq > 0 || s->opts.period > 0);
	bpf_program__set_autoload(skel->progs.on_switch, s->opts.offcpu);
	bpf_program__set_autoload(skel->progs.on_wakeup, s->opts.wakers);
	bpf_program__set_autoload(skel->progs.offcpu_at_start, with_iter);
	bpf_program__set_autoload(skel->progs.on_tracepoint, s->opts.tp && !by_field(s));
	bpf_program__set_autoload(skel->progs.on_tracepoint_field, by_field(s));
	set_uprobe_progs(s, skel);
	skel->rodata->spans = s->opts.spans != NULL;
	skel->rodata->span_time = span_time(s);
	if (s->opts.tp) {
		skel->rodata->tp_nr = s->opts.tp->nr;
		skel->rodata->tp_exit = s->opts.tp->exit;
		skel->rodata->tp_weight = s->opts.weight;
		skel->rodata->tp_field_offset = s->opts.tp->field.offset;
		skel->rodata->tp_field_size = s->opts.tp->field.size;
		skel->rodata->tp_field_signed = s->opts.tp->field.is_signed;
	}
	bpf_program__set_autoload(skel->progs.offcpu_at_stop, s->opts.offcpu);
	skel->rodata->want_wakers = s->opts.wakers;
	skel->rodata->want_kthreads = s->opts.kthreads;
	skel->rodata->want_python = s->py != NULL;
	skel->rodata->time_python = s->py_time;
	bpf_program__set_autoload(skel->progs.py_flush, s->py != NULL);
	skel->rodata->alloc_sample = s->opts.alloc_sample;
	skel->rodata->alloc_page_size = sysconf(_SC_PAGESIZE);
	size_maps(skel, &s->opts, s->ncpus);
	bpf_map__set_max_entries(skel->maps.span_sites,
				 s->opts.spans ? s->opts.spans->sites.nnames + 1 : 1);
	bpf_map__set_max_entries(skel->maps.usdt_args,
				 s->opts.usdt && s->opts.timeline ? s->opts.usdt->nnames + 1 : 1);
	err = load_with_slots(s, skel);
	if (!err)
		err = fill_span_sites(skel, s->opts.spans);
	if (!err && s->opts.usdt && s->opts.timeline)
		err = fill_usdt_args(skel, s->opts.usdt);
	if (err) {
		unwinder__free(s->unwinder);
		s->unwinder = NULL;
		sample_bpf__destroy(skel);
		return err;
	}
	s->skel = skel;
	return 0;
}

/* Without the iterator, --off-cpu still works: threads blocked at the
 * start are seen from their first switch on, which the summary says. */
static int load(struct sampler *s)
{
	int err = load_skel(s, s->opts.offcpu);

	if (err && s->opts.offcpu && err != -EPERM) {
		err = load_skel(s, false);
		s->no_iter = !err;
	}
	return err;
}

static int spill(struct sampler *s, const struct sample_count_event *ev)
{
	return array__push((void **)&s->spilled, &s->nspilled, &s->spilled_cap, ev, sizeof(*ev));
}

/* A span level first seen: its parent, span and label as text. */
static int keep_span(struct sampler *s, const struct sample_span_event *ev)
{
	struct span_node n = { .parent = ev->parent, .span = ev->span };
	uint64_t one;

	if (hashmap__get(&s->span_idx, ev->id, &one))
		return 0;
	if (ev->label == SPAN_LABEL_NUMBER)
		snprintf(n.label, sizeof(n.label), "%" PRIu64, (uint64_t)ev->num);
	else if (ev->label == SPAN_LABEL_STRING)
		snprintf(n.label, sizeof(n.label), "%.*s", (int)strnlen(ev->text, SPAN_LABEL_LEN),
			 ev->text);
	if (array__push((void **)&s->span_nodes, &s->nspan_nodes, &s->span_nodes_cap, &n,
			sizeof(n)))
		return -ENOMEM;
	return hashmap__set(&s->span_idx, ev->id, s->nspan_nodes);
}

static int keep_tick(struct sampler *s, const struct sample_tick_event *t)
{
	return array__push((void **)&s->ticks, &s->nticks, &s->ticks_cap, t, sizeof(*t));
}

/* Whether the environment variable name is 1: FLAMEBPF_NO_PYTHON=1 leaves
 * Python frames unwalked, FLAMEBPF_PY_TIME=1 times the walk; knobs to
 * measure what the walk costs (tools/bench_python.sh). */
static bool knob_asked(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

/* A Python of a known layout in pid: its frames walked from now on (unless
 * FLAMEBPF_NO_PYTHON=1). What is not Python, or not known, is left as it
 * is (the summary names a version whose layout is unknown). */
static void find_python(struct sampler *s, pid_t pid)
{
	struct py_proc info = {};
	__u32 key = (__u32)pid;

	if (s->py && !py_procs__detect(s->py, s->procs, pid, &info) && !s->py_off)
		bpf_map_update_elem(bpf_map__fd(s->skel->maps.py_procs), &key, &info, BPF_ANY);
}

/* An Erlang node whose JIT code keeps no frame pointers: its frames are
 * stepped over by scanning its stack (struct unwind_beam), from now on;
 * one that keeps them: its frame pointer followed where it lies below the
 * stack pointer (its shared fragments call C on another stack). */
static void beam_changed(void *ctx, pid_t pid, const struct beam_jit_info *info)
{
	struct sampler *s = ctx;
	struct unwind_beam b = { info->code_lo, info->code_hi, info->normal_exit };
	__u32 key = (__u32)pid;
	__u8 one = 1;

	if (!s->skel || !info->emulator || !info->code_hi)
		return;
	if (!info->frame_pointers)
		bpf_map_update_elem(bpf_map__fd(s->skel->maps.unwind_beams), &key, &b, BPF_ANY);
	else
		bpf_map_update_elem(bpf_map__fd(s->skel->maps.unwind_fp_below), &key, &one,
				    BPF_ANY);
}

/* What a look at pid finds of a JVM, told to the unwinder: its
 * interpreter's frames walked as the methods they run from now on, or
 * none (not a JVM, or one not readable yet: *again, looked at later, from
 * refresh_runtimes()). A look that fails takes back what a process that
 * had pid before was given. Its entry is written again now if write, else
 * it is left to the caller, who is about to. Returns 0 or -ENOMEM. */
static int look_at_jvm(struct sampler *s, pid_t pid, bool write, bool *again)
{
	uint64_t lo = 0, hi = 0;
	int err = jvm_procs__detect(s->jvm, s->procs, pid, &lo, &hi);

	*again = err == -EAGAIN;
	if (err == -ENOMEM)
		return err;
	if (err)
		lo = hi = 0;
	if (write)
		err = unwinder__set_jvm(s->unwinder, s->procs, pid, lo, hi);
	else
		err = unwinder__note_jvm(s->unwinder, pid, lo, hi);
	return err == -ENOMEM ? err : 0;
}

/* A JVM in pid's newest snapshot: noted before the entry of a snapshot
 * just taken is written, which then holds its interpreter at once;
 * written by itself (write) when no snapshot could be taken. */
static int find_jvm(struct sampler *s, pid_t pid, bool write)
{
	bool again;
	int err;

	if (!s->jvm || !s->unwinder)
		return 0;
	err = look_at_jvm(s, pid, write, &again);
	if (err || !again)
		return err;
	for (size_t i = 0; i < s->njvm_waiting; i++)
		if (s->jvm_waiting[i] == pid)
			return 0;
	return array__push((void **)&s->jvm_waiting, &s->njvm_waiting, &s->jvm_waiting_cap, &pid,
			   sizeof(pid));
}

/* A process's maps, read now: its unwind tables and, in a container, its
 * binaries' symbols (symbolizer__preload). */
static int snapshot(struct sampler *s, pid_t pid)
{
	bool taken = !procs__snapshot(s->procs, pid); /* else gone already */
	int err = find_jvm(s, pid, !taken);

	if (!err && taken && s->unwinder)
		err = unwinder__add_latest(s->unwinder, s->procs, pid);
	symbolizer__preload(s->bins, s->procs, pid);
	find_python(s, pid);
	if (s->beam)
		beam_procs__detect(s->beam, s->procs, pid);
	return err;
}

/* A user stack: kept, and the methods of its frames in a JVM's
 * interpreter named now, while the process lives. */
static int add_stack(struct sampler *s, const void *data, size_t size)
{
	const struct sample_stack_event *ev = data;
	int err = stack_table__add_event(&s->stacks, data, size);

	if (err || !s->jvm || size < offsetof(struct sample_stack_event, ip) ||
	    ev->nr > SAMPLE_MAX_DEPTH ||
	    size < offsetof(struct sample_stack_event, ip) + ev->nr * sizeof(__u64))
		return err;
	return jvm_procs__read_stack(s->jvm, (const uint64_t *)ev->ip, ev->nr);
}

/* Python frames: kept with the stacks, their code objects read now, while
 * the process lives. arg is the sampler: py_batch__each's callback too. */
static int add_py_stack(void *arg, const void *data, size_t size)
{
	const struct sample_stack_event *ev = data;
	struct sampler *s = arg;
	int err;

	/* sent again (py_send() forgot it, or was told to): its code objects
	 * were read, and a sample takes it now */
	if (size >= offsetof(struct sample_stack_event, ip) && stack_table__use(&s->stacks, ev->id))
		return 0;
	err = stack_table__add_event(&s->stacks, data, size);
	if (err || size < offsetof(struct sample_stack_event, ip) + ev->nr * sizeof(__u64) ||
	    ev->nr > SAMPLE_MAX_DEPTH)
		return err;
	if (!s->py)
		return 0;
	return py_procs__read_record(s->py, (const uint64_t *)ev->ip, ev->nr);
}

/* Errors stop the ring buffer's consume loop; the first is kept to report. */
static int handle_event(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	const struct sample_proc_event *proc = data;
	const struct sample_count_event *sample = data;
	const struct sample_tick_event *tick = data;
	int err = 0;

	if (size < sizeof(__u32))
		return 0;
	if ((proc->type == EV_PROC || proc->type == EV_MAPS) && size >= sizeof(*proc))
		err = procs__note_sampled(s->procs, proc->pid) ?: snapshot(s, proc->pid);
	else if (proc->type == EV_LOOK && size >= sizeof(*proc))
		err = snapshot(s, proc->pid);
	else if (proc->type == EV_HELD && size >= sizeof(*proc))
		command__let_go(proc->pid); /* its EV_LOOK, before, was taken */
	else if (proc->type == EV_SAMPLED && size >= sizeof(*proc))
		err = procs__note_sampled(s->procs, proc->pid);
	else if (proc->type == EV_STACK)
		err = add_stack(s, data, size);
	else if (proc->type == EV_PYSTACK)
		err = add_py_stack(s, data, size);
	else if (proc->type == EV_PYSTACKS)
		err = py_batch__each(data, size, add_py_stack, s);
	else if (proc->type == EV_SAMPLE && size >= sizeof(*sample))
		err = spill(s, sample);
	else if (proc->type == EV_TICK && size >= sizeof(*tick))
		err = keep_tick(s, tick);
	else if (proc->type == EV_SPAN && size >= sizeof(struct sample_span_event))
		err = keep_span(s, data);
	else if (proc->type == EV_HIT && size >= sizeof(struct sample_hit_event))
		err = array__push((void **)&s->hits, &s->nhits, &s->hits_cap, data,
				  sizeof(struct sample_hit_event));
	if (err && !s->event_err)
		s->event_err = err;
	return err;
}

/* The Python records each CPU kept (py_flush), into the ring buffer. */
static int flush_python(struct sampler *s)
{
	if (!s->skel->bss->py_staging)
		return 0;
	return prog_on_cpus__run(bpf_program__fd(s->skel->progs.py_flush), s->ncpus);
}

/* Python records are kept by each CPU and sent together once py_flush is
 * known to run on every CPU: without it, a record kept by a CPU no sample
 * comes to again would never arrive. */
static void stage_python(struct sampler *s)
{
	if (!s->py || s->py_off)
		return;
	s->skel->bss->py_staging = true;
	if (flush_python(s))
		s->skel->bss->py_staging = false;
}

int sampler__open(struct sampler **out, const struct sampler_opts *o)
{
	struct sampler *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->opts = *o;
	s->twin_fd = s->made_fd = -1;
	s->ncpus = libbpf_num_possible_cpus();
	/* a look at the kernel's BTF, a millisecond or more of the start:
	 * only for the uprobes of these options */
	if (o->usdt || o->spans || o->alloc)
		uprobe_multi__features(&s->multi, &(bool){ false });
	s->usdt_links.multi = s->span_links.multi = s->multi;
	s->event = o->alloc == PROFILE_ALLOC_LIVE ? "bytes live"
		   : o->alloc			  ? "bytes allocated"
		   : o->wall			  ? PROFILE_EVENT_WALL
		   : o->offcpu			  ? PROFILE_EVENT_OFFCPU
		   : o->usdt
			   ? (usdt_plan__nprobes(o->usdt) == 1 ? o->usdt->names[0] : "USDT probes")
		   : o->spans && !o->freq ? "spans"
		   : o->tp		  ? o->tp->spec
		   : o->event		  ? o->event->name
					  : "cpu-clock";
	for (size_t i = 0; typed(s) && i < o->nevents; i++) {
		size_t len = strlen(s->events_named);

		snprintf(s->events_named + len, sizeof(s->events_named) - len, "%s%s",
			 i ? ", " : "", o->events[i]->name);
		s->event = s->events_named;
	}
	if (weighed(s)) {
		snprintf(s->weighed_event, sizeof(s->weighed_event), "%s:%s", o->tp->spec,
			 o->weight_name);
		s->event = s->weighed_event;
	}
	s->period_ns = 1000000000ULL / (o->freq ? o->freq : 1);
	s->rng = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ 0x9e3779b97f4a7c15ULL;
	s->procs = procs__new();
	s->bins = symbolizer__new_cache();
	s->py_off = knob_asked("FLAMEBPF_NO_PYTHON");
	s->py_time = knob_asked("FLAMEBPF_PY_TIME");
	if (o->user &&
	    (!(s->py = py_procs__new()) || !(s->beam = beam_procs__new(beam_changed, s)) ||
	     !(s->jvm = jvm_procs__new()))) {
		err = -ENOMEM;
		goto err_free;
	}
	s->perf_fds = calloc(s->ncpus > 0 ? s->ncpus * event_slots(s) : 1, sizeof(int));
	s->links = calloc(s->ncpus > 0 ? s->ncpus * event_slots(s) : 1, sizeof(*s->links));
	if (s->ncpus <= 0 || !s->procs || !s->bins || !s->perf_fds || !s->links) {
		err = s->ncpus < 0 ? s->ncpus : -ENOMEM;
		goto err_free;
	}
	for (size_t i = 0; i < s->ncpus * event_slots(s); i++)
		s->perf_fds[i] = -1;
	err = load(s);
	if (err)
		goto err_free;
	stage_python(s);
	s->counts_fd = bpf_map__fd(s->skel->maps.counts);
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), handle_event, s, NULL);
	if (!s->rb ||
	    ring_buffer__add(s->rb, bpf_map__fd(s->skel->maps.py_events), handle_event, s)) {
		err = -errno;
		goto err_free;
	}
	*out = s;
	return 0;
err_free:
	sampler__free(s);
	return err;
}

int sampler__add_pid(struct sampler *s, pid_t pid, bool before_exec)
{
	__u32 key = pid;
	__u8 flags = PID_TRACED | (before_exec ? PID_BEFORE_EXEC : 0);

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.pids), &key, &flags, BPF_ANY))
		return -errno;
	/* its first samples unwound by tables too; a command's once it execs
	 * (on_exec has its maps read then: before, they are flamebpf's own,
	 * some 40 libraries whose tables took 0.1 s of the start), but for the
	 * C library's and the loader's, built at the load (unwinder__new) */
	if (before_exec) {
		procs__snapshot(s->procs, pid); /* its names until it execs */
		return 0;
	}
	return snapshot(s, pid);
}

/* A fixed period (ns of a clock, or events), not the kernel's frequency
 * mode: a clock's changes randomly as the capture goes (jitter_periods()). */
static int open_event(uint64_t period, unsigned int freq, int cpu, __u32 type, __u64 config)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.config = config,
		.sample_period = period,
	};

	/* a counted event at a frequency: the kernel's own frequency mode */
	if (freq) {
		attr.freq = 1;
		attr.sample_freq = freq;
	}
	int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Event slot i on a CPU; with several, the program learns which event it
 * runs for from the link's cookie, i + 1. */
static int attach_event(struct sampler *s, const struct perf_event_desc *ev, size_t i, int cpu)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = s->opts.nevents > 1 ? i + 1 : 0);
	size_t at = i * s->ncpus + cpu;
	int fd = open_event(s->opts.period ? s->opts.period : s->period_ns,
			    counted_at_freq(s) ? s->opts.freq : 0, cpu, ev->type, ev->config);

	if (fd < 0)
		return fd;
	s->perf_fds[at] = fd;
	s->links[at] = bpf_program__attach_perf_event_opts(s->skel->progs.on_sample, fd, &opts);
	if (!s->links[at]) {
		s->links[at] = NULL;
		return -errno;
	}
	return 0;
}

/* cpu-clock by default, on every machine: it needs no PMU (VMs often have
 * none) and, unlike cycles, it also samples idle time, so shares are
 * shares of time. Or -e's events. */
static int attach_cpu(struct sampler *s, int cpu)
{
	int err = 0;

	if (s->opts.nevents > 1)
		for (size_t i = 0; i < s->opts.nevents && !err; i++)
			err = attach_event(s, s->opts.events[i], i, cpu);
	else
		err = attach_event(
			s, s->opts.event ? s->opts.event : perf_events__find("cpu-clock"), 0, cpu);
	if (!err)
		s->nattached++;
	return err;
}

static uint64_t now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec;
}

static int keep_still(const void *rec, void *arg)
{
	struct sampler *s = arg;

	return array__push((void **)&s->still, &s->nstill, &s->still_cap, rec, sizeof(*s->still));
}

/* Threads off the CPU since before on_switch was attached: the iterator
 * (offcpu_at_start) starts their blocks now. */
static int find_blocked(struct sampler *s)
{
	s->skel->bss->capture_start_ns = now_ns();
	return task_iter__run(s->skel->progs.offcpu_at_start, 0, NULL, NULL);
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

/* With -p or a COMMAND, only the processes the BPF filter lets through
 * (a COMMAND's children join it as they fork): a long capture of one
 * program must not keep every other process's mappings. */
static bool traced(pid_t pid, void *arg)
{
	const struct sampler *s = arg;
	__u32 key = (__u32)pid;
	__u8 v;

	return !bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.pids), &key, &v);
}

/* The sites of each binary of pl for prog, their semaphores raised by the
 * kernel while attached; system-wide on the file: the pid filter keeps
 * the targets (a COMMAND's children too). */
static int attach_sites(const struct usdt_plan *pl, struct bpf_program *prog,
			struct uprobe_sites *links)
{
	int err = 0;

	for (size_t i = 0; i < pl->nbins && !err; i++) {
		struct uprobe_set set = { .path = pl->bins[i].path, .n = pl->bins[i].n };
		uint64_t *block, *offsets, *refs, *cookies;

		err = usdt_plan__arrays(&pl->bins[i], &block, &offsets, &refs, &cookies);
		if (err)
			break;
		set.offsets = offsets;
		set.ref_ctrs = refs;
		set.cookies = cookies;
		err = uprobe_sites__attach(links, prog, &set, NULL);
		free(block);
	}
	return err;
}

int sampler__start(struct sampler *s)
{
	int err = attach_tracking(s);

	if (err)
		return err;
	/* without it, a process that exits before its maps are read goes unnamed */
	if (s->opts.user &&
	    mmap_events__open(&s->mmaps, s->procs, s->opts.filter_pids ? traced : NULL, s))
		s->mmaps = NULL;
	if (s->opts.spans) {
		err = attach_sites(&s->opts.spans->sites, s->skel->progs.on_span, &s->span_links);
		if (err || span_time(s)) {
			s->nattached = s->ncpus;
			return err;
		}
	}
	if (s->opts.usdt) {
		s->nattached = s->ncpus;
		return attach_sites(s->opts.usdt, s->skel->progs.on_usdt, &s->usdt_links);
	}
	if (s->opts.alloc) /* the caller attaches the allocators' probes */
		return 0;
	if (s->opts.tp) {
		s->tp_link = by_field(s) ? tp_event__attach(s->skel->progs.on_tracepoint_field,
							    s->opts.tp->id, s->ncpus)
					 : bpf_program__attach_raw_tracepoint(
						   s->skel->progs.on_tracepoint, s->opts.tp->raw);
		s->nattached = s->ncpus;
		return s->tp_link ? 0 : -errno;
	}
	if (s->opts.offcpu) {
		s->switch_link = bpf_program__attach(s->skel->progs.on_switch);
		if (!s->switch_link)
			return -errno;
		if (!s->no_iter && find_blocked(s))
			s->no_iter = true;
		if (s->opts.wakers) {
			s->wakeup_link = bpf_program__attach(s->skel->progs.on_wakeup);
			if (!s->wakeup_link)
				return -errno;
		}
		s->nattached = s->ncpus;
		if (!s->opts.freq)
			return 0;
		s->nattached = 0;
	}
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		err = attach_cpu(s, cpu);
		if (err == -ENODEV) /* offline */
			continue;
		if (err)
			return err;
	}
	return s->nattached ? 0 : -ENODEV;
}

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) + (now.tv_nsec - t->tv_nsec) / 1e9;
}

/* A fixed sampling period locks onto a loop whose round is a multiple of
 * it: every round is sampled at the same phases, and a function's share
 * comes out 0% or 50% where it is 25%. So each CPU's period is redrawn
 * every stretch of about ten periods (20 ms at least), uniformly within
 * 15% of its mean: within a stretch the phase slides across the round, and
 * a redraw restarts the timer, so every stretch begins at a new phase. The
 * restart drops the part of a period that had elapsed, half a period on
 * average, which the mean period makes up for, so the rate stays FREQ. */
#define JITTER_PERIODS 10
#define JITTER_MIN_NS  20000000ULL

static uint64_t stretch_ns(const struct sampler *s)
{
	uint64_t n = s->period_ns * JITTER_PERIODS;

	return n > JITTER_MIN_NS ? n : JITTER_MIN_NS;
}

static void jitter_periods(struct sampler *s)
{
	uint64_t stretch = stretch_ns(s);
	/* stretch / mean = stretch / period - 1/2 samples per stretch */
	uint64_t mean = (uint64_t)((double)s->period_ns * stretch / (stretch + s->period_ns / 2));

	/* counted events have no period of time to lock onto */
	if (s->opts.period || counted_at_freq(s) || since(&s->jittered) * 1e9 < stretch)
		return;
	clock_gettime(CLOCK_MONOTONIC, &s->jittered);
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		uint64_t period;

		if (s->perf_fds[cpu] < 0)
			continue;
		s->rng ^= s->rng << 13;
		s->rng ^= s->rng >> 7;
		s->rng ^= s->rng << 17;
		period = mean * 85 / 100 + (s->rng >> 11) % (mean * 30 / 100 + 1);
		ioctl(s->perf_fds[cpu], PERF_EVENT_IOC_PERIOD, &period);
	}
}

/* A process whose stacks were taken mapped code (a library loaded after
 * its first look, dlopen): its unwind tables are rebuilt at the end of the
 * drain, before its next stacks fall back to frame pointers there. */
static void mapped_code(pid_t pid, void *arg)
{
	struct sampler *s = arg;
	__u32 key = (__u32)pid;
	__u8 v;

	if (s->unwinder && !bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.seen), &key, &v))
		hashmap__set(&s->remapped, (uint64_t)pid, 1);
}

static void refresh_tables(struct sampler *s)
{
	for (size_t i = 0; s->remapped.n && i < s->remapped.cap; i++)
		if (s->remapped.slots[i].key)
			snapshot(s, (pid_t)s->remapped.slots[i].key);
	hashmap__free(&s->remapped);
}

/* An Erlang node names its functions as it loads them, and may exit
 * before the end: what its JIT changed is read a few times a second; so
 * is whether a JVM found too early to read can be read now. */
#define RUNTIMES_REFRESH_NS 200000000ULL

static int retry_jvms(struct sampler *s)
{
	size_t kept = 0;
	int err = 0;

	for (size_t i = 0; i < s->njvm_waiting && !err; i++) {
		bool again;

		err = look_at_jvm(s, s->jvm_waiting[i], true, &again);
		if (again)
			s->jvm_waiting[kept++] = s->jvm_waiting[i];
	}
	s->njvm_waiting = kept;
	return err;
}

static int refresh_runtimes(struct sampler *s)
{
	uint64_t now = now_ns();

	if (now - s->runtimes_ns < RUNTIMES_REFRESH_NS)
		return 0;
	s->runtimes_ns = now;
	/* a CPU that took no sample since may keep records of a process
	 * about to exit, whose code objects are read when they come */
	if (s->py && py_procs__count(s->py, NULL, 0)) {
		int err = flush_python(s);

		if (err)
			return err;
	}
	if (s->beam)
		beam_procs__refresh(s->beam, s->procs, false);
	return retry_jvms(s);
}

int sampler__poll(struct sampler *s, int timeout_ms)
{
	int n, err;

	jitter_periods(s);
	if (s->mmaps) {
		mmap_events__drain(s->mmaps, mapped_code, s);
		refresh_tables(s);
	}
	err = refresh_runtimes(s);
	if (err)
		return err;
	/* wake for the next redraw (and mapping records) even when no event comes */
	n = ring_buffer__poll(s->rb, timeout_ms < 10 ? timeout_ms : 10);

	/* stacks and spilled samples come without a wakeup */
	if (n >= 0 || n == -EINTR)
		n = ring_buffer__consume(s->rb);
	if (s->event_err)
		return s->event_err;
	return n < 0 ? n : 0;
}

static int read_counters(struct sampler *s, uint64_t counter[CNT_NR])
{
	return bpf_maps__sum_percpu(bpf_map__fd(s->skel->maps.counters), CNT_NR, s->ncpus, counter);
}

uint64_t sampler__samples(struct sampler *s)
{
	uint64_t c[CNT_NR];

	return read_counters(s, c) ? 0 : c[CNT_SAMPLES] + c[CNT_OFF_BLOCKS] + c[CNT_ALLOCS];
}

/* The blocks open at the stop are read now: their starts live with their
 * threads, which end when the command is stopped. */
static void stop_offcpu(struct sampler *s)
{
	bpf_link__destroy(s->switch_link);
	bpf_link__destroy(s->wakeup_link);
	s->switch_link = s->wakeup_link = NULL;
	s->stop_ns = now_ns();
	if (task_iter__run(s->skel->progs.offcpu_at_stop, sizeof(*s->still), keep_still, s))
		s->still_err = true;
}

void sampler__stop(struct sampler *s)
{
	if (s->switch_link)
		stop_offcpu(s);
	for (size_t i = 0; i < s->ncpus * event_slots(s); i++) {
		/* a perf link closes its event's fd: closing it again could
		 * close another file that took its number */
		if (s->links[i])
			bpf_link__destroy(s->links[i]);
		else if (s->perf_fds[i] >= 0)
			close(s->perf_fds[i]);
		s->links[i] = NULL;
		s->perf_fds[i] = -1;
	}
	bpf_link__destroy(s->tp_link);
	s->tp_link = NULL;
	uprobe_sites__close(&s->usdt_links);
	uprobe_sites__close(&s->span_links);
	bpf_link__destroy(s->fork_link);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->exit_link);
	s->fork_link = s->exec_link = s->exit_link = NULL;
	if (s->mmaps)
		mmap_events__drain(s->mmaps, NULL, NULL);
	s->flush_err = flush_python(s);
	if (s->rb)
		ring_buffer__consume(s->rb);
}

struct collect_ctx {
	struct sampler *s;
	int counts_fd; /* the counts map read */
	struct profile *p;
	struct symbolizer *sym;
	struct hashmap stack_of;  /* hash of a sample key -> its profile stack */
	struct hashmap py_frames; /* py_procs__frames' */
	uint8_t *eval_of; /* per frame id: 0 not looked at, 1 not the evaluation loop, 2 it */
	size_t eval_cap;
	/* a user and a kernel stack, twice with --wakers, Python frames and a
	 * few more */
	uint32_t frames[2 * SAMPLE_MAX_DEPTH * (SYMBOLIZE_MAX_FRAMES + 1) + PY_MAX_FRAMES + 4];
	uint32_t n;
	/* a user stack and its Python frames, before they are merged */
	uint32_t native[SAMPLE_MAX_DEPTH * (SYMBOLIZE_MAX_FRAMES + 1)];
	bool is_eval[SAMPLE_MAX_DEPTH * (SYMBOLIZE_MAX_FRAMES + 1)];
	uint32_t py[PY_MAX_FRAMES];
	bool entry[PY_MAX_FRAMES];
	uint64_t py_ip[SAMPLE_MAX_DEPTH]; /* a Python record with its key's instruction */
};

static int push_frame(struct collect_ctx *c, const char *name, enum frame_kind kind)
{
	return profile__findnew_frame(c->p, name, kind == FRAME_KERNEL ? "[kernel]" : "", kind,
				      &c->frames[c->n++]);
}

/* -f usdt:...: the probe hit, as the leaf: "[libstdcxx:throw]". */
static int push_probe(struct collect_ctx *c, __u32 probe)
{
	const struct usdt_plan *pl = c->s->opts.usdt;
	char name[256];

	snprintf(name, sizeof(name), "[%s]",
		 pl && probe <= pl->nnames ? pl->names[probe - 1] : "usdt:?");
	return push_frame(c, name, FRAME_USER);
}

/* Appends the stack root-first. */
static bool is_tracing_glue(const char *name)
{
	static const char *const prefixes[] = { "bpf_prog_", "bpf_trace_run", "__bpf_trace_",
						"__traceiter_" };

	for (size_t i = 0; name && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* A kernel stack taken in a tracepoint's program starts with the program
 * and the kernel's glue that ran it, more or fewer frames with the kernel
 * and the JIT (a tail call hides the tracepoint's iterator): they are
 * flamebpf's, not the thread's. Returns how many to leave out. */
static uint32_t tracing_frames(struct collect_ctx *c, const struct raw_stack *st)
{
	uint32_t i = 0;

	while (i < st->nr && i < 8 &&
	       is_tracing_glue(symbolizer__kernel_name(c->sym, st->ip[i], i > 0)))
		i++;
	return i;
}

/* A frame of a JVM's that flamebpf names itself, not its perf map. */
static int push_java(struct collect_ctx *c, const char *name)
{
	int err = profile__findnew_frame_at(
		c->p, &(struct frame){ name, "[java]", FRAME_USER, 0, 0, "[java]", "" },
		&c->frames[c->n]);

	return err < 0 ? err : 1;
}

/* A frame of a user stack walked through pid's JVM's interpreter
 * (unwind.h), word the method it ran: named as its perf map names
 * compiled ones ("long Hot.hot(long, long)"), or "Interpreter" when it
 * could not be read. */
static int push_jvm_method(struct collect_ctx *c, pid_t pid, uint64_t word)
{
	const char *name = jvm_procs__method(c->s->jvm, pid, word);

	return push_java(c, name ? name : "Interpreter");
}

/* Whether st is a user stack of pid's walked through its JVM's
 * interpreter: its last word says so, and is no frame. Only such a
 * stack's words are read as methods (unwind.h): another's are addresses,
 * whatever bits they have. */
static bool jvm_stack(const struct collect_ctx *c, const struct raw_stack *st, pid_t pid)
{
	pid_t of;

	return c->s->jvm && jvm_procs__stack_pid(st->ip, st->nr, &of) && of == pid;
}

/* at_tracepoint: a kernel stack taken in sched_switch or sched_waking. */
static int push_stack(struct collect_ctx *c, __u64 id, pid_t pid, enum frame_kind kind,
		      bool at_tracepoint)
{
	const struct raw_stack *st;
	uint32_t skip = 0, nr;
	bool jvm;
	int err = 0;

	if (id == STACK_ID_NONE)
		return 0;
	st = id == STACK_ID_LOST ? NULL : stack_table__use(&c->s->stacks, id);
	if (!st)
		return push_frame(
			c, kind == FRAME_KERNEL ? "[lost kernel stack]" : "[lost user stack]",
			kind);
	if (at_tracepoint)
		skip = tracing_frames(c, st);
	jvm = kind == FRAME_USER && jvm_stack(c, st, pid);
	nr = st->nr - jvm;
	for (uint32_t i = nr; i-- > skip && err >= 0;) {
		uint32_t *f = &c->frames[c->n];

		if (kind == FRAME_KERNEL)
			err = symbolizer__kernel(c->sym, st->ip[i], i > 0, f) ?: 1;
		else if (jvm && (st->ip[i] & UNWIND_JVM_TAG_MASK) == UNWIND_JVM_METHOD)
			err = push_jvm_method(c, pid, st->ip[i]);
		else if (jvm && i > 0 && jvm_procs__is_call_stub(c->s->jvm, pid, st->ip[i]))
			err = push_java(c, "StubRoutines (1)");
		else
			err = symbolizer__user_frames(c->sym, pid, st->ip[i], i > 0, f,
						      SYMBOLIZE_MAX_FRAMES);
		c->n += err > 0 ? err : 0;
	}
	return err < 0 ? err : 0;
}

/* The evaluation loop of CPython, whose frames give way to Python's (its
 * parts split off by the compiler too: "_PyEval_EvalFrameDefault.cold"). */
#define PY_EVAL_FUNC "_PyEval_EvalFrameDefault"

static bool is_eval_loop(const char *name)
{
	size_t len = strlen(PY_EVAL_FUNC);

	return name && !strncmp(name, PY_EVAL_FUNC, len) && (!name[len] || name[len] == '.');
}

/* Whether frame id is the evaluation loop's, its name looked at once. */
static bool frame_is_eval(struct collect_ctx *c, uint32_t id)
{
	size_t cap = c->eval_cap;

	if (id >= cap) {
		uint8_t *v;

		while (cap <= id)
			cap = cap ? cap * 2 : 4096;
		v = realloc(c->eval_of, cap);
		if (!v)
			return is_eval_loop(profile__frame(c->p, id)->name);
		memset(v + c->eval_cap, 0, cap - c->eval_cap);
		c->eval_of = v;
		c->eval_cap = cap;
	}
	if (!c->eval_of[id])
		c->eval_of[id] = is_eval_loop(profile__frame(c->p, id)->name) ? 2 : 1;
	return c->eval_of[id] == 2;
}

/* The Python frames of k's record, its innermost one's instruction from k
 * (python.h), into c->py_ip; how many words, 0 when there are none. */
static uint32_t py_record(struct collect_ctx *c, const struct sample_key *k)
{
	const struct raw_stack *py = stack_table__use(&c->s->stacks, k->pystack);
	uint32_t nr;

	if (!py || py->nr < 3)
		return 0;
	nr = py->nr < SAMPLE_MAX_DEPTH ? py->nr : SAMPLE_MAX_DEPTH;
	memcpy(c->py_ip, py->ip, nr * sizeof(c->py_ip[0]));
	c->py_ip[2] = (c->py_ip[2] & ~PY_INSTR_MASK) | k->pyinstr;
	return nr;
}

/* A user stack with Python frames (k->pystack): the native frames, then
 * each of the evaluation loop's replaced by the Python frames it ran. */
static int push_user_py(struct collect_ctx *c, const struct sample_key *k)
{
	uint32_t from = c->n, nn, nr = py_record(c, k);
	int np, err;

	if (!nr)
		return push_stack(c, k->ustack, k->pid, FRAME_USER, false);
	np = py_procs__frames(c->s->py, c->p, &c->py_frames, c->py_ip, nr, c->py, c->entry,
			      PY_MAX_FRAMES);
	err = np < 0 ? np : push_stack(c, k->ustack, k->pid, FRAME_USER, false);
	if (err)
		return err;
	nn = c->n - from;
	memcpy(c->native, &c->frames[from], nn * sizeof(c->native[0]));
	for (uint32_t i = 0; i < nn; i++)
		c->is_eval[i] = frame_is_eval(c, c->native[i]);
	err = py_merge(c->native, c->is_eval, nn, c->py, c->entry, np, &c->frames[from],
		       sizeof(c->frames) / sizeof(c->frames[0]) - from);
	if (err < 0)
		return err;
	c->n = from + err;
	return 0;
}

/* --span: the frames of span id and its parents, root first, right under
 * the root: "[req GET /users]" ("[NAME LABEL]", "[NAME]" without one). A
 * level whose text was lost is "[span ?]". */
static int push_spans(struct collect_ctx *c, uint64_t id)
{
	const struct span_plan *pl = c->s->opts.spans;
	uint32_t from = c->n, depth = 0;
	uint64_t i;
	int err = 0;

	for (; id && depth < SPAN_MAX_DEPTH && !err; depth++) {
		const struct span_node *n;
		char name[SPAN_LABEL_LEN + 64];

		if (!hashmap__get(&c->s->span_idx, id, &i)) {
			err = push_frame(c, "[span ?]", FRAME_USER);
			break;
		}
		n = &c->s->span_nodes[i - 1];
		snprintf(name, sizeof(name), "[%s%s%s]",
			 n->span && n->span <= pl->nspans ? pl->names[n->span - 1] : "span ?",
			 n->label[0] ? " " : "", n->label);
		err = profile__findnew_frame(c->p, name, PROFILE_SPAN_MODULE, FRAME_USER,
					     &c->frames[c->n++]);
		id = n->parent;
	}
	for (uint32_t a = from, b = c->n; a + 1 < b; a++, b--) {
		uint32_t t = c->frames[a];

		c->frames[a] = c->frames[b - 1];
		c->frames[b - 1] = t;
	}
	return err;
}

/* The leaf frame of time off the CPU: why the thread was off it. The BPF
 * states are profile.h's, after OFFCPU_NONE. */
_Static_assert(OFFCPU_NR - OFFCPU_SLEEPING == PROFILE_OFF_NR &&
		       OFFCPU_OTHER - OFFCPU_SLEEPING == PROFILE_OFF_STOPPED,
	       "the states of sample.h are profile.h's");

static const char *offcpu_state_name(__u32 state)
{
	return profile__off_state_name(state - OFFCPU_SLEEPING);
}

static int add_thread_ns(struct sampler *s, __u32 tid, uint64_t ns)
{
	uint64_t sum = 0;

	hashmap__get(&s->thread_ns, tid, &sum);
	return hashmap__set(&s->thread_ns, tid, sum + ns);
}

/* After the blocked stack, as bcc's offwaketime writes it: "--", then the
 * waker's stacks leaf first (kernel, then user), then its name. */
static int push_waker(struct collect_ctx *c, struct sample_key *k)
{
	uint32_t from;
	int err;

	k->wcomm[SAMPLE_COMM_LEN - 1] = '\0';
	err = push_frame(c, "--", FRAME_USER);
	from = c->n;
	if (!err)
		err = push_stack(c, k->wustack, k->wpid, FRAME_USER, false);
	if (!err)
		err = push_stack(c, k->wkstack, k->wpid, FRAME_KERNEL, true);
	for (uint32_t i = from, j = c->n; i + 1 < j; i++, j--) {
		uint32_t t = c->frames[i];

		c->frames[i] = c->frames[j - 1];
		c->frames[j - 1] = t;
	}
	return err ? err : push_frame(c, k->wcomm[0] ? k->wcomm : "[unknown]", FRAME_USER);
}

/* The state frame of a key, or NULL: off-CPU time has one; with --wall and
 * --state-root, on-CPU samples are "[running]" beside them. */
static const char *state_frame(const struct sampler *s, const struct sample_key *k)
{
	if (k->state)
		return offcpu_state_name(k->state);
	return s->opts.wall && s->opts.state_root ? PROFILE_STATE_RUNNING : NULL;
}

static uint64_t key_hash(const struct sample_key *k)
{
	return hash_bytes(k, sizeof(*k), 0);
}

static int add_sample(struct collect_ctx *c, const struct sample_key *k, __u64 count)
{
	struct sample_key key = *k;
	struct stack_owner who = { key.pid, key.tid, key.comm, key.tcomm };
	int err = 0;

	key.comm[SAMPLE_COMM_LEN - 1] = key.tcomm[SAMPLE_COMM_LEN - 1] = '\0';
	c->n = 0;
	/* several -e: the event is the stack's type, not a frame */
	profile__set_type(c->p, typed(c->s) && key.probe ? key.probe - 1 : 0);
	if (key.span)
		err = push_spans(c, key.span);
	if (!err && state_frame(c->s, &key) && c->s->opts.state_root)
		err = push_frame(c, state_frame(c->s, &key), FRAME_USER);
	if (!err)
		err = key.pystack ? push_user_py(c, &key)
				  : push_stack(c, key.ustack, key.pid, FRAME_USER, false);
	if (!err)
		err = push_stack(c, key.kstack, key.pid, FRAME_KERNEL, key.state || c->s->opts.tp);
	if (!err && state_frame(c->s, &key) && !c->s->opts.state_root)
		err = push_frame(c, state_frame(c->s, &key), FRAME_USER);
	if (!err && key.probe && !typed(c->s))
		err = push_probe(c, key.probe);
	if (!err && (key.wtid || key.wcomm[0])) /* the idle task has tid 0 */
		err = push_waker(c, &key);
	if (!err && c->s->opts.wall && !key.state)
		err = profile__add_stack(c->p, &who, c->frames, c->n, count * c->s->period_ns);
	else if (!err)
		err = profile__add_stack_count(
			c->p, &who, c->frames, c->n,
			count * (c->s->opts.period ? c->s->opts.period : 1),
			key.state || weighed(c->s) || counted_at_freq(c->s) || span_time(c->s)
				? 0
				: count);
	if (!err && c->s->opts.wall)
		err = add_thread_ns(c->s, key.tid, key.state ? count : count * c->s->period_ns);
	if (!err && c->s->opts.timeline)
		err = hashmap__set(&c->stack_of, key_hash(k), profile__last_stack(c->p));
	return err;
}

static int add_count(void *arg, const void *key, const void *val)
{
	__u64 count;

	memcpy(&count, val, sizeof(count));
	return count ? add_sample(arg, key, count) : 0;
}

static int read_counts(struct collect_ctx *c)
{
	return bpf_maps__each(c->counts_fd, sizeof(struct sample_key), sizeof(__u64), add_count, c);
}

/* --alloc: the live allocations at the stop, summed by (process, thread,
 * stack) into sums (bytes, count), whose index idx keeps by owner_key(). */
static uint64_t owner_key(__u32 pid, __u32 tid, __u64 ustack)
{
	uint64_t k[2] = { (uint64_t)pid << 32 | tid, ustack };

	return hash_bytes(k, sizeof(k), 0);
}

struct live_sums {
	struct hashmap idx;
	struct alloc_total *v;
	size_t n, cap;
};

static int add_live(struct sampler *s, struct live_sums *ls, const struct alloc_addr *a,
		    const struct alloc_live *l)
{
	uint64_t key = owner_key(a->pid, l->tid, l->ustack), i;
	struct alloc_total zero = {};

	s->live[0] += l->count;
	s->live[1] += l->size;
	if (!hashmap__get(&ls->idx, key, &i)) {
		i = ls->n;
		if (array__push((void **)&ls->v, &ls->n, &ls->cap, &zero, sizeof(zero)) ||
		    hashmap__set(&ls->idx, key, i))
			return -ENOMEM;
	}
	ls->v[i].bytes += l->size;
	ls->v[i].count += l->count;
	return 0;
}

struct live_ctx {
	struct sampler *s;
	struct live_sums *ls;
};

static int add_live_entry(void *arg, const void *key, const void *val)
{
	struct live_ctx *lc = arg;
	struct alloc_addr a;
	struct alloc_live l;

	memcpy(&a, key, sizeof(a));
	memcpy(&l, val, sizeof(l));
	return add_live(lc->s, lc->ls, &a, &l);
}

static int read_live(struct sampler *s, struct live_sums *ls)
{
	struct live_ctx lc = { s, ls };

	return bpf_maps__each(bpf_map__fd(s->skel->maps.alloc_live), sizeof(struct alloc_addr),
			      sizeof(struct alloc_live), add_live_entry, &lc);
}

/* A stack of allocations: its user stack alone, bytes and counts of both
 * views (the one asked for as the weight). */
static int add_alloc(struct collect_ctx *c, const struct sample_key *k,
		     const struct alloc_total *all, const struct alloc_total *live)
{
	struct sample_key key = *k;
	struct stack_owner who = { key.pid, key.tid, key.comm, key.tcomm };
	bool lv = c->s->opts.alloc == PROFILE_ALLOC_LIVE;
	const struct alloc_total *w = lv ? live : all, *o = lv ? all : live;
	int err;

	/* counts are fixed-point: sampled allocations stand for several */
#define ALLOCS(t) (((t)->count + ALLOC_COUNT_ONE / 2) / ALLOC_COUNT_ONE)

	key.comm[SAMPLE_COMM_LEN - 1] = key.tcomm[SAMPLE_COMM_LEN - 1] = '\0';
	c->n = 0;
	err = push_stack(c, key.ustack, key.pid, FRAME_USER, false);
	if (!err)
		err = profile__add_stack_alloc(c->p, &who, c->frames, c->n, w->bytes, ALLOCS(w),
					       o->bytes, ALLOCS(o));
	if (!err && c->s->opts.timeline)
		err = hashmap__set(&c->stack_of, key_hash(k), profile__last_stack(c->p));
	return err;
#undef ALLOCS
}

struct alloc_ctx {
	struct collect_ctx *c;
	struct live_sums ls;
	uint64_t named;
};

static int add_alloc_entry(void *arg, const void *key_p, const void *val)
{
	struct alloc_ctx *ac = arg;
	struct alloc_total all, live = {};
	struct sample_key key;
	uint64_t i;

	memcpy(&key, key_p, sizeof(key));
	memcpy(&all, val, sizeof(all));
	/* once: a thread renamed has its stack under two keys */
	if (hashmap__get(&ac->ls.idx, owner_key(key.pid, key.tid, key.ustack), &i)) {
		live = ac->ls.v[i];
		ac->ls.v[i] = (struct alloc_total){ 0 };
	}
	ac->named += live.count;
	return add_alloc(ac->c, &key, &all, &live);
}

/* Every stack that allocated, with what of it is still live. */
static int read_allocs(struct collect_ctx *c)
{
	struct alloc_ctx ac = { c, {}, 0 };
	int err = read_live(c->s, &ac.ls);

	if (!err)
		err = bpf_maps__each(bpf_map__fd(c->s->skel->maps.alloc_counts),
				     sizeof(struct sample_key), sizeof(struct alloc_total),
				     add_alloc_entry, &ac);
	c->s->live[2] = c->s->live[0] - ac.named;
	hashmap__free(&ac.ls.idx);
	free(ac.ls.v);
	return err;
}

/* Whether a sample weighs what it says itself (an allocation's bytes, a
 * tracepoint's value, its own period), not its stack's mean. */
static bool own_weight(const struct sampler *s)
{
	return s->opts.alloc || weighed(s) || counted_at_freq(s);
}

/* A tick becomes an event on its sample's stack, made by the counts. */
static int add_tick(struct collect_ctx *c, const struct sample_tick_event *t)
{
	/* a counted event's sample, a tracepoint's hit, an allocation, has no
	 * length: a microsecond in timelines */
	struct profile_event ev = { .cpu = t->cpu,
				    .ts = t->ts,
				    .dur = t->dur ? t->dur
					   : c->s->opts.period || c->s->opts.alloc || c->s->opts.tp
						   ? 1000
						   : c->s->period_ns,
				    .weight = own_weight(c->s) ? t->weight : 0 };
	struct alloc_total none = {};
	uint64_t idx;
	int err = 0;

	if (!hashmap__get(&c->stack_of, key_hash(&t->key), &idx)) {
		/* counted after the counts map was read: its stack, weightless */
		err = c->s->opts.alloc ? add_alloc(c, &t->key, &none, &none)
				       : add_sample(c, &t->key, 0);
		idx = profile__last_stack(c->p);
	}
	ev.stack = idx;
	return err ? err : profile__add_stack_event(c->p, &ev);
}

/* Whether what a hit's argument pointed to reads as text: printable, or
 * UTF-8's bytes, up to its NUL. */
static bool is_text(const char *s, size_t len)
{
	size_t n = strnlen(s, len);

	if (!n || n == len)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* A hit's arguments: numbers, signed as the spec says, or the strings they
 * point to. */
static int hit_args(struct collect_ctx *c, const struct sample_hit_event *h,
		    struct profile_event *ev)
{
	int err = 0;

	for (uint32_t i = 0; i < h->nargs && i < PROFILE_NARGS && !err; i++) {
		bool str = (h->is_str & (1u << i)) && is_text(h->str[i], sizeof(h->str[i]));

		err = profile__set_hit_arg(c->p, ev, i, h->args[i], h->is_signed & (1u << i),
					   str ? h->str[i] : NULL);
	}
	return err;
}

/* A probe's hit becomes an instant event on its stack, with its arguments. */
static int add_hit(struct collect_ctx *c, const struct sample_hit_event *h)
{
	struct profile_event ev = { .cpu = h->cpu,
				    .ts = h->ts,
				    .dur = PROFILE_HIT_DUR_NS,
				    .flags = PROFILE_EVENT_INSTANT };
	uint64_t idx;
	int err = hit_args(c, h, &ev);

	if (err)
		return err;
	if (!hashmap__get(&c->stack_of, key_hash(&h->key), &idx)) {
		err = add_sample(c, &h->key, 0);
		idx = profile__last_stack(c->p);
	}
	ev.stack = idx;
	return err ? err : profile__add_stack_event(c->p, &ev);
}

/* Whether a block open at the stop is within --min-block and --max-block;
 * else it is counted as left out, as the kernel counts the others. */
static bool kept_block(struct sampler *s, uint64_t ns)
{
	int k = ns < s->opts.min_block_ns			    ? 0
		: s->opts.max_block_ns && ns > s->opts.max_block_ns ? 2
								    : -1;

	if (k < 0)
		return true;
	s->still_left[k]++;
	s->still_left[k + 1] += ns;
	return false;
}

/* A thread still off the CPU at the stop: its time up to it, as the
 * capture saw it. */
static int add_still_off(struct collect_ctx *c, const struct offcpu_start st)
{
	int err;

	if (st.ts >= c->s->stop_ns)
		return 0;
	if (st.flags & OFFCPU_F_KTHREAD) {
		c->s->still_kthread[0]++;
		c->s->still_kthread[1] += c->s->stop_ns - st.ts;
		return 0;
	}
	/* idle the whole capture: its width would say nothing but that */
	if ((st.flags & OFFCPU_F_AT_START) && !c->s->opts.idle) {
		c->s->idle[0]++;
		c->s->idle[1] += c->s->stop_ns - st.ts;
		return 0;
	}
	if (!kept_block(c->s, c->s->stop_ns - st.ts))
		return 0;
	err = add_sample(c, &st.key, c->s->stop_ns - st.ts);
	if (!err)
		c->s->still_kept++;
	return err;
}

static int add_still_off_all(struct collect_ctx *c)
{
	int err = 0;

	for (size_t i = 0; i < c->s->nstill && !err; i++)
		err = add_still_off(c, c->s->still[i]);
	return err;
}

/* The kernel's addresses in the stacks (Linux gives the kernel the upper
 * half of a 64-bit address space; a user stack's stray word there costs a
 * lookup), so that kallsyms is read for them alone. */
static int want_kernel_addrs(struct collect_ctx *c)
{
	const struct stack_table *t = &c->s->stacks;
	uint64_t *v = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	if (c->s->ksyms) /* --continuous: lent, read whole once for many intervals */
		return 0;
	for (size_t i = 0; i < t->n && !err; i++)
		for (uint32_t j = 0; j < t->v[i].nr && !err; j++)
			if (t->v[i].ip[j] >> 63)
				err = array__push((void **)&v, &n, &cap, &t->v[i].ip[j],
						  sizeof(*v));
	err = err ?: symbolizer__kernel_addrs(c->sym, v, n);
	free(v);
	return err;
}

static int collect_from(struct sampler *s, int counts_fd, struct profile *p)
{
	struct collect_ctx *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->s = s;
	c->counts_fd = counts_fd;
	c->p = p;
	memset(&s->runtimes, 0, sizeof(s->runtimes));
	/* before any name is looked up: the maps JVMs write now name them */
	if (s->opts.user)
		runtimes__ask_jvms(&s->runtimes, s->procs);
	if (s->beam)
		beam_procs__refresh(s->beam, s->procs, true); /* the names the profile gets */
	c->sym = symbolizer__new_with(p, s->procs, s->bins);
	if (c->sym)
		symbolizer__lend_kallsyms(c->sym, s->ksyms);
	err = !c->sym ? -ENOMEM : want_kernel_addrs(c);
	if (!err)
		err = s->opts.alloc ? read_allocs(c) : read_counts(c);
	if (!err && s->opts.offcpu)
		err = add_still_off_all(c);
	for (size_t i = 0; i < s->nspilled && !err; i++)
		err = add_sample(c, &s->spilled[i].key, s->spilled[i].weight);
	for (size_t i = 0; i < s->nticks && !err; i++)
		err = add_tick(c, &s->ticks[i]);
	for (size_t i = 0; i < s->nhits && !err; i++)
		err = add_hit(c, &s->hits[i]);
	if (!err)
		runtimes__count(&s->runtimes, p, s->procs);
	symbolizer__free(c->sym);
	hashmap__free(&c->stack_of);
	hashmap__free(&c->py_frames);
	free(c->eval_of);
	free(c);
	return err;
}

int sampler__collect(struct sampler *s, struct profile *p)
{
	/* not a profile whose last Python frames are missing without a word */
	if (s->flush_err)
		return s->flush_err;
	return collect_from(s, s->counts_fd, p);
}

/* An empty map to swap in, as counts is: counts_now takes a hash map of
 * its template's key and value, of any size (Linux 5.10). */
static int make_twin(struct sampler *s)
{
	const struct bpf_map *m = s->skel->maps.counts;
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "counts_twin", bpf_map__key_size(m),
				bpf_map__value_size(m), bpf_map__max_entries(m), NULL);

	if (fd < 0)
		return -errno;
	s->twin_fd = s->made_fd = fd;
	return 0;
}

/* Deletes every key of a map nothing writes to any more, each after the
 * next was found from it (a search from a deleted key, or from none,
 * starts again at the first bucket: quadratic in a large map). */
static int empty_map(int fd)
{
	struct sample_key key, next;
	bool more = !bpf_map_get_next_key(fd, NULL, &key);

	while (more) {
		more = !bpf_map_get_next_key(fd, &key, &next);
		if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
			return -errno;
		if (more)
			key = next;
	}
	return 0;
}

/* Kernel names for the intervals: /proc/kallsyms is read once every
 * KALLSYMS_AGE_NS, not for each interval (a 100-ms read of some 150,000
 * lines, most of continuous mode's time at 19 Hz). */
#define KALLSYMS_AGE_NS (600 * 1000000000ULL)

static void refresh_kallsyms(struct sampler *s)
{
	if (!s->opts.kernel || (s->ksyms && now_ns() - s->ksyms_ns < KALLSYMS_AGE_NS))
		return;
	kallsyms__free(s->ksyms);
	s->ksyms = NULL;
	s->ksyms_ns = now_ns();
	if (kallsyms__load("/proc/kallsyms", &s->ksyms))
		s->ksyms = NULL;
}

/* A stack is kept while a sample used it in the last so many intervals:
 * beside other programs' builds and tests, every new process's stacks are
 * new (their libraries at other addresses), by the thousand a minute. */
#define STACK_AGES 3

/* Takes a stack's id off the kernel side's map of the ids sent. */
static void unsend(uint64_t id, void *arg)
{
	const struct sampler *s = arg;
	__u64 key = id;

	bpf_map_delete_elem(bpf_map__fd(s->skel->maps.sent), &key);
}

/* A binary's symbols are kept while it was found in the last so many
 * intervals (10 minutes of 60-s intervals), and while all kept hold no
 * more than so many bytes: beside a build or a test suite, hundreds of
 * binaries run in ten minutes, a C++ library's names alone take MiBs, and
 * the memory must stay flat (issue 20). Reading a table again costs
 * milliseconds, once an interval at most. */
#define BIN_AGES       10
#define BIN_KEPT_BYTES (12UL << 20)

struct gone_ctx {
	struct sampler *s;
	struct hashmap now;
};

/* A process is forgotten one drain after it was first found gone: its
 * last samples may be in the interval after the one it exited in. One
 * that never had a sample goes at once: its mappings were recorded as it
 * made them only in case it had (beside a build, thousands of processes a
 * minute, most too short-lived to be sampled at 99 Hz, filled the record
 * of mappings, 25 MiB). */
static bool keep_proc(pid_t pid, void *arg)
{
	struct gone_ctx *g = arg;
	uint64_t v;

	if (pid <= 0 || !kill(pid, 0) || errno != ESRCH)
		return true;
	if (!procs__sampled(g->s->procs, pid) || hashmap__get(&g->s->gone, (uint64_t)pid, &v)) {
		/* with it, what its interpreters' memory was read for */
		if (g->s->py)
			py_procs__forget(g->s->py, pid);
		if (g->s->jvm)
			jvm_procs__forget(g->s->jvm, pid);
		return false;
	}
	hashmap__set(&g->now, (uint64_t)pid, 1);
	return true;
}

/* What a long capture keeps of processes that exited, and of binaries
 * nobody ran for a while, let go (issue 20's flat memory). */
static void forget_unused(struct sampler *s, struct sampler_evicted *ev)
{
	struct gone_ctx g = { .s = s };

	/* the first samples of processes gone since the swap are noted first */
	ring_buffer__consume(s->rb);
	ev->procs = procs__evict(s->procs, keep_proc, &g);
	ev->snapshots = procs__trim(s->procs);
	/* not where the kernel side holds stack ids across intervals: a block
	 * off the CPU counts its stack when it ends, a live allocation when
	 * it is freed or at the stop */
	if (!s->opts.offcpu && !s->opts.alloc) {
		ev->stacks = stack_table__evict(&s->stacks, STACK_AGES, unsend, s);
		/* the ids each CPU keeps of the Python records it sent are
		 * forgotten all at once: a record no longer sent is sent again */
		s->skel->bss->py_sent_gen++;
	}
	hashmap__free(&s->gone);
	s->gone = g.now;
	symcache__age(s->bins);
	ev->binaries = symcache__evict(s->bins, BIN_AGES, BIN_KEPT_BYTES);
	/* what was let go, back to the system: freed in the middle of the
	 * heap, glibc keeps it */
	malloc_trim(0);
}

/* The samples of the interval that ends now, counted in one map while the
 * next interval's go to its twin: the swap returns once no program can
 * still add to the old map (counts_now in sample.bpf.c), so the old map is
 * read whole and emptied with nothing racing. The ring buffer is drained
 * after the swap: what the old map could not hold (spilled) is in it. A
 * sample spilled just after the swap may fall in this interval rather than
 * the next; none is lost or counted twice. Stacks and symbols stay for the
 * later intervals. */
int sampler__drain(struct sampler *s, struct profile *p, struct sampler_evicted *ev)
{
	__u32 zero = 0;
	int old = s->counts_fd, err;

	refresh_kallsyms(s);
	if (s->twin_fd < 0 && (err = make_twin(s)))
		return err;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.counts_now), &zero, &s->twin_fd, BPF_ANY))
		return -errno;
	s->counts_fd = s->twin_fd;
	s->twin_fd = old;
	err = flush_python(s);
	if (err)
		return err;
	ring_buffer__consume(s->rb);
	if (s->event_err)
		return s->event_err;
	err = collect_from(s, old, p);
	s->nspilled = s->nticks = s->nhits = 0;
	forget_unused(s, ev);
	/* emptied even when the reading failed: swapped in again, what it
	 * held would be counted twice */
	return empty_map(old) ?: err;
}

static uint64_t map_bytes(const struct bpf_map *m)
{
	return (uint64_t)bpf_map__max_entries(m) * (bpf_map__key_size(m) + bpf_map__value_size(m));
}

void sampler__stats(struct sampler *s, struct sampler_stats *st)
{
	memset(st, 0, sizeof(*st));
	read_counters(s, st->counter);
	for (int k = 0; k < 4; k++)
		st->counter[CNT_OFF_SHORT + k] += s->still_left[k];
	st->counter[CNT_OFF_KTHREAD] += s->still_kthread[0];
	st->counter[CNT_OFF_KTHREAD_NS] += s->still_kthread[1];
	st->counter[CNT_OFF_BLOCKS] += s->still_kept;
	st->idle_threads = s->idle[0];
	st->blocked_at_start_unseen = s->no_iter;
	st->still_unread = s->still_err;
	st->idle_ns = s->idle[1];
	st->ncpus = s->nattached;
	st->thread_ns = &s->thread_ns;
	st->event = s->event;
	st->tracepoint = s->opts.tp != NULL;
	st->usdt_probes = s->opts.usdt ? usdt_plan__nprobes(s->opts.usdt) : 0;
	st->spans = s->opts.spans ? s->opts.spans->nspans : 0;
	st->classic = !s->multi && (s->opts.usdt || s->opts.spans || s->opts.alloc);
	st->ticks = s->nticks;
	st->stacks = s->stacks.n;
	st->collisions = s->stacks.collisions;
	st->unwind = s->skel->rodata->unwind_mode;
	if (s->unwinder)
		unwinder__stats(s->unwinder, &st->tables);
	if (s->mmaps)
		mmap_events__stats(s->mmaps, &st->mmaps);
	st->live = (s->live[0] + ALLOC_COUNT_ONE / 2) / ALLOC_COUNT_ONE;
	st->live_bytes = s->live[1];
	st->live_unnamed = (s->live[2] + ALLOC_COUNT_ONE / 2) / ALLOC_COUNT_ONE;
	st->runtimes = &s->runtimes;
	if (s->py) {
		st->python_procs = py_procs__count(s->py, st->python_name, sizeof(st->python_name));
		st->python_unknown = py_procs__unknown(s->py);
		st->python_off = s->py_off;
		st->python_timed = s->py_time;
	}
	st->map_bytes = map_bytes(s->skel->maps.alloc_counts) +
			map_bytes(s->skel->maps.alloc_live) + map_bytes(s->skel->maps.counts) +
			map_bytes(s->skel->maps.sent) + map_bytes(s->skel->maps.seen) +
			st->tables.bytes + bpf_map__max_entries(s->skel->maps.events) +
			bpf_map__max_entries(s->skel->maps.py_events);
}

void sampler__alloc_progs(struct sampler *s, struct bpf_program **entries,
			  struct bpf_program **returns, bool *multi)
{
	*entries = s->skel->progs.on_alloc_enter;
	*returns = s->skel->progs.on_alloc_exit;
	*multi = s->multi;
}

/* A site's probe, "PROVIDER:NAME", by its cookie in plan pl. */
static const char *probe_name(const struct usdt_plan *pl, uint64_t cookie)
{
	return pl && cookie && cookie <= pl->nnames ? pl->names[cookie - 1] : "?";
}

void sampler__failed_site(struct sampler *s, char *buf, size_t len)
{
	const struct uprobe_failure *f = &s->span_links.failed;
	const struct usdt_plan *pl = s->opts.spans ? &s->opts.spans->sites : NULL;

	if (!f->path[0]) {
		f = &s->usdt_links.failed;
		pl = s->opts.usdt;
	}
	if (!f->path[0])
		snprintf(buf, len, "%s", "");
	else if (!f->one)
		snprintf(buf, len, "in '%s'", f->path);
	else
		snprintf(buf, len, "%s at 0x%" PRIx64 " in '%s'", probe_name(pl, f->cookie),
			 f->offset, f->path);
}

void sampler__free(struct sampler *s)
{
	if (!s)
		return;
	if (s->skel)
		sampler__stop(s);
	ring_buffer__free(s->rb);
	if (s->made_fd >= 0)
		close(s->made_fd);
	kallsyms__free(s->ksyms);
	hashmap__free(&s->gone);
	hashmap__free(&s->thread_ns);
	hashmap__free(&s->remapped);
	hashmap__free(&s->span_idx);
	free(s->span_nodes);
	sample_bpf__destroy(s->skel);
	procs__free(s->procs);
	symcache__free(s->bins);
	unwinder__free(s->unwinder);
	py_procs__free(s->py);
	beam_procs__free(s->beam);
	jvm_procs__free(s->jvm);
	free(s->jvm_waiting);
	mmap_events__free(s->mmaps);
	stack_table__free(&s->stacks);
	free(s->spilled);
	free(s->ticks);
	free(s->hits);
	free(s->still);
	free(s->perf_fds);
	free(s->links);
	free(s);
}
