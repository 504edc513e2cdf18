// SPDX-License-Identifier: GPL-2.0
/* What a capture tells at its end: what it caught, how user stacks were
 * unwound, and every loss. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/msg.h"
#include "util/strbuf.h"
#include "summary.h"
#include "uprobe_multi.h"

static void add_loss(struct strbuf *b, uint64_t n, const char *what)
{
	if (n)
		strbuf__addf(b, "%s%" PRIu64 " %s", b->len ? ", " : "", n, what);
}

void summary__sample_losses(const struct sampler_stats *st, struct strbuf *b)
{
	const uint64_t *c = st->counter;

	add_loss(b, c[CNT_SAMPLES_DROPPED], "samples (ring buffer full)");
	add_loss(b, c[CNT_STACKS_DROPPED], "stacks (ring buffer full)");
	add_loss(b, st->collisions, "stacks (hash collision)");
	add_loss(b, c[CNT_USTACK_ERR], "user stacks (unreadable)");
	add_loss(b, c[CNT_KSTACK_ERR], "kernel stacks (unreadable)");
	add_loss(b, c[CNT_EVENTS_LOST], "process events (ring buffer full)");
	add_loss(b, c[CNT_SEEN_FULL], "process events (process map full)");
	add_loss(b, c[CNT_PIDS_FULL], "child processes untraced (pid map full)");
	add_loss(b, c[CNT_TICKS_DROPPED], "sample times (ring buffer full)");
	add_loss(b, c[CNT_OFF_DROPPED], "blocks off the CPU (map full)");
	add_loss(b, c[CNT_OFF_NO_STORAGE], "blocks off the CPU (no task storage for their start)");
	add_loss(b, c[CNT_OFF_NO_START], "blocks off the CPU (their switch away not traced)");
	add_loss(b, c[CNT_ALLOC_DROPPED], "allocations (counts map full)");
	add_loss(b, c[CNT_ALLOC_LIVE_FULL], "allocations not kept as live (live map full)");
	add_loss(b, c[CNT_ALLOC_NO_CALL], "allocation calls (no task storage)");
	add_loss(b, c[CNT_SPAN_DEEP], "spans (more than 8 open on a thread)");
	add_loss(b, c[CNT_SPAN_LOST], "span labels (ring buffer full)");
	add_loss(b, st->live_unnamed, "live allocations of stacks whose counts were lost");
	add_loss(b, st->mmaps.lost,
		 "mapping records (perf ring full: names of processes that exited)");
}

static void report_losses(const struct sampler_stats *st)
{
	struct strbuf b = {};

	summary__sample_losses(st, &b);
	p_err("lost: %s", b.len ? b.s : "nothing");
	strbuf__free(&b);
}

/* How user stacks were unwound (c: a block of enum ustack_counter), and
 * what the tables cover. */
static void report_unwinding(enum unwind_mode mode, const uint64_t *c,
			     const struct unwinder_stats *t, bool verbose)
{
	if (mode == UNWIND_MODE_FP) {
		if (c[USTACK_FP])
			p_err("user stacks: %" PRIu64 " by frame pointers (--unwind fp)",
			      c[USTACK_FP]);
		return;
	}
	p_err("user stacks: %" PRIu64 " by unwind tables, %" PRIu64
	      " by tables and frame pointers, %" PRIu64 " truncated, %" PRIu64
	      " by frame pointers before their process's tables were loaded",
	      c[USTACK_TABLES], c[USTACK_MIXED], c[USTACK_TRUNCATED], c[USTACK_EARLY]);
	if (c[USTACK_UNMAPPED])
		p_err("user stacks: %" PRIu64 " by frame pointers through code mapped after their "
		      "process's tables were loaded, of a binary without a table yet (may be "
		      "short)",
		      c[USTACK_UNMAPPED]);
	if (t->files_no_room)
		p_err("unwind tables: %zu binaries did not fit in %" PRIu64
		      " rows and use frame pointers (the first: %s)",
		      t->files_no_room, t->max_rows, t->no_room ? t->no_room : "?");
	if (t->procs_failed || t->maps_truncated)
		p_err("unwind tables: %zu processes not loaded (map full), %zu with more than "
		      "%d executable mappings",
		      t->procs_failed, t->maps_truncated, UNWIND_MAX_MAPPINGS);
	if (verbose)
		p_err("unwind tables: %zu binaries, %" PRIu64 " rows (%.1f MiB) built in %.1f ms; "
		      "%zu copies shared by build-id; %" PRIu64
		      " rows with offsets too large for a row; "
		      "%zu binaries without call-frame information; %zu processes; %" PRIu64
		      " fresh looks at mappings",
		      t->files, t->rows, t->bytes / 1048576.0, t->build_ms, t->files_shared,
		      t->rows_refused, t->files_without, t->processes, c[USTACK_MAPS_ASKED]);
}

/* Several -e: a line for each event, then one for the capture. */
static void summary_types(const struct profile *p, const struct sampler_stats *st, double secs,
			  unsigned int freq)
{
	const struct profile_meta *m = profile__meta(p);

	for (unsigned int t = 0; t < m->ntypes; t++) {
		uint64_t weight, count;

		profile__type_totals(p, t, &weight, &count);
		if (freq)
			p_err("%" PRIu64 " %s at %u Hz (each sample its own period)", weight,
			      m->types[t], freq);
		else
			p_err("%" PRIu64 " %s in %" PRIu64 " samples (one every %" PRIu64 ")",
			      weight, m->types[t], count, m->period);
	}
	p_err("%u events, %" PRIu64 " samples, %zu processes, %zu stacks in %.2f s (on %u CPUs)",
	      m->ntypes, st->counter[CNT_SAMPLES], profile__nr_processes(p), profile__nr_stacks(p),
	      secs, st->ncpus);
}

/* Uprobes attached one by one (FLAMEBPF_CLASSIC_UPROBES=1, or a kernel
 * before 6.6), which a slow start or a probe's cost may come of. */
static void report_classic(void)
{
	p_err("classic uprobes, one per probe: %s",
	      uprobe_multi__classic_asked() ? "FLAMEBPF_CLASSIC_UPROBES=1 asked for them"
					    : "this kernel has no uprobe_multi links (Linux 6.6+)");
}

/* The weight of p's stacks with a Python frame whose code object could
 * not be read (py_procs: "[python code 0x...]", module "[python]"). */
static uint64_t py_unnamed_weight(const struct profile *p)
{
	uint64_t w = 0;

	for (size_t i = 0; i < profile__nr_stacks(p); i++) {
		const struct profile_stack *s = profile__stack(p, i);

		for (uint32_t k = 0; k < s->nframes; k++) {
			if (!strcmp(profile__frame(p, s->frames[k])->module, "[python]")) {
				w += s->weight;
				break;
			}
		}
	}
	return w;
}

/* Python processes: how many of their samples carry Python frames, and
 * how many of those a frame that could not be named; a version whose
 * layout is unknown is named rather than misread. */
static void report_python(const struct profile *p, const struct sampler_stats *st)
{
	uint64_t all = st->counter[CNT_PY_SAMPLES], named = st->counter[CNT_PY_STACKS];
	uint64_t unnamed = st->python_procs && !st->python_off ? py_unnamed_weight(p) : 0;
	uint64_t total = profile__total_weight(p);

	if (st->python_procs && st->python_off)
		p_err("python: %zu process%s (%s), frames not walked: FLAMEBPF_NO_PYTHON=1",
		      st->python_procs, st->python_procs == 1 ? "" : "es", st->python_name);
	else if (st->python_procs)
		p_err("python: %zu process%s (%s), %.0f%% of %s samples with Python frames",
		      st->python_procs, st->python_procs == 1 ? "" : "es", st->python_name,
		      all ? 100.0 * named / all : 0.0, st->python_procs == 1 ? "its" : "their");
	if (unnamed && total)
		p_err("python: %.1f%% of the samples have a frame whose code object was freed or "
		      "taken before it was read, as [python code 0x...] (short-lived code: an "
		      "import's module code, code made at run time, a process's last ~20 ms)",
		      100.0 * unnamed / total);
	if (st->python_procs && st->python_timed && all)
		p_err("python: the walk took %.0f ns a sample on average (FLAMEBPF_PY_TIME=1)",
		      (double)st->counter[CNT_PY_WALK_NS] / all);
	if (st->python_unknown)
		p_err("%s: frames not named: layout unknown", st->python_unknown);
}

void summary__sample(const struct profile *p, const struct sampler_stats *st, double secs,
		     unsigned int freq, bool verbose)
{
	uint64_t period = profile__meta(p)->period;

	if (st->spans)
		p_err("%" PRIu64 " spans begun (%zu --span), %" PRIu64
		      " ends of no open span, %" PRIu64 " closed by their thread's exit",
		      st->counter[CNT_SPANS], st->spans, st->counter[CNT_SPAN_UNMATCHED],
		      st->counter[CNT_SPAN_UNCLOSED]);
	if (st->spans && profile__unit(p) == UNIT_NANOSECONDS)
		p_err("%.3f s in spans, %zu processes, %zu span paths in %.2f s",
		      profile__total_weight(p) / 1e9, profile__nr_processes(p),
		      profile__nr_stacks(p), secs);
	else if (st->usdt_probes)
		p_err("%" PRIu64 " hits of %zu USDT probe%s, %zu processes, %zu stacks in %.2f s",
		      profile__total_weight(p), st->usdt_probes, st->usdt_probes == 1 ? "" : "s",
		      profile__nr_processes(p), profile__nr_stacks(p), secs);
	else if (st->tracepoint)
		p_err("%" PRIu64 " %s in %" PRIu64
		      " hits of the tracepoint, %zu processes, %zu stacks "
		      "in %.2f s",
		      profile__total_weight(p), st->event, st->counter[CNT_SAMPLES],
		      profile__nr_processes(p), profile__nr_stacks(p), secs);
	else if (profile__meta(p)->ntypes)
		summary_types(p, st, secs, freq);
	else if (period && freq)
		p_err("%" PRIu64 " %s in %" PRIu64 " samples at %u Hz (each its own period), %zu "
		      "processes, %zu stacks in %.2f s (on %u CPUs)",
		      profile__total_weight(p), st->event, st->counter[CNT_SAMPLES], freq,
		      profile__nr_processes(p), profile__nr_stacks(p), secs, st->ncpus);
	else if (period)
		p_err("%" PRIu64 " %s in %" PRIu64 " samples (one every %" PRIu64
		      "), %zu processes, %zu stacks in %.2f s (on %u CPUs)",
		      profile__total_weight(p), st->event, profile__total_count(p), period,
		      profile__nr_processes(p), profile__nr_stacks(p), secs, st->ncpus);
	else
		p_err("%" PRIu64 " samples, %zu processes, %zu stacks in %.2f s at %u Hz (%s on %u "
		      "CPUs)",
		      profile__total_weight(p), profile__nr_processes(p), profile__nr_stacks(p),
		      secs, freq, st->event, st->ncpus);
	if (st->classic)
		report_classic();
	if (st->runtimes)
		summary__runtimes(st->runtimes,
				  profile__unit(p) == UNIT_SAMPLES ? "samples" : "time");
	report_losses(st);
	report_python(p, st);
	/* spans alone take no stacks */
	if (!st->spans || profile__unit(p) == UNIT_SAMPLES)
		report_unwinding(st->unwind, &st->counter[CNT_USTACK], &st->tables, verbose);
	if (verbose)
		p_err("%" PRIu64 " unique raw stacks; BPF maps %.1f MiB; %" PRIu64
		      " samples beyond the counts map; %" PRIu64
		      " samples of other processes skipped",
		      st->stacks, st->map_bytes / 1048576.0, st->counter[CNT_SAMPLES_SPILLED],
		      st->counter[CNT_FILTERED]);
}

/* The bytes and allocations of the run (--alloc's view), whichever view
 * the weights are. */
static void allocated(const struct profile *p, uint64_t *bytes, uint64_t *n)
{
	bool live = profile__meta(p)->alloc == PROFILE_ALLOC_LIVE;

	*bytes = *n = 0;
	for (size_t i = 0; i < profile__nr_stacks(p); i++) {
		const struct profile_stack *s = profile__stack(p, i);

		*bytes += live ? s->other : s->weight;
		*n += live ? s->other_count : s->count;
	}
}

void summary__alloc(const struct profile *p, const struct sampler_stats *st, double secs,
		    bool attached, uint64_t sample, bool verbose)
{
	const uint64_t *c = st->counter;
	uint64_t bytes, n;

	allocated(p, &bytes, &n);
	if (sample)
		p_err("%" PRIu64 " bytes in %" PRIu64 " allocations, %" PRIu64
		      " of them recorded (--alloc-sample %" PRIu64 ": weighed %" PRIu64
		      " bytes in %" PRIu64 " allocations), %" PRIu64 " frees (%" PRIu64
		      " of addresses not recorded: ignored), %" PRIu64
		      " bytes live at the end in %" PRIu64
		      " allocations (estimated), %zu processes, %zu stacks in %.2f s",
		      c[CNT_ALLOC_BYTES], c[CNT_ALLOCS], c[CNT_ALLOC_SAMPLED], sample, bytes, n,
		      c[CNT_FREES], c[CNT_FREE_UNKNOWN], st->live_bytes, st->live,
		      profile__nr_processes(p), profile__nr_stacks(p), secs);
	else
		p_err("%" PRIu64 " bytes in %" PRIu64 " allocations, %" PRIu64 " frees (%" PRIu64
		      " of addresses not allocated in the capture: ignored), %" PRIu64
		      " bytes live at the end in %" PRIu64
		      " allocations, %zu processes, %zu stacks in %.2f s",
		      c[CNT_ALLOC_BYTES], c[CNT_ALLOCS], c[CNT_FREES], c[CNT_FREE_UNKNOWN],
		      st->live_bytes, st->live, profile__nr_processes(p), profile__nr_stacks(p),
		      secs);
	if (attached)
		p_err("attached to running processes: only what they allocated during the capture "
		      "counts, and what they held before it is not seen (nor leaked)");
	if (c[CNT_ALLOC_FAILED])
		p_err("%" PRIu64 " allocation calls returned no memory", c[CNT_ALLOC_FAILED]);
	if (st->classic)
		report_classic();
	if (st->runtimes)
		summary__runtimes(st->runtimes, "bytes");
	report_losses(st);
	report_unwinding(st->unwind, &st->counter[CNT_USTACK], &st->tables, verbose);
	if (verbose)
		p_err("%" PRIu64 " unique raw stacks; BPF maps %.1f MiB (the live map grows as "
		      "used)",
		      st->stacks, st->map_bytes / 1048576.0);
}

void summary__trace_losses(const struct tracer_stats *st, struct strbuf *b)
{
	const uint64_t *c = st->counter;

	add_loss(b, c[TCNT_DROPPED], "calls (ring buffer full)");
	add_loss(b, c[TCNT_PATHS_DROPPED], "call paths (ring buffer full)");
	add_loss(b, st->collisions, "call paths (hash collision)");
	add_loss(b, c[TCNT_TOO_DEEP], "calls nested too deep");
	add_loss(b, c[TCNT_NO_STORAGE], "calls of threads without a shadow stack");
	add_loss(b, c[TCNT_RECORDS_DROPPED], "timeline records (ring buffer full)");
	add_loss(b, c[TCNT_PIDS_FULL], "child processes untraced (pid map full)");
	add_loss(b, c[TCNT_FORKS_LOST], "child processes untraced in libraries (ring buffer full)");
	add_loss(b, c[TCNT_NOT_PLAIN],
		 "calls after an exec, before the new program was planned for");
	add_loss(b, c[TCNT_EXECS_LOST], "execs (ring buffer full): their calls untraced");
	add_loss(b, c[TCNT_USTACK_ERR], "user stacks (unreadable)");
	add_loss(b, c[TCNT_SEEN_FULL], "process events (process map full)");
	add_loss(b, st->calls_over, "timeline records (over the --max-calls limit kept in memory)");
	add_loss(b, c[TCNT_SPLIT_LOST], "calls whose time off the CPU was not kept (--cpu-split)");
	add_loss(b, c[TCNT_SPLIT_NO_OUT],
		 "blocks off the CPU counted as on it (--cpu-split: their switch away not traced)");
}

static void report_trace_losses(const struct tracer_stats *st)
{
	struct strbuf b = {};

	summary__trace_losses(st, &b);
	p_err("lost: %s", b.len ? b.s : "nothing");
	strbuf__free(&b);
}

/* --wall: a thread that lived through the capture and ran or waited in it
 * has on + off = its length; says for how many that holds (within 5%). */
static void report_wall_threads(const struct hashmap *thread_ns, double secs)
{
	size_t n = 0, whole = 0;

	for (size_t i = 0; thread_ns && i < thread_ns->cap; i++) {
		double t = thread_ns->slots[i].val / 1e9;

		if (!thread_ns->slots[i].key)
			continue;
		n++;
		whole += t >= secs * 0.95 && t <= secs * 1.05;
	}
	if (n)
		p_err("threads: %zu; on + off the CPU within 5%% of the capture for %zu (the "
		      "others began or ended in it)",
		      n, whole);
}

/* Blocks whose thread came back on the CPU through a switch sched_switch
 * never saw (offcpu_untraced_end() in bpf/offcpu.bpf.h): kept, not lost. */
static void report_untraced(uint64_t n)
{
	if (n)
		p_err("%" PRIu64 " blocks off the CPU ended by a switch the kernel did not trace: "
		      "each ends where the thread's CPU time since says it came back",
		      n);
}

void summary__offcpu(const struct profile *p, const struct sampler_stats *st, double secs,
		     unsigned int freq, bool verbose)
{
	double on = freq ? (double)st->counter[CNT_SAMPLES] / freq : 0;
	double off = profile__total_weight(p) / 1e9 - on;

	if (freq)
		p_err("%.3f s on the CPU in %" PRIu64 " samples at %u Hz, %.3f s off it in %" PRIu64
		      " blocks, %zu processes, %zu stacks in %.2f s (%s on %u CPUs)",
		      on, st->counter[CNT_SAMPLES], freq, off, st->counter[CNT_OFF_BLOCKS],
		      profile__nr_processes(p), profile__nr_stacks(p), secs, st->event, st->ncpus);
	else
		p_err("%.3f s off the CPU in %" PRIu64
		      " blocks, %zu processes, %zu stacks in %.2f s (%s on %u CPUs)",
		      off, st->counter[CNT_OFF_BLOCKS], profile__nr_processes(p),
		      profile__nr_stacks(p), secs, st->event, st->ncpus);
	if (freq)
		report_wall_threads(st->thread_ns, secs);
	report_untraced(st->counter[CNT_OFF_UNTRACED]);
	if (st->counter[CNT_OFF_KTHREAD])
		p_err("left out: %.3f s off the CPU of kernel threads in %" PRIu64
		      " blocks (they wait for work; --kernel-threads keeps them)",
		      st->counter[CNT_OFF_KTHREAD_NS] / 1e9, st->counter[CNT_OFF_KTHREAD]);
	if (st->blocked_at_start_unseen)
		p_err("threads off the CPU when the capture started count from their first switch "
		      "on: this kernel cannot iterate tasks in a sleepable program (Linux 5.18+)");
	if (st->still_unread)
		p_err("lost: the time of the threads still off the CPU at the stop (their blocks "
		      "could not be read)");
	if (st->idle_threads)
		p_err("left out: %" PRIu64 " threads off the CPU for the whole capture (%.3f s): "
		      "idle (--idle-threads keeps them)",
		      st->idle_threads, st->idle_ns / 1e9);
	if (st->counter[CNT_OFF_SHORT])
		p_err("left out: %" PRIu64 " blocks shorter than --min-block (%.3f s)",
		      st->counter[CNT_OFF_SHORT], st->counter[CNT_OFF_SHORT_NS] / 1e9);
	if (st->counter[CNT_OFF_LONG])
		p_err("left out: %" PRIu64 " blocks longer than --max-block (%.3f s)",
		      st->counter[CNT_OFF_LONG], st->counter[CNT_OFF_LONG_NS] / 1e9);
	if (st->runtimes)
		summary__runtimes(st->runtimes, "time");
	report_losses(st);
	report_unwinding(st->unwind, &st->counter[CNT_USTACK], &st->tables, verbose);
}

static void report_left_out(const struct trace_attach_stats *at)
{
	struct strbuf b = {};

	for (size_t i = 0; i < at->refused && i < 5; i++)
		strbuf__addf(&b, "%s%s", i ? ", " : "", at->refused_names[i]);
	if (at->refused)
		p_err("%zu functions left out: the kernel cannot probe them (%s%s)", at->refused,
		      b.s, at->refused > 5 ? ", ..." : "");
	if (at->no_ret_sites)
		p_err("%zu functions left out: an unwinder may pass through them and their "
		      "returns could not be found",
		      at->no_ret_sites);
	if (at->fragments)
		p_err("%zu split-off parts (.cold) not traced on their own: their time is their "
		      "function's",
		      at->fragments);
	if (at->bad_sites)
		p_err("%zu return sites could not be probed: those returns are caught late",
		      at->bad_sites);
	strbuf__free(&b);
}

static void report_children(const struct trace_attach_stats *at)
{
	if (at->children)
		p_err("%zu child processes traced in the command's libraries too, each from at "
		      "most %.1f ms after it forked (calls before that are not seen)",
		      at->children, at->children_attach_ms);
	if (at->children_over)
		p_err("%zu child processes traced in the command's program only: over the limit of "
		      "%d traced in its libraries",
		      at->children_over, TRACE_MAX_CHILDREN);
	if (at->children_err)
		p_err("could not trace some child processes in the command's libraries: %s",
		      strerror(-at->children_err));
	if (at->execs_replanned)
		p_err("%zu processes exec'd a program that may walk its stacks: traced with probes "
		      "on ret instructions from at most %.1f ms after (calls before that are not "
		      "seen)",
		      at->execs_replanned, at->execs_attach_ms);
	if (at->execs_err)
		p_err("could not trace some processes after they exec'd: %s",
		      strerror(-at->execs_err));
}

/* Adds a stack's weight to the state its leaf (or, --state-root, its root)
 * names: on[0] for [running], off[state] for the others. */
static void add_state_weight(const struct profile *p, const struct profile_stack *s, uint64_t *on,
			     uint64_t *off)
{
	uint32_t ends[2] = { s->frames[s->nframes - 1], s->frames[0] };

	for (int e = 0; e < 2; e++) {
		const char *name = profile__frame(p, ends[e])->name;

		if (!strcmp(name, PROFILE_STATE_RUNNING)) {
			*on += s->weight;
			return;
		}
		for (unsigned int k = 0; k < PROFILE_OFF_NR; k++) {
			if (!strcmp(name, profile__off_state_name(k))) {
				off[k] += s->weight;
				return;
			}
		}
	}
}

/* A time for a person: seconds, or ms under one. */
static void add_time(struct strbuf *b, uint64_t ns)
{
	if (ns >= 1000000000)
		strbuf__addf(b, "%.3f s", ns / 1e9);
	else
		strbuf__addf(b, "%.3f ms", ns / 1e6);
}

/* --cpu-split: the traced calls' self time on and off the CPU, in all. */
static void report_split(const struct profile *p)
{
	uint64_t on = 0, off[PROFILE_OFF_NR] = { 0 }, all_off = 0;
	struct strbuf b = {}, t = {};

	for (size_t i = 0; i < profile__nr_stacks(p); i++)
		if (profile__stack(p, i)->nframes)
			add_state_weight(p, profile__stack(p, i), &on, off);
	for (unsigned int k = 0; k < PROFILE_OFF_NR; k++) {
		all_off += off[k];
		if (!off[k])
			continue;
		strbuf__addf(&b, "%s", b.len ? ", " : " (");
		add_time(&b, off[k]);
		strbuf__addf(&b, " %s", profile__off_state_name(k));
	}
	add_time(&t, on);
	strbuf__addf(&t, " on the CPU, ");
	add_time(&t, all_off);
	p_err("traced calls' self time: %s off it%s%s", t.s ? t.s : "", b.len ? b.s : "",
	      b.len ? ")" : "");
	strbuf__free(&t);
	strbuf__free(&b);
}

/* What is exact of Go functions' calls, and what is not. */
static void report_go(const struct trace_attach_stats *at)
{
	size_t other = at->go_funcs - at->go_g;

	p_err("go: %zu functions in Go binaries, %zu with their entry probe past the stack "
	      "check (calls counted once), %zu matched to their returns across stack copies; "
	      "nesting and times are not exact: goroutines move between threads mid-call "
	      "(calls nest per thread)%s",
	      at->go_funcs, at->go_past_check, at->go_g,
	      other ? ", and a stack copied as it grows hides the returns of the others' calls "
		      "open then"
		    : "");
}

void summary__trace(const struct profile *p, const struct tracer_stats *st,
		    const struct trace_attach_stats *at, double secs, bool verbose)
{
	p_err("%" PRIu64 " calls of %zu functions in %zu binaries, %zu processes, %" PRIu64
	      " call paths in %.2f s",
	      st->counter[TCNT_CALLS], at->attached, at->binaries, profile__nr_processes(p),
	      st->paths, secs);
	if (st->cpu_split)
		report_split(p);
	report_untraced(st->counter[TCNT_SPLIT_UNTRACED]);
	if (st->classic)
		report_classic();
	if (at->by_uret_leaf + at->by_uret_plain + at->by_ret_sites)
		p_err("returns: %zu by uretprobe (%zu leaves, %zu in plain processes), %zu by "
		      "probes "
		      "on ret instructions (where an unwinder may pass; slower: single-stepped)",
		      at->by_uret_leaf + at->by_uret_plain, at->by_uret_leaf, at->by_uret_plain,
		      at->by_ret_sites);
	if (at->entries_stepped)
		p_err("entries: %zu of %zu single-stepped (their first instruction is not one the "
		      "kernel emulates: a few us a call instead of under 1 us)",
		      at->entries_stepped, at->attached);
	if (at->go_funcs)
		report_go(at);
	report_left_out(at);
	report_children(at);
	if (at->exception_binaries)
		p_err("exceptions: %" PRIu64 " thrown, %" PRIu64 " caught, %" PRIu64
		      " calls they left ended at the catch (libstdc++'s probes)",
		      st->counter[TCNT_THROWN], st->counter[TCNT_CAUGHT],
		      st->counter[TCNT_CATCH_UNWOUND]);
	if (st->counter[TCNT_UNMATCHED])
		p_err("%" PRIu64 " returns of calls that began before the probes were in place "
		      "(ignored)",
		      st->counter[TCNT_UNMATCHED]);
	/* in the output, marked so: not lost */
	if (st->counter[TCNT_UNFINISHED])
		p_err("unfinished: %" PRIu64 " calls without a return (longjmp, exception, exit), "
		      "each ended where that was seen",
		      st->counter[TCNT_UNFINISHED]);
	report_trace_losses(st);
	if (st->counter[TCNT_USTACK + USTACK_FP] || st->counter[TCNT_USTACK + USTACK_TABLES] ||
	    st->counter[TCNT_USTACK + USTACK_TRUNCATED])
		report_unwinding(st->unwind, &st->counter[TCNT_USTACK], &st->tables, verbose);
	if (verbose)
		p_err("%s; %zu IFUNCs left out (no implementation found); %" PRIu64
		      " calls beyond the counts map; "
		      "%" PRIu64 " calls of other processes skipped",
		      st->sessions  ? "uprobe sessions"
		      : st->classic ? "classic uprobes"
				    : "uprobe_multi",
		      at->ifuncs, st->counter[TCNT_SPILLED], st->counter[TCNT_FILTERED]);
}
