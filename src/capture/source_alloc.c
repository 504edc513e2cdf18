// SPDX-License-Identifier: GPL-2.0
/* --alloc: the sampler's BPF object with its allocation programs, fed by
 * uprobes on the allocators of the target's binaries. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/binaries.h"
#include "util/msg.h"
#include "alloc_probes.h"
#include "privileges.h"
#include "sampler.h"
#include "source.h"
#include "targets.h"
#include "summary.h"

/* Live allocations kept at most (about 100 bytes each, allocated as they
 * come): past it an allocation is counted, but not as live, and said. */
#define ALLOC_LIVE_MAX (1U << 20)

struct alloc_source {
	struct sampler *s; /* first: the source_sampler__ ops take it */
	const struct source_opts *o;
	pid_t cmd_pid;
	int verbosity;
	struct alloc_probes probes;
};

static void report_failure(struct alloc_source *as, int err)
{
	const struct uprobe_failure *f = &as->probes.links.failed;

	if (f->one)
		p_err("cannot attach the allocation probes: '%s' at 0x%" PRIx64 ": %s%s", f->path,
		      f->offset, strerror(-err), source__bpf_hint(err, as->verbosity));
	else
		p_err("cannot attach the allocation probes%s%s%s: %s%s", f->path[0] ? " to '" : "",
		      f->path, f->path[0] ? "'" : "", strerror(-err),
		      source__bpf_hint(err, as->verbosity));
}

/* One process: probes in it alone. A COMMAND: its libraries in it, its
 * program in every process (its children run it; the BPF filter keeps
 * them). Several processes: everywhere, the BPF filter keeps them. */
static int attach_probes(struct alloc_source *as)
{
	struct alloc_target t = { .pid = as->o->npids == 1 ? as->o->pids[0] : as->cmd_pid,
				  .exe_everywhere = as->o->command != NULL };
	struct binaries bins = {};
	struct bpf_program *entries, *returns;
	int err = targets__of(as->o, &bins);

	if (err)
		goto out;
	sampler__alloc_progs(as->s, &entries, &returns, &as->probes.links.multi);
	err = alloc_probes__attach(&as->probes, &bins, &t, entries, returns);
	if (err == -ENOENT)
		p_err("no allocator to probe: the target's binaries define no malloc, free, "
		      "operator new, ... (%zu binaries)",
		      bins.n);
	else if (err)
		report_failure(as, err);
	else if (as->verbosity)
		p_err("allocation probes: %zu functions in %s%s", as->probes.nfuncs,
		      as->probes.first,
		      as->probes.links.multi ? "" : " (classic uprobes: no uprobe_multi links)");
out:
	binaries__free(&bins);
	return err;
}

static int start(void *impl)
{
	struct alloc_source *as = impl;
	int err = sampler__start(as->s);

	if (err) {
		p_err("cannot attach to the process events: %s%s", strerror(-err),
		      source__bpf_hint(err, as->verbosity));
		return err;
	}
	return attach_probes(as);
}

/* The probes go first: nothing is counted while the rest is read. */
static void stop(void *impl)
{
	struct alloc_source *as = impl;

	alloc_probes__detach(&as->probes);
	sampler__stop(as->s);
}

static void summary(void *impl, const struct profile *p, double secs)
{
	struct alloc_source *as = impl;
	struct sampler_stats st;

	sampler__stats(as->s, &st);
	summary__alloc(p, &st, secs, as->o->npids > 0, as->o->alloc_sample, as->verbosity > 0);
}

static void describe(void *impl, struct profile_meta *m, struct strbuf *b)
{
	struct alloc_source *as = impl;
	struct sampler_stats st;

	sampler__stats(as->s, &st);
	summary__sample_losses(&st, b);
	m->event = st.event;
	m->period = 1; /* counted, every byte */
	m->alloc = as->o->alloc;
	m->losses = b->len ? b->s : "";
}

static void source_free(void *impl)
{
	struct alloc_source *as = impl;

	if (!as)
		return;
	alloc_probes__detach(&as->probes);
	sampler__free(as->s);
	free(as);
}

static const struct source_ops alloc_ops = {
	.what = "allocations",
	.add_pid = source_sampler__add_pid,
	.start = start,
	.poll = source_sampler__poll,
	.progress = source_sampler__progress,
	.stop = stop,
	.collect = source_sampler__collect,
	.summary = summary,
	.describe = describe,
	.free = source_free,
};

int source_alloc__open(struct source *src, const struct source_opts *o, pid_t cmd_pid,
		       int verbosity)
{
	struct sampler_opts so = {
		.duration = o->duration,
		.filter_pids = true,
		.follow_children = o->command != NULL,
		.user = true,
		.unwind = o->unwind,
		.timeline = o->timeline,
		.alloc = o->alloc,
		.alloc_live_max = ALLOC_LIVE_MAX,
		.alloc_sample = o->alloc_sample,
	};
	struct alloc_source *as = calloc(1, sizeof(*as));
	char missing[64];
	int err;

	if (!as)
		return -ENOMEM;
	as->o = o;
	as->cmd_pid = cmd_pid;
	as->verbosity = verbosity;
	source__set_symbolizer(o);
	if (privileges__missing(missing, sizeof(missing))) {
		p_err("--alloc needs root, or CAP_BPF and CAP_PERFMON (missing %s)", missing);
		free(as);
		return -EPERM;
	}
	err = sampler__open(&as->s, &so);
	if (err) {
		p_err("cannot load the BPF programs: %s%s", strerror(-err),
		      source__bpf_hint(err, verbosity));
		free(as);
		return err;
	}
	*src = (struct source){ &alloc_ops, as, UNIT_SAMPLES };
	return 0;
}
