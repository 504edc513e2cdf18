// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "symbols/procs.h"
#include "symbols/symbolize.h"
#include "symbols/symcache.h"
#include "util/array.h"
#include "util/hashmap.h"
#include "bpf_maps.h"
#include "command.h"
#include "task_iter.h"
#include "py_sites.h"
#include "py_trace.h"
#include "stack_table.h"
#include "trace.skel.h"
#include "tracer.h"
#include "uprobe_sites.h"

struct tracer {
	struct tracer_opts opts;
	struct trace_bpf *skel;
	int ncpus;
	struct uprobe_sites links; /* links.multi: the kernel has uprobe_multi links */
	bool sessions;		   /* ... and uprobe sessions */
	struct bpf_link *exit_link, *fork_link, *exec_link, *switch_link;
	struct ring_buffer *rb;
	struct stack_table paths;	  /* call paths: function ids, leaf first */
	struct stack_table ustacks;	  /* --full-stack: user stacks, leaf first */
	struct hashmap roots;		  /* path id -> the user stack it grows from */
	struct procs *procs;		  /* mappings, to symbolize user stacks */
	struct symcache *bins;		  /* binaries read during the capture (containers) */
	struct unwinder *unwinder;	  /* --full-stack by unwind tables */
	struct trace_call_event *spilled; /* calls that did not fit in the counts map */
	size_t nspilled, spilled_cap;
	struct kept_call *records; /* calls for timelines, when wanted */
	size_t nrecords, records_cap;
	struct kept_args *args; /* theirs, when an output shows them */
	size_t nargs, args_cap;
	struct kept_split *splits; /* theirs, with --cpu-split */
	size_t nsplits, splits_cap;
	uint64_t records_over;
	struct trace_proc_event *procs_ev; /* not yet handed out by tracer__proc_events() */
	size_t nprocs_ev, procs_ev_cap;
	struct py_code_event *py_ev; /* not yet handed out by tracer__py_codes() */
	size_t npy_ev, py_ev_cap;
	int event_err;
	int stop_err; /* the pending calls could not be flushed */
};

/*
 * A call kept for a timeline: what the writers need of a trace_call_record,
 * in half its size, with the arguments and return value apart and kept only
 * for an output that shows them. At a million calls a second, what costs the
 * reader most is the kernel zeroing the fresh pages they are copied to.
 */
struct kept_call {
	uint32_t pid, tid;
	uint64_t start, dur, path;
	uint32_t cpu, flags;
};

struct kept_args {
	uint64_t args[TRACE_NARGS];
	uint64_t ret;
};

struct kept_split {
	uint64_t off_ns[TRACE_NSTATES];
};

static uint32_t unwind_rows(const struct tracer_opts *o)
{
	if (!o->want_stacks || o->unwind == UNWIND_MODE_FP)
		return UNWIND_CHUNK_ROWS;
	return UNWINDER_ROWS_MAX;
}

/* A new program in a filtered process loses its PID_PLAIN; --full-stack
 * takes a new snapshot of its mappings. */
static bool watches_exec(const struct tracer_opts *o)
{
	return o->want_stacks || o->filter_pids;
}

/* -f py: the probes of the evaluation loop (3.11+), or of the evaluation
 * function's calls (3.10), the latter as a session where there are. */
static void prepare_python(struct tracer *t, struct trace_bpf *skel)
{
	bool loop = t->opts.python && !t->opts.python_eval_calls;
	bool calls = t->opts.python && t->opts.python_eval_calls;

	uprobe_sites__prepare(&t->links, skel->progs.on_py_entry, UPROBE_MULTI_ENTRY);
	uprobe_sites__prepare(&t->links, skel->progs.on_py_exit, UPROBE_MULTI_ENTRY);
	bpf_program__set_autoload(skel->progs.on_py_entry, loop);
	bpf_program__set_autoload(skel->progs.on_py_exit, loop);
	if (calls && t->sessions)
		uprobe_sites__prepare(&t->links, skel->progs.on_py310, UPROBE_MULTI_SESSION);
	bpf_program__set_autoload(skel->progs.on_py310, calls && t->sessions);
	uprobe_sites__prepare(&t->links, skel->progs.on_py310_entry, UPROBE_MULTI_ENTRY);
	uprobe_sites__prepare(&t->links, skel->progs.on_py310_return, UPROBE_MULTI_RETURN);
	bpf_program__set_autoload(skel->progs.on_py310_entry, calls && !t->sessions);
	bpf_program__set_autoload(skel->progs.on_py310_return, calls && !t->sessions);
}

/* Threads whose shadow stacks are in an array slot (bpf's hot_shadows), a
 * power of two: 14 KiB each, 0.9 MiB in all; the others' are in task
 * storage. */
#define HOT_SHADOW_SLOTS 64

static int load(struct tracer *t)
{
	struct trace_bpf *skel = trace_bpf__open();
	int err = 0;

	if (!skel)
		return -errno;
	skel->rodata->filter_pids = t->opts.filter_pids;
	skel->rodata->spawner_ino = command__spawner_ino();
	skel->rodata->want_calls = t->opts.want_calls;
	bpf_program__set_autoload(skel->progs.on_fork, t->opts.follow_children);
	bpf_program__set_autoload(skel->progs.on_exec, watches_exec(&t->opts));
	skel->rodata->want_stacks = t->opts.want_stacks;
	skel->rodata->unwind_mode = t->opts.want_stacks ? t->opts.unwind : UNWIND_MODE_FP;
	skel->rodata->hold_exec = skel->rodata->unwind_mode != UNWIND_MODE_FP;
	bpf_map__set_max_entries(skel->maps.unwind_rows, unwind_rows(&t->opts) / UNWIND_CHUNK_ROWS);
	skel->rodata->notify_forks = t->opts.notify_forks;
	skel->rodata->notify_execs = t->opts.notify_execs;
	skel->rodata->cpu_split = t->opts.cpu_split;
	/* a hook on every switch of the system: paid only when asked for */
	bpf_program__set_autoload(skel->progs.on_switch, t->opts.cpu_split);
	if (t->opts.python)
		skel->rodata->py_lay = *t->opts.python;
	prepare_python(t, skel);
	uprobe_sites__prepare(&t->links, skel->progs.on_entry, UPROBE_MULTI_ENTRY);
	uprobe_sites__prepare(&t->links, skel->progs.on_return, UPROBE_MULTI_RETURN);
	uprobe_sites__prepare(&t->links, skel->progs.on_ret_insn, UPROBE_MULTI_ENTRY);
	uprobe_sites__prepare(&t->links, skel->progs.on_exception, UPROBE_MULTI_ENTRY);
	if (t->sessions)
		uprobe_sites__prepare(&t->links, skel->progs.on_session, UPROBE_MULTI_SESSION);
	else
		bpf_program__set_autoload(skel->progs.on_session, false);
	bpf_map__set_max_entries(skel->maps.counts, 65536);
	bpf_map__set_max_entries(skel->maps.sent, 65536);
	skel->rodata->hot_mask = HOT_SHADOW_SLOTS - 1;
	bpf_map__set_max_entries(skel->maps.hot_shadows, HOT_SHADOW_SLOTS);
	/* timelines send a record (~90 bytes) per call: 1M calls/s fill 4.4 MiB
	 * between two 50 ms polls */
	bpf_map__set_max_entries(skel->maps.events, t->opts.want_calls ? 32 << 20 : 4 << 20);
	/* the row array made now, its first chunk put in while the programs
	 * are verified */
	if (skel->rodata->unwind_mode != UNWIND_MODE_FP)
		err = unwinder__new(&t->unwinder, skel->maps.unwind_rows, unwind_rows(&t->opts));
	if (!err)
		err = trace_bpf__load(skel);
	if (!err && t->unwinder)
		err = unwinder__ready(t->unwinder, bpf_map__fd(skel->maps.unwind_procs),
				      bpf_map__fd(skel->maps.unwind_files),
				      bpf_map__fd(skel->maps.unwind_fp_below));
	if (err) {
		unwinder__free(t->unwinder);
		t->unwinder = NULL;
		trace_bpf__destroy(skel);
		return err;
	}
	t->skel = skel;
	return 0;
}

static int spill(struct tracer *t, const struct trace_call_event *ev)
{
	return array__push((void **)&t->spilled, &t->nspilled, &t->spilled_cap, ev, sizeof(*ev));
}

static int keep_split(struct tracer *t, const struct trace_call_record *r, size_t size)
{
	struct kept_split k = {};

	if (size >= sizeof(*r))
		memcpy(k.off_ns, r->off_ns, sizeof(k.off_ns));
	return array__push((void **)&t->splits, &t->nsplits, &t->splits_cap, &k, sizeof(k));
}

static int keep_record(struct tracer *t, const struct trace_call_record *r, size_t size)
{
	struct kept_call k = { r->pid, r->tid, r->start, r->dur, r->path, r->cpu, r->flags };
	struct kept_args a = { .ret = r->ret };
	int err;

	if (t->nrecords >= t->opts.max_calls) {
		t->records_over++;
		return 0;
	}
	if (t->opts.cpu_split) {
		err = keep_split(t, r, size);
		if (err)
			return err;
	}
	if (t->opts.want_args) {
		memcpy(a.args, r->args, sizeof(a.args));
		err = array__push((void **)&t->args, &t->nargs, &t->args_cap, &a, sizeof(a));
		if (err)
			return err;
	}
	return array__push((void **)&t->records, &t->nrecords, &t->records_cap, &k, sizeof(k));
}

/* Errors stop the ring buffer's consume loop; the first is kept to report. */
static int keep_proc_event(struct tracer *t, const struct trace_proc_event *ev)
{
	return array__push((void **)&t->procs_ev, &t->nprocs_ev, &t->procs_ev_cap, ev, sizeof(*ev));
}

static int keep_py_code(struct tracer *t, const struct py_code_event *ev)
{
	return array__push((void **)&t->py_ev, &t->npy_ev, &t->py_ev_cap, ev, sizeof(*ev));
}

size_t tracer__py_codes(struct tracer *t, const struct py_code_event **ev)
{
	size_t n = t->npy_ev;

	*ev = t->py_ev;
	t->npy_ev = 0;
	return n;
}

size_t tracer__proc_events(struct tracer *t, const struct trace_proc_event **ev)
{
	size_t n = t->nprocs_ev;

	*ev = t->procs_ev;
	t->nprocs_ev = 0;
	return n;
}

unsigned int tracer__pid_flags(struct tracer *t, pid_t pid)
{
	__u32 key = pid;
	__u8 flags = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.pids), &key, &flags))
		return 0;
	return flags;
}

/* A process's maps, read now: its unwind tables and, in a container, its
 * binaries' symbols (symbolizer__preload). */
static int snapshot(struct tracer *t, pid_t pid)
{
	int err = unwinder__snapshot(t->unwinder, t->procs, pid);

	symbolizer__preload(t->bins, t->procs, pid);
	return err;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;
	const __u32 *type = data;
	int err = 0;

	if (size < sizeof(*type))
		return 0;
	if (*type == EV_STACK)
		err = stack_table__add_event(&t->paths, data, size);
	else if (*type == EV_USTACK)
		err = stack_table__add_event(&t->ustacks, data, size);
	else if (*type == EV_PATH_ROOT && size >= sizeof(struct trace_path_root))
		err = hashmap__set(&t->roots, ((const struct trace_path_root *)data)->path,
				   ((const struct trace_path_root *)data)->ustack);
	else if ((*type == EV_PROC || *type == EV_MAPS || *type == EV_LOOK) &&
		 size >= sizeof(struct sample_proc_event))
		err = snapshot(t, ((const struct sample_proc_event *)data)->pid);
	else if (*type == EV_HELD && size >= sizeof(struct sample_proc_event))
		command__let_go(((const struct sample_proc_event *)data)->pid);
	else if (*type == EV_CALL && size >= sizeof(struct trace_call_event))
		err = spill(t, data);
	else if (*type == EV_CALL_RECORD && size >= offsetof(struct trace_call_record, off_ns))
		err = keep_record(t, data, size);
	else if ((*type == EV_FORK || *type == EV_EXEC) && size >= sizeof(struct trace_proc_event))
		err = keep_proc_event(t, data);
	else if (*type == EV_PY_CODE && size >= sizeof(struct py_code_event))
		err = keep_py_code(t, data);
	if (err && !t->event_err)
		t->event_err = err;
	return err;
}

int tracer__open(struct tracer **out, const struct tracer_opts *o)
{
	struct tracer *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	t->opts = *o;
	if (!t->opts.max_calls)
		t->opts.max_calls = 1000000;
	uprobe_multi__features(&t->links.multi, &t->sessions);
	t->procs = procs__new();
	t->bins = symbolizer__new_cache();
	if (!t->procs || !t->bins) {
		err = -ENOMEM;
		goto err_free;
	}
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		err = t->ncpus ? t->ncpus : -EINVAL;
		goto err_free;
	}
	err = load(t);
	if (err)
		goto err_free;
	/* calls a thread is in when it exits end there: counted, not dropped */
	t->exit_link = bpf_program__attach(t->skel->progs.on_exit);
	if (!t->exit_link) {
		err = -errno;
		goto err_free;
	}
	if (t->opts.follow_children &&
	    !(t->fork_link = bpf_program__attach(t->skel->progs.on_fork))) {
		err = -errno;
		goto err_free;
	}
	if (watches_exec(&t->opts) &&
	    !(t->exec_link = bpf_program__attach(t->skel->progs.on_exec))) {
		err = -errno;
		goto err_free;
	}
	/* before the probes: every block inside a call is seen */
	if (t->opts.cpu_split &&
	    !(t->switch_link = bpf_program__attach(t->skel->progs.on_switch))) {
		err = -errno;
		goto err_free;
	}
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), handle_event, t, NULL);
	if (!t->rb) {
		err = -errno;
		goto err_free;
	}
	*out = t;
	return 0;
err_free:
	tracer__free(t);
	return err;
}

int tracer__add_pid(struct tracer *t, pid_t pid, unsigned int flags, bool before_exec)
{
	__u32 key = pid;
	__u8 value = PID_TRACED | flags | (before_exec ? PID_BEFORE_EXEC : 0), was;

	/* in already (source_tracer__add_targets): nothing to do again */
	if (!bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.pids), &key, &was) && was == value)
		return 0;
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.pids), &key, &value, BPF_ANY))
		return -errno;
	/* --full-stack: its first stacks unwound by tables too (a command's
	 * once it execs: on_exec has it read then; its C library's at the
	 * load, unwinder__new) */
	if (!t->opts.want_stacks)
		return 0;
	if (before_exec) {
		procs__snapshot(t->procs, pid); /* its names until it execs */
		return 0;
	}
	return snapshot(t, pid);
}

/* The probes at offsets[i] with cookies ids[i], skipping those the kernel
 * refuses (flagged in bad[]). */
static int attach_set(struct tracer *t, struct bpf_program *prog, const char *path,
		      const uint64_t *offsets, const uint64_t *ids, size_t n,
		      enum uprobe_multi_kind kind, pid_t pid, bool *bad)
{
	const struct uprobe_set set = {
		.path = path, .offsets = offsets, .cookies = ids, .n = n, .kind = kind, .pid = pid
	};

	return uprobe_sites__attach(&t->links, prog, &set, bad);
}

enum subset {
	ALL,	  /* every function not refused yet */
	BY_URET,  /* those whose return a uretprobe (or session) catches */
	BY_SITES, /* those whose returns are caught at their return sites */
};

static bool in_subset(const struct trace_target *tg, size_t i, enum subset which)
{
	return which == ALL || (which == BY_URET) == tg->uret[i];
}

/* Attaches prog at the entries of a subset of the functions; those the
 * kernel refuses are flagged in bad[] (and so never entered later). */
static int attach_subset(struct tracer *t, struct bpf_program *prog, enum uprobe_multi_kind kind,
			 const struct trace_target *tg, enum subset which, pid_t pid, bool *bad)
{
	uint64_t *off = malloc((tg->n + 1) * sizeof(*off)),
		 *ids = malloc((tg->n + 1) * sizeof(*ids));
	bool *sub_bad = calloc(tg->n + 1, sizeof(*sub_bad));
	size_t n = 0;
	int err = -ENOMEM;

	if (!off || !ids || !sub_bad)
		goto out;
	for (size_t i = 0; i < tg->n; i++) {
		if (bad[i] || !in_subset(tg, i, which))
			continue;
		off[n] = tg->offsets[i];
		ids[n++] = tg->ids[i] |
			   (which == BY_URET && tg->plain_only[i] ? TRACE_PLAIN_ONLY : 0) |
			   (tg->go_g[i] ? TRACE_GO_G : 0);
	}
	err = attach_set(t, prog, tg->path, off, ids, n, kind, pid, sub_bad);
	for (size_t i = 0, j = 0; !err && i < tg->n; i++)
		if (!bad[i] && in_subset(tg, i, which))
			bad[i] = sub_bad[j++];
out:
	free(off);
	free(ids);
	free(sub_bad);
	return err;
}

static int attach_sites(struct tracer *t, const struct trace_target *tg, pid_t pid,
			size_t *bad_sites)
{
	bool *bad = calloc(tg->nsites + 1, sizeof(*bad));
	int err;

	if (!bad)
		return -ENOMEM;
	err = attach_set(t, t->skel->progs.on_ret_insn, tg->path, tg->site_offsets, tg->site_ids,
			 tg->nsites, UPROBE_MULTI_ENTRY, pid, bad);
	*bad_sites = 0;
	for (size_t i = 0; i < tg->nsites; i++)
		*bad_sites += bad[i];
	free(bad);
	return err;
}

/* Returns go in before entries: an entry without its return would unbalance
 * the shadow stack. A session is both at once. */
int tracer__attach(struct tracer *t, const struct trace_target *tg, pid_t pid, bool *bad,
		   size_t *bad_sites)
{
	struct bpf_program *entry = t->skel->progs.on_entry;
	int err;

	memset(bad, 0, tg->n * sizeof(*bad));
	if (t->sessions)
		err = attach_subset(t, t->skel->progs.on_session, UPROBE_MULTI_SESSION, tg, BY_URET,
				    pid, bad);
	else
		err = attach_subset(t, t->skel->progs.on_return, UPROBE_MULTI_RETURN, tg, BY_URET,
				    pid, bad);
	if (!err)
		err = attach_sites(t, tg, pid, bad_sites);
	if (!err)
		err = attach_subset(t, entry, UPROBE_MULTI_ENTRY, tg, t->sessions ? BY_SITES : ALL,
				    pid, bad);
	return err;
}

int tracer__attach_exceptions(struct tracer *t, const char *path, const uint64_t *offsets,
			      const uint64_t *ref_ctrs, const uint64_t *cookies, size_t n,
			      pid_t pid)
{
	const struct uprobe_set set = { .path = path,
					.offsets = offsets,
					.ref_ctrs = ref_ctrs,
					.cookies = cookies,
					.n = n,
					.kind = UPROBE_MULTI_ENTRY,
					.pid = pid };

	return uprobe_sites__attach(&t->links, t->skel->progs.on_exception, &set, NULL);
}

/* The register numbers, and the conditions (py_sites.h), as cookies. */
static int attach_python_set(struct tracer *t, struct bpf_program *prog,
			     enum uprobe_multi_kind kind, const char *path, const uint64_t *off,
			     const uint8_t *reg, const uint8_t *cond, size_t n, pid_t pid)
{
	uint64_t cookies[PY_SITES_MAX];
	bool bad[PY_SITES_MAX] = {};
	int err;

	if (n > PY_SITES_MAX)
		return -E2BIG;
	for (size_t i = 0; i < n; i++)
		cookies[i] = reg[i] | (uint64_t)(cond ? cond[i] : 0) << PY_COOKIE_COND_SHIFT;
	err = attach_set(t, prog, path, off, cookies, n, kind, pid, bad);
	for (size_t i = 0; !err && i < n; i++)
		if (bad[i])
			err = -EINVAL;
	return err;
}

/* 3.10: the evaluation function's entry and return, at off; a session
 * catches only the returns of traced calls. */
static int attach_python_calls(struct tracer *t, const char *path, uint64_t off, pid_t pid)
{
	static const uint8_t no_reg[1];
	int err;

	if (t->sessions)
		return attach_python_set(t, t->skel->progs.on_py310, UPROBE_MULTI_SESSION, path,
					 &off, no_reg, NULL, 1, pid);
	err = attach_python_set(t, t->skel->progs.on_py310_return, UPROBE_MULTI_RETURN, path, &off,
				no_reg, NULL, 1, pid);
	if (!err)
		err = attach_python_set(t, t->skel->progs.on_py310_entry, UPROBE_MULTI_ENTRY, path,
					&off, no_reg, NULL, 1, pid);
	return err;
}

int tracer__attach_python(struct tracer *t, const struct py_dfa *dfa, const char *path,
			  const struct py_sites *ps, pid_t pid)
{
	__u32 zero = 0;
	int err = 0;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.py_dfa), &zero, dfa, BPF_ANY))
		return -errno;
	if (ps->eval_calls)
		return attach_python_calls(t, path, ps->eval_off, pid);
	err = attach_python_set(t, t->skel->progs.on_py_exit, UPROBE_MULTI_ENTRY, path,
				ps->exit_off, ps->exit_reg, NULL, ps->nexit, pid);
	if (!err)
		err = attach_python_set(t, t->skel->progs.on_py_entry, UPROBE_MULTI_ENTRY, path,
					ps->entry_off, ps->entry_reg, ps->entry_cond, ps->nentry,
					pid);
	return err;
}

int tracer__poll(struct tracer *t, int timeout_ms)
{
	int n = ring_buffer__poll(t->rb, timeout_ms);

	/* records come without a wakeup */
	if (n >= 0 || n == -EINTR)
		n = ring_buffer__consume(t->rb);
	if (t->event_err)
		return t->event_err;
	return n < 0 ? n : 0;
}

uint64_t tracer__calls(struct tracer *t)
{
	uint64_t c[TCNT_NR];

	if (bpf_maps__sum_percpu(bpf_map__fd(t->skel->maps.counters), TCNT_NR, t->ncpus, c))
		return 0;
	return c[TCNT_CALLS];
}

void tracer__stop(struct tracer *t)
{
	struct timespec drain = { 0, 20 * 1000 * 1000 };

	bool probed = t->skel->bss && t->links.n;
	int err;

	/* let calls in flight return before their probes go */
	if (probed) {
		t->skel->bss->stopping = true;
		nanosleep(&drain, NULL);
	}
	/* newest first: entries go before the returns they need */
	uprobe_sites__close(&t->links);
	/* the calls each thread added up, while on_exit still takes those of
	 * the threads exiting now */
	err = probed ? task_iter__run(t->skel->progs.flush_at_stop, 0, NULL, NULL) : 0;
	if (err && !t->stop_err)
		t->stop_err = err;
	bpf_link__destroy(t->exit_link);
	bpf_link__destroy(t->fork_link);
	bpf_link__destroy(t->exec_link);
	bpf_link__destroy(t->switch_link);
	t->exit_link = t->fork_link = t->exec_link = t->switch_link = NULL;
	if (t->rb)
		ring_buffer__consume(t->rb);
}

struct collect_ctx {
	struct profile *p;
	struct tracer *t;
	struct symbolizer *sym;	  /* --full-stack only */
	struct hashmap owners;	  /* pid << 32 | tid -> index in names */
	struct sample_key *names; /* comm and thread name of each thread */
	size_t nnames;
	const struct stack_table *paths;
	const struct trace_func *funcs;
	size_t nfuncs;
	uint32_t *frame_of; /* function id -> frame id + 1, 0 when not made yet */
	uint32_t *frames;   /* buf + 1: a state frame may go before them, or after */
	uint32_t buf[SAMPLE_MAX_DEPTH * SYMBOLIZE_MAX_FRAMES + TRACE_MAX_DEPTH + 3];
};

_Static_assert(TRACE_NSTATES == PROFILE_OFF_NR, "the states of trace.h are profile.h's");

static int func_frame(struct collect_ctx *c, uint64_t func, uint32_t *id)
{
	int err;

	if (func >= c->nfuncs)
		return profile__findnew_frame(c->p, "[unknown function]", "", FRAME_USER, id);
	if (c->frame_of[func]) {
		*id = c->frame_of[func] - 1;
		return 0;
	}
	err = profile__findnew_frame_at(c->p,
					&(struct frame){ .name = c->funcs[func].name,
							 .module = c->funcs[func].module,
							 .addr = c->funcs[func].vaddr,
							 .dso = c->funcs[func].path },
					id);
	if (!err)
		c->frame_of[func] = *id + 1;
	return err;
}

/* --full-stack: the user stack the path grows from, root first, without its
 * leaf (the entry of the outermost traced function itself). */
static int root_frames(struct collect_ctx *c, pid_t pid, __u64 path_id, uint32_t *n)
{
	const struct raw_stack *st;
	uint64_t id;
	int err = 0;

	if (!c->sym || !hashmap__get(&c->t->roots, path_id, &id) || id == STACK_ID_NONE)
		return 0;
	st = stack_table__find(&c->t->ustacks, id);
	if (!st)
		return profile__findnew_frame(c->p, "[lost user stack]", "", FRAME_USER,
					      &c->frames[(*n)++]);
	for (uint32_t i = st->nr; i-- > 1 && err >= 0;) {
		err = symbolizer__user_frames(c->sym, pid, st->ip[i], true, &c->frames[*n],
					      SYMBOLIZE_MAX_FRAMES);
		*n += err > 0 ? err : 0;
	}
	return err < 0 ? err : 0;
}

/* The frames of a call path, root first, into c->frames; returns how many
 * or -errno. */
static int path_frames(struct collect_ctx *c, pid_t pid, __u64 id)
{
	const struct raw_stack *path = stack_table__find(c->paths, id);
	uint32_t n = 0;
	int err = root_frames(c, pid, id, &n);

	if (!path)
		err = profile__findnew_frame(c->p, "[lost call path]", "", FRAME_USER,
					     &c->frames[n++]);
	for (uint32_t i = path ? path->nr : 0; i-- > 0 && !err;)
		err = func_frame(c, path->ip[i], &c->frames[n++]);
	return err ? err : (int)n;
}

/* Remembers each thread's names: timeline records do not carry them. */
static int note_owner(struct collect_ctx *c, const struct sample_key *k)
{
	uint64_t key = (uint64_t)k->pid << 32 | k->tid, i;
	struct sample_key *v;

	if (hashmap__get(&c->owners, key, &i))
		return 0;
	v = realloc(c->names, (c->nnames + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->names = v;
	c->names[c->nnames] = *k;
	return hashmap__set(&c->owners, key, c->nnames++);
}

/* The path of n frames with a state frame at its leaf, or under its root
 * (--state-root). */
static int add_in_state(struct collect_ctx *c, const struct stack_owner *who, uint32_t n,
			const char *state, uint64_t ns, uint64_t calls)
{
	bool root = c->t->opts.state_root;
	uint32_t *at = root ? &c->frames[-1] : &c->frames[n];
	int err = profile__findnew_frame(c->p, state, "", FRAME_USER, at);

	return err ? err
		   : profile__add_stack_count(c->p, who, root ? at : c->frames, n + 1, ns, calls);
}

/* --cpu-split: a path's self time becomes leaf frames, each state it was
 * spent in, off the CPU, and the rest [running], which takes the calls. */
static int add_split_call(struct collect_ctx *c, const struct stack_owner *who, uint32_t n,
			  const struct trace_value *v)
{
	uint64_t off = 0;
	int err = 0;

	for (unsigned int s = 0; s < TRACE_NSTATES && !err; s++) {
		off += v->off_ns[s];
		if (v->off_ns[s])
			err = add_in_state(c, who, n, profile__off_state_name(s), v->off_ns[s], 0);
	}
	return err ? err
		   : add_in_state(c, who, n, PROFILE_STATE_RUNNING,
				  v->self_ns > off ? v->self_ns - off : 0, v->calls);
}

static int add_call(struct collect_ctx *c, const struct sample_key *k, const struct trace_value *v)
{
	struct sample_key key = *k;
	struct stack_owner who = { key.pid, key.tid, key.comm, key.tcomm };
	int n, err;

	key.comm[SAMPLE_COMM_LEN - 1] = key.tcomm[SAMPLE_COMM_LEN - 1] = '\0';
	err = note_owner(c, &key);
	n = err ? err : path_frames(c, key.pid, key.ustack);
	if (n < 0)
		return n;
	if (c->t->opts.cpu_split)
		return add_split_call(c, &who, n, v);
	return profile__add_stack_count(c->p, &who, c->frames, n, v->self_ns, v->calls);
}

static int add_record(struct collect_ctx *c, const struct kept_call *r, const struct kept_args *a,
		      const struct kept_split *sp)
{
	struct profile_event ev = { .cpu = r->cpu, .ts = r->start, .dur = r->dur };
	struct stack_owner who = { r->pid, r->tid, "", "" };
	struct profile_split split;
	uint64_t i;
	int n = path_frames(c, r->pid, r->path);

	if (n < 0)
		return n;
	if (hashmap__get(&c->owners, (uint64_t)r->pid << 32 | r->tid, &i)) {
		who.comm = c->names[i].comm;
		who.tcomm = c->names[i].tcomm;
	}
	ev.flags = r->flags & CALL_UNFINISHED ? PROFILE_EVENT_UNFINISHED : 0;
	if (a) {
		memcpy(ev.args, a->args, sizeof(ev.args));
		ev.ret = a->ret;
	}
	if (!sp)
		return profile__add_event(c->p, &who, c->frames, n, &ev);
	memcpy(split.off_ns, sp->off_ns, sizeof(split.off_ns));
	return profile__add_split_event(c->p, &who, c->frames, n, &ev, &split);
}

static int add_count(void *arg, const void *key_p, const void *val_p)
{
	struct trace_key key;
	struct trace_value val;
	struct sample_key k = {};

	memcpy(&key, key_p, sizeof(key));
	memcpy(&val, val_p, sizeof(val));
	if (!val.calls)
		return 0;
	k.pid = key.pid;
	k.tid = key.tid;
	k.ustack = key.path;
	memcpy(k.comm, val.comm, sizeof(k.comm));
	memcpy(k.tcomm, val.tcomm, sizeof(k.tcomm));
	return add_call(arg, &k, &val);
}

static int read_counts(struct collect_ctx *c, int fd)
{
	return bpf_maps__each(fd, sizeof(struct trace_key), sizeof(struct trace_value), add_count,
			      c);
}

int tracer__collect(struct tracer *t, const struct trace_func *funcs, size_t nfuncs,
		    struct profile *p)
{
	struct collect_ctx c = {
		.p = p,
		.t = t,
		.sym = t->opts.want_stacks ? symbolizer__new_with(p, t->procs, t->bins) : NULL,
		.paths = &t->paths,
		.funcs = funcs,
		.nfuncs = nfuncs,
		.frame_of = calloc(nfuncs + 1, sizeof(uint32_t)),
	};
	int err;

	c.frames = c.buf + 1;
	if (!c.frame_of || (t->opts.want_stacks && !c.sym)) {
		free(c.frame_of);
		symbolizer__free(c.sym);
		return -ENOMEM;
	}
	err = t->stop_err ?: read_counts(&c, bpf_map__fd(t->skel->maps.counts));
	for (size_t i = 0; i < t->nspilled && !err; i++)
		err = add_call(&c, &t->spilled[i].key, &t->spilled[i].val);
	for (size_t i = 0; i < t->nrecords && !err; i++)
		err = add_record(&c, &t->records[i], t->args ? &t->args[i] : NULL,
				 t->splits ? &t->splits[i] : NULL);
	free(c.frame_of);
	symbolizer__free(c.sym);
	free(c.names);
	hashmap__free(&c.owners);
	return err;
}

void tracer__stats(struct tracer *t, struct tracer_stats *st)
{
	memset(st, 0, sizeof(*st));
	bpf_maps__sum_percpu(bpf_map__fd(t->skel->maps.counters), TCNT_NR, t->ncpus, st->counter);
	st->paths = t->paths.n;
	st->calls_over = t->records_over;
	st->classic = !t->links.multi;
	st->sessions = t->sessions;
	st->cpu_split = t->opts.cpu_split;
	st->collisions = t->paths.collisions;
	st->unwind = t->skel->rodata->unwind_mode;
	if (t->unwinder)
		unwinder__stats(t->unwinder, &st->tables);
	st->map_bytes = bpf_map__max_entries(t->skel->maps.events);
}

void tracer__free(struct tracer *t)
{
	if (!t)
		return;
	if (t->skel)
		tracer__stop(t);
	ring_buffer__free(t->rb);
	trace_bpf__destroy(t->skel);
	stack_table__free(&t->paths);
	stack_table__free(&t->ustacks);
	hashmap__free(&t->roots);
	procs__free(t->procs);
	symcache__free(t->bins);
	unwinder__free(t->unwinder);
	free(t->spilled);
	free(t->records);
	free(t->args);
	free(t->splits);
	free(t->procs_ev);
	free(t->py_ev);
	free(t);
}
