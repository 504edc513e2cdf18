// SPDX-License-Identifier: GPL-2.0
/* The sampling source for the command line. */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbolize.h"
#include "util/msg.h"
#include "privileges.h"
#include "sampler.h"
#include "source.h"
#include "summary.h"
#include "usdt_plan.h"

struct sample_source {
	struct sampler *s; /* first: see sampler_of */
	const struct source_opts *o;
	struct usdt_plan usdt;	/* -f usdt:...: the probes counted */
	struct span_plan spans; /* --span: the probes that open and close spans */
	int verbosity;
};

const char *source__bpf_hint(int err, int verbosity)
{
	if (err == -EPERM || err == -EACCES)
		return " (needs root, or CAP_BPF and CAP_PERFMON)";
	return verbosity < 2 ? " (try -vv for libbpf's log)" : "";
}

void source__set_symbolizer(const struct source_opts *o)
{
	symbolizer__set_defaults(&(struct symbolizer_opts){ .no_demangle = o->no_demangle,
							    .inline_frames = o->inline_frames,
							    .file_line = o->file_line });
}

/* The sampler of a source whose impl begins with it: sample's and alloc's. */
static struct sampler *sampler_of(void *impl)
{
	return *(struct sampler **)impl;
}

int source_sampler__add_pid(void *impl, pid_t pid, bool before_exec)
{
	int err = sampler__add_pid(sampler_of(impl), pid, before_exec);

	if (err)
		p_err("cannot set the process filter: %s", strerror(-err));
	return err;
}

/* Which site failed, as the sampler noted it. */
static void report_usdt_failure(struct sample_source *ss, int err)
{
	char site[PATH_MAX + 300];

	sampler__failed_site(ss->s, site, sizeof(site));
	p_err("cannot attach to the USDT probes%s%s%s%s: %s%s", ss->o->nspans ? " of --span" : "",
	      site[0] ? " (" : "", site, site[0] ? ")" : "", strerror(-err),
	      err == -EOPNOTSUPP ? " (no uprobe_multi links in this kernel: "
				   "FLAMEBPF_CLASSIC_UPROBES=1 attaches classic uprobes)"
				 : source__bpf_hint(err, ss->verbosity));
}

static int start(void *impl)
{
	struct sample_source *ss = impl;
	int err = sampler__start(ss->s);
	const struct perf_event_desc *ev = ss->o->event;

	if (err && (ss->o->nusdt || ss->o->nspans))
		report_usdt_failure(ss, err);
	else if (err && ss->o->tracepoint && err == -ENOENT)
		p_err("this kernel has no tracepoint '%s' (%s); tracefs lists them: "
		      "/sys/kernel/tracing/available_events",
		      ss->o->tp.spec, ss->o->tp.raw);
	else if (err && ss->o->tracepoint)
		p_err("cannot attach to the tracepoint '%s': %s%s", ss->o->tp.spec, strerror(-err),
		      source__bpf_hint(err, ss->verbosity));
	else if (err && ev && ev->type == PERF_TYPE_HARDWARE &&
		 (err == -ENOENT || err == -EOPNOTSUPP))
		p_err("cannot count '%s': this machine has no hardware performance counters (no "
		      "PMU, as in most VMs); software events work: -e page-faults, -e "
		      "context-switches, ...",
		      ev->name);
	else if (err && ss->o->offcpu)
		p_err("cannot attach to the sched_switch%s tracepoint%s: %s%s",
		      ss->o->wakers ? " and sched_waking" : "",
		      ss->o->freq ? " (or the cpu-clock perf events)" : "", strerror(-err),
		      source__bpf_hint(err, ss->verbosity));
	else if (err)
		p_err("cannot attach to the %s perf events: %s%s", ev ? ev->name : "cpu-clock",
		      strerror(-err), source__bpf_hint(err, ss->verbosity));
	return err;
}

int source_sampler__poll(void *impl, int timeout_ms)
{
	return sampler__poll(sampler_of(impl), timeout_ms);
}

uint64_t source_sampler__progress(void *impl)
{
	return sampler__samples(sampler_of(impl));
}

static void stop(void *impl)
{
	sampler__stop(((struct sample_source *)impl)->s);
}

int source_sampler__collect(void *impl, struct profile *p)
{
	return sampler__collect(sampler_of(impl), p);
}

static int drain(void *impl, struct profile *p, struct strbuf *note)
{
	struct sampler_evicted ev = {};
	int err = sampler__drain(sampler_of(impl), p, &ev);

	if (ev.procs || ev.snapshots || ev.binaries || ev.stacks)
		strbuf__addf(note,
			     "forgotten: %zu processes gone, %zu older snapshots of mappings, the "
			     "symbols of %zu binaries not run lately, %zu stacks not seen lately",
			     ev.procs, ev.snapshots, ev.binaries, ev.stacks);
	return err;
}

static void summary(void *impl, const struct profile *p, double secs)
{
	struct sample_source *ss = impl;
	struct sampler_stats st;

	sampler__stats(ss->s, &st);
	if (ss->o->offcpu)
		summary__offcpu(p, &st, secs, ss->o->freq, ss->verbosity > 0);
	else
		summary__sample(p, &st, secs, ss->o->freq, ss->verbosity > 0);
}

/* Counts are of events (or a tracepoint's hits), not of time: a counted
 * event's samples weigh its period, 1 at a frequency (each its own). */
static bool counted(const struct source_opts *o)
{
	return o->tracepoint || o->nusdt || (o->event && !o->event->clock);
}

static void describe(void *impl, struct profile_meta *m, struct strbuf *b)
{
	struct sample_source *ss = impl;
	struct sampler_stats st;

	sampler__stats(ss->s, &st);
	summary__sample_losses(&st, b);
	m->event = st.event;
	/* a tracepoint's counts are hits (or its values), as a counted event's */
	m->period = counted(ss->o) ? (ss->o->period ? ss->o->period : 1) : 0;
	m->ntypes = ss->o->nevents > 1 ? (unsigned int)ss->o->nevents : 0;
	for (unsigned int t = 0; t < m->ntypes; t++)
		m->types[t] = ss->o->events[t]->name;
	m->losses = b->len ? b->s : "";
}

static void source_free(void *impl)
{
	struct sample_source *ss = impl;

	if (!ss)
		return;
	sampler__free(ss->s);
	usdt_plan__free(&ss->usdt);
	span_plan__free(&ss->spans);
	free(ss);
}

/* One sampler behind both: what differs is what progress counts. */
#define SAMPLER_OPS(counted)                                                                       \
	{                                                                                          \
		.what = counted, .add_pid = source_sampler__add_pid, .start = start,               \
		.poll = source_sampler__poll, .progress = source_sampler__progress, .stop = stop,  \
		.collect = source_sampler__collect, .drain = drain, .summary = summary,            \
		.describe = describe, .free = source_free,                                         \
	}

static const struct source_ops sample_ops = SAMPLER_OPS("samples");
/* --off-cpu: blocks of time off the CPU (with --wall, samples besides) */
static const struct source_ops offcpu_ops = SAMPLER_OPS("blocks");
/* --span alone: the spans' time */
static const struct source_ops span_ops = SAMPLER_OPS("spans");

int source_sample__open(struct source *src, const struct source_opts *o, int verbosity)
{
	struct sampler_opts so = {
		.freq = o->freq,
		.event = o->event,
		.events = o->events,
		.nevents = o->nevents,
		.period = o->period,
		.tp = o->tracepoint ? &o->tp : NULL,
		.weight = o->weight,
		.weight_name = o->weight_name,
		.duration = o->duration,
		.filter_pids = !o->all && (o->npids || o->command),
		.follow_children = !o->all && o->command,
		.user = !o->kernel_only,
		.kernel = !o->user_only,
		.timeline = o->timeline,
		.offcpu = o->offcpu,
		.min_block_ns = o->min_block_ns,
		.max_block_ns = o->max_block_ns,
		.wall = o->offcpu && o->freq,
		.state_root = o->state_root,
		.wakers = o->wakers,
		.kthreads = o->kthreads,
		.idle = o->idle_threads,
		.unwind = o->unwind,
	};
	struct sample_source *ss = calloc(1, sizeof(*ss));
	char missing[64];
	int err;

	if (!ss)
		return -ENOMEM;
	ss->o = o;
	ss->verbosity = verbosity;
	source__set_symbolizer(o);
	if (privileges__missing(missing, sizeof(missing))) {
		p_err("sampling needs root, or CAP_BPF and CAP_PERFMON (missing %s)", missing);
		free(ss);
		return -EPERM;
	}
	if (o->nusdt && (err = usdt_plan__make(o, &ss->usdt))) {
		free(ss);
		return err;
	}
	if (o->nspans && (err = span_plan__make(o, &ss->spans))) {
		usdt_plan__free(&ss->usdt);
		free(ss);
		return err;
	}
	so.usdt = o->nusdt ? &ss->usdt : NULL;
	so.spans = o->nspans ? &ss->spans : NULL;
	err = sampler__open(&ss->s, &so);
	if (err) {
		p_err("cannot load the BPF sampler: %s%s", strerror(-err),
		      source__bpf_hint(err, verbosity));
		usdt_plan__free(&ss->usdt);
		span_plan__free(&ss->spans);
		free(ss);
		return err;
	}
	*src = o->offcpu	       ? (struct source){ &offcpu_ops, ss, UNIT_NANOSECONDS }
	       : o->nspans && !o->freq ? (struct source){ &span_ops, ss, UNIT_NANOSECONDS }
				       : (struct source){ &sample_ops, ss, UNIT_SAMPLES };
	return 0;
}
