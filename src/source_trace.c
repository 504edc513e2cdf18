// SPDX-License-Identifier: GPL-2.0
/* The function-tracing source for the command line: -f specs to functions,
 * functions to probes (entry, and a uretprobe or return-site probes), and
 * the -l listing. Bad input returns -EINVAL (a usage error). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "funcs.h"
#include "privileges.h"
#include "report.h"
#include "ret_sites.h"
#include "source.h"
#include "symbolize.h"
#include "tracer.h"

#define SKIPPED_SHOWN (sizeof(((struct trace_attach_stats *)0)->refused_names) / sizeof(char *))

struct probe_plan {
	uint64_t *offsets, *ids, *site_offsets, *site_ids;
	bool *uret, *bad;
	size_t n, nsites, sites_cap;
};

struct trace_source {
	struct tracer *t;
	const struct options *o;
	int verbosity;
	struct funcs funcs;
	struct trace_func *names; /* by function id (index in funcs) */
	struct trace_attach_stats at;
	struct target_binary exe; /* the target's program (dev, ino only) */
	/* COMMAND mode: the probes of its libraries, kept to attach them for
	 * each child it forks (they are limited to single processes) */
	struct lib_probes {
		const char *path;
		struct probe_plan pl;
	} * libs;
	size_t nlibs;
};

/* The binaries a -f without BINARY searches: the target's. */
static int target_binaries(const struct options *o, struct binaries *out)
{
	int err = 0;

	for (size_t i = 0; i < o->npids && !err; i++) {
		struct binaries one = {};

		err = binaries__of_pid(o->pids[i], &one);
		for (size_t j = 0; !err && j < one.n; j++)
			err = binaries__add(out, &one.v[j]);
		binaries__free(&one);
		if (err)
			p_err("cannot read the mappings of process %d: %s", o->pids[i],
			      strerror(-err));
	}
	if (!err && o->command && (err = binaries__of_command(o->command[0], out)))
		p_err("cannot find the binaries of '%s': %s", o->command[0], strerror(-err));
	return err == -ENOENT || err == -ESRCH || err == -EACCES ? -EINVAL : err;
}

static void list_names(const struct binaries *b, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < b->n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "", b->v[i].path);
}

static int resolve_binary(const char *spec, const struct binaries *target, struct binaries *out)
{
	int err = binaries__resolve(spec, target->n ? target : NULL, out);

	if (err == -ENOEXEC)
		p_err("'%s' is not an ELF binary", spec);
	else if (err == -ENOENT)
		p_err("no binary '%s' in the target or the library directories", spec);
	else if (err)
		p_err("cannot open '%s': %s", spec, strerror(-err));
	return err == -ENOMEM ? err : err ? -EINVAL : 0;
}

/* Adds the functions one -f/-l argument names. */
static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* "prog:REGEX" where prog is the bare name of one of the target's binaries
 * (the spec parser takes bare names for regexes): split it here. */
static int split_target_name(const char *arg, const struct binaries *target, char **binary,
			     char **regex)
{
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : 0;

	if (!colon || colon[1] == ':' || !len)
		return 0;
	for (size_t i = 0; i < target->n; i++) {
		const char *base = basename_of(target->v[i].path);

		if (strlen(base) != len || strncmp(base, arg, len))
			continue;
		free(*regex);
		*regex = strdup(colon + 1);
		*binary = strndup(arg, len);
		return *regex && *binary ? 0 : -ENOMEM;
	}
	return 0;
}

/* A REGEX that is a function's name selects it alone: say so when as a
 * regex it would select more. */
static void note_exact(const char *regex, const struct funcs_query *q)
{
	if (q->by_regex > q->matched)
		p_err("'%s' is the name of %zu function%s: it selects %s alone (as a regex it "
		      "matches %zu: '%s.*' selects those)",
		      regex, q->matched, q->matched > 1 ? "s" : "", q->matched > 1 ? "them" : "it",
		      q->by_regex, regex);
}

static int match_one(struct funcs *list, const char *arg, const struct binaries *target)
{
	struct binaries own = {};
	const struct binaries *bins = target;
	char *binary = NULL, *regex = NULL, names[512];
	struct funcs_query q = {};
	regex_t re;
	int err = funcs__parse_spec(arg, &binary, &regex);

	if (!err && !binary)
		err = split_target_name(arg, target, &binary, &regex);
	if (err) {
		p_err("invalid function spec '%s'", arg);
		err = err == -ENOMEM ? err : -EINVAL;
		goto out_free;
	}
	if (regcomp(&re, regex, REG_EXTENDED | REG_NOSUB)) {
		p_err("invalid regular expression '%s'", regex);
		err = -EINVAL;
		goto out_free;
	}
	if (binary) {
		err = resolve_binary(binary, target, &own);
		bins = &own;
	} else if (!target->n) {
		p_err("'%s': tracing system-wide needs BINARY:REGEX (e.g. libc:%s)", arg, regex);
		err = -EINVAL;
	}
	q.re = &re;
	q.text = regex;
	if (!err && (err = funcs__match(list, bins, &q)))
		p_err("cannot read the symbols of '%s': %s",
		      q.failed < bins->n ? bins->v[q.failed].path : arg, strerror(-err));
	if (!err && !q.matched) {
		list_names(bins, names, sizeof(names));
		p_err("no symbol matches '%s' in %s", regex, names);
		err = -EINVAL;
	} else if (!err) {
		note_exact(regex, &q);
	}
	regfree(&re);
out_free:
	binaries__free(&own);
	free(binary);
	free(regex);
	return err == -ENOEXEC ? -EINVAL : err;
}

/* Selects the functions of the specs; *exe (if not NULL) gets the target's
 * main executable, the first of its binaries. */
static int select_funcs(const struct options *o, const char *const *specs, size_t n,
			struct funcs *list, struct target_binary *exe)
{
	struct binaries target = {};
	int err = target_binaries(o, &target);

	for (size_t i = 0; i < n && !err; i++)
		err = match_one(list, specs[i], &target);
	if (!err && exe && target.n) {
		exe->dev = target.v[0].dev;
		exe->ino = target.v[0].ino;
	}
	binaries__free(&target);
	return err;
}

/* Marks in keep[] the entries of list the kernel can probe; counts those
 * whose probe would be single-stepped. */
static size_t probeable(const struct funcs *list, struct disasm *d, bool *keep)
{
	size_t stepped = 0;
	int fd = -1;

	bool counted = false; /* the function of entry i - 1 is */

	for (size_t i = 0; i < list->n; i++) {
		uint64_t site;
		enum entry_kind k = ENTRY_STEPPED;

		if (!i || list->v[i].bin != list->v[i - 1].bin) {
			if (fd >= 0)
				close(fd);
			fd = open(list->bins.v[list->v[i].bin].open_path, O_RDONLY | O_CLOEXEC);
		}
		if (fd >= 0)
			k = disasm__entry(d, fd, list->v[i].offset, &site);
		/* an IFUNC whose implementation was not found is not traced */
		keep[i] = k != ENTRY_REFUSED && !list->v[i].ifunc;
		/* one function, though an IFUNC may have several entries */
		if (i && (list->v[i].bin != list->v[i - 1].bin ||
			  list->v[i].sym_vaddr != list->v[i - 1].sym_vaddr))
			counted = false;
		if (keep[i] && k == ENTRY_STEPPED && !counted) {
			stepped++;
			counted = true;
		}
	}
	if (fd >= 0)
		close(fd);
	return stepped;
}

/* -l: the probe-able functions on stdout; on stderr, which are the slow kind
 * and how many cannot be probed at all. */
static int list_probeable(struct funcs *list)
{
	size_t stepped = 0, n = funcs__count(list), ifuncs = 0;
	bool *keep = calloc(n + 1, sizeof(*keep));
	struct disasm *d = NULL;
	int err = keep ? disasm__new(&d) : -ENOMEM;

	for (size_t i = 0; i < list->n; i++)
		ifuncs += list->v[i].ifunc;
	if (!err) {
		stepped = probeable(list, d, keep);
		funcs__keep(list, keep);
		err = funcs__print(list, stdout);
		if (err)
			p_err("cannot write the list: %s", strerror(-err));
	}
	if (!err && stepped)
		p_err("%zu of %zu have an entry the kernel single-steps (a few us a call instead "
		      "of under 1 us)",
		      stepped, funcs__count(list));
	if (!err && n > funcs__count(list) + ifuncs)
		p_err("%zu left out: the kernel cannot probe their first instruction (a lock or "
		      "segment prefix)",
		      n - funcs__count(list) - ifuncs);
	if (!err && ifuncs)
		p_err("%zu IFUNCs left out: the implementation their resolver picks could not be "
		      "found, or is in another file (the vDSO)",
		      ifuncs);
	disasm__free(d);
	free(keep);
	return !err && !list->n ? -EINVAL : err;
}

int source_trace__list(const struct options *o)
{
	struct funcs list = {};
	int err = select_funcs(o, &o->list, 1, &list, NULL);

	if (!err)
		err = list_probeable(&list);
	funcs__free(&list);
	return err;
}

/* The probes for the functions of binary b (funcs are sorted by binary). */

static int plan_add_sites(struct probe_plan *pl, const struct ret_sites *rs, uint64_t id)
{
	if (pl->nsites + rs->n > pl->sites_cap) {
		size_t cap = (pl->nsites + rs->n) * 2;
		uint64_t *o = realloc(pl->site_offsets, cap * sizeof(*o));
		uint64_t *i = o ? realloc(pl->site_ids, cap * sizeof(*i)) : NULL;

		if (o)
			pl->site_offsets = o;
		if (!i)
			return -ENOMEM;
		pl->site_ids = i;
		pl->sites_cap = cap;
	}
	for (size_t k = 0; k < rs->n; k++) {
		pl->site_offsets[pl->nsites] = rs->off[k];
		pl->site_ids[pl->nsites++] = id;
	}
	return 0;
}

/* How function f returns: by uretprobe (0, *uret set), by its return sites
 * (0, added to the plan), or not traceable (1). */
static int plan_return(struct probe_plan *pl, struct disasm *d, int fd, bool unwinds,
		       const struct func *f, uint64_t id, bool *uret)
{
	struct ret_sites rs = {};
	int err;

	*uret = !unwinds;
	if (!unwinds)
		return 0;
	/* nothing unwinds through a function that calls nothing */
	err = ret_sites__find(d, fd, f->offset, f->vaddr, f->size, &rs);
	if (!err && rs.leaf)
		*uret = true;
	else if (!err && rs.complete && rs.n)
		err = plan_add_sites(pl, &rs, id);
	else
		err = 1;
	ret_sites__free(&rs);
	return err;
}

static void plan_free(struct probe_plan *pl)
{
	free(pl->offsets);
	free(pl->ids);
	free(pl->site_offsets);
	free(pl->site_ids);
	free(pl->uret);
	free(pl->bad);
	memset(pl, 0, sizeof(*pl));
}

static int plan_alloc(struct probe_plan *pl, size_t n)
{
	pl->offsets = malloc((n + 1) * sizeof(*pl->offsets));
	pl->ids = malloc((n + 1) * sizeof(*pl->ids));
	pl->uret = calloc(n + 1, sizeof(*pl->uret));
	pl->bad = calloc(n + 1, sizeof(*pl->bad));
	return pl->offsets && pl->ids && pl->uret && pl->bad ? 0 : -ENOMEM;
}

static void note_refused(struct trace_source *ts, const char *name)
{
	if (ts->at.refused < SKIPPED_SHOWN)
		ts->at.refused_names[ts->at.refused] = name;
	ts->at.refused++;
}

/* Plans the functions [first, last) of one binary. */
static int plan_binary(struct trace_source *ts, struct disasm *d, int fd, size_t first, size_t last,
		       struct probe_plan *pl)
{
	bool unwinds = ret_sites__unwinds(fd);
	int err = plan_alloc(pl, last - first);

	for (size_t i = first; i < last && !err; i++) {
		const struct func *f = &ts->funcs.v[i];
		enum entry_kind kind;
		uint64_t site;
		bool uret;

		if (f->ifunc) { /* a resolver runs once, at load: nothing to time */
			ts->at.ifuncs++;
			continue;
		}
		kind = disasm__entry(d, fd, f->offset, &site);
		if (kind == ENTRY_REFUSED) {
			note_refused(ts, f->name);
			continue;
		}
		err = plan_return(pl, d, fd, unwinds, f, i, &uret);
		if (err == 1) {
			ts->at.no_ret_sites++;
			err = 0;
			continue;
		}
		ts->at.entries_stepped += kind == ENTRY_STEPPED;
		pl->offsets[pl->n] = site;
		pl->ids[pl->n] = i;
		pl->uret[pl->n++] = uret;
		ts->at.by_uretprobe += uret;
		ts->at.by_ret_sites += !uret;
	}
	return err;
}

static void note_skipped(struct trace_source *ts, const struct probe_plan *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		ts->at.attached += !pl->bad[i];
		if (pl->bad[i])
			note_refused(ts, ts->funcs.v[pl->ids[i]].name);
	}
}

static int attach_plan(struct trace_source *ts, const char *path, struct probe_plan *pl, pid_t pid,
		       size_t *bad_sites)
{
	struct trace_target tg = { path,     pl->n,	 pl->offsets,	   pl->ids,
				   pl->uret, pl->nsites, pl->site_offsets, pl->site_ids };

	return tracer__attach(ts->t, &tg, pid, pl->bad, bad_sites);
}

/* Takes over the plan (*pl is left empty) to attach it for children later. */
static int keep_lib(struct trace_source *ts, const char *path, struct probe_plan *pl)
{
	struct lib_probes *v = realloc(ts->libs, (ts->nlibs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	ts->libs = v;
	ts->libs[ts->nlibs++] = (struct lib_probes){ path, *pl };
	memset(pl, 0, sizeof(*pl));
	return 0;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* A child of the command: its libraries' probes, for it alone. One that
 * exited already (ESRCH) needs none, nor any when no library is traced. */
static void trace_child(struct trace_source *ts, const struct trace_fork_event *ev)
{
	double ms;
	size_t bad_sites = 0;
	int err = 0;

	if (!ts->nlibs)
		return;
	if (ts->at.children == TRACE_MAX_CHILDREN) {
		ts->at.children_over++;
		return;
	}
	for (size_t i = 0; i < ts->nlibs && !err; i++)
		err = attach_plan(ts, ts->libs[i].path, &ts->libs[i].pl, ev->pid, &bad_sites);
	if (err == -ESRCH)
		return;
	if (err && !ts->at.children_err)
		ts->at.children_err = err;
	if (err)
		return;
	ts->at.children++;
	ms = (now_ns() - (double)ev->ts) / 1e6;
	if (ms > ts->at.children_attach_ms)
		ts->at.children_attach_ms = ms;
}

static void trace_children(struct trace_source *ts)
{
	const struct trace_fork_event *ev;
	size_t n = tracer__forks(ts->t, &ev);

	for (size_t i = 0; i < n; i++)
		trace_child(ts, &ev[i]);
}

/* One binary's probes, planned before the tracer is loaded. */
struct bin_plan {
	size_t bin;
	pid_t pid;
	struct probe_plan pl;
};

static int plan_one(struct trace_source *ts, struct disasm *d, size_t first, size_t last,
		    struct probe_plan *pl)
{
	const char *path = ts->funcs.bins.v[ts->funcs.v[first].bin].open_path;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0) {
		err = -errno;
		p_err("cannot open '%s': %s", path, strerror(-err));
		return err;
	}
	err = plan_binary(ts, d, fd, first, last, pl);
	close(fd);
	return err;
}

static int attach_one(struct trace_source *ts, struct bin_plan *bp)
{
	const char *path = ts->funcs.bins.v[bp->bin].open_path;
	size_t bad_sites = 0;
	int err = attach_plan(ts, path, &bp->pl, bp->pid, &bad_sites);

	if (err)
		p_err("cannot attach uprobes to '%s': %s%s", path, strerror(-err),
		      source__bpf_hint(err, ts->verbosity));
	else
		note_skipped(ts, &bp->pl);
	ts->at.bad_sites += bad_sites;
	ts->at.binaries++;
	if (!err && ts->o->command && bp->pid)
		err = keep_lib(ts, path, &bp->pl);
	return err;
}

/* The single process the links of binary bin can be limited to, or 0. A
 * COMMAND's own program is probed in every process that runs it, so that
 * the children it forks are traced too (the BPF pid filter follows them);
 * its shared libraries only in the command process, so that the rest of
 * the system does not trap in them. */
static pid_t link_pid(const struct trace_source *ts, size_t bin, pid_t cmd_pid)
{
	const struct target_binary *b = &ts->funcs.bins.v[bin];

	if (ts->o->npids == 1)
		return ts->o->pids[0];
	if (!ts->o->command)
		return 0;
	return b->dev == ts->exe.dev && b->ino == ts->exe.ino ? 0 : cmd_pid;
}

static void plans_free(struct bin_plan *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		plan_free(&v[i].pl);
	free(v);
}

/* Plans the probes of every binary (funcs are sorted by binary): where
 * each entry and return is probed, which is most of start-up's work. */
static int plan_all(struct trace_source *ts, pid_t cmd_pid, struct bin_plan **out, size_t *nout)
{
	struct bin_plan *v = calloc(ts->funcs.bins.n + 1, sizeof(*v));
	struct disasm *d;
	size_t first = 0, n = 0;
	int err;

	if (!v)
		return -ENOMEM;
	err = disasm__new(&d);
	if (err) {
		p_err("cannot start the x86-64 disassembler: %s", strerror(-err));
		free(v);
		return err;
	}
	while (first < ts->funcs.n && !err && n < ts->funcs.bins.n) {
		size_t last = first, bin = ts->funcs.v[first].bin;

		while (last < ts->funcs.n && ts->funcs.v[last].bin == bin)
			last++;
		v[n] = (struct bin_plan){ .bin = bin, .pid = link_pid(ts, bin, cmd_pid) };
		err = plan_one(ts, d, first, last, &v[n++].pl);
		first = last;
	}
	disasm__free(d);
	if (err) {
		plans_free(v, n);
		return err;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* tracer__open on a thread of its own: loading the BPF programs (libbpf
 * parses the kernel's BTF for them) and planning the probes (a disassembly
 * of every function) take about as long, and there are CPUs for both. */
struct tracer_job {
	struct tracer *t;
	struct tracer_opts opts;
	int err;
};

static void *tracer_job_run(void *arg)
{
	struct tracer_job *j = arg;

	j->err = tracer__open(&j->t, &j->opts);
	return NULL;
}

static int open_and_plan(struct trace_source *ts, struct tracer_job *j, pid_t cmd_pid,
			 struct bin_plan **plans, size_t *n)
{
	pthread_t th;
	bool threaded = !pthread_create(&th, NULL, tracer_job_run, j);
	int err = plan_all(ts, cmd_pid, plans, n);

	if (threaded)
		pthread_join(th, NULL);
	else
		tracer_job_run(j);
	if (err) { /* reported */
		if (!j->err)
			tracer__free(j->t);
		return err;
	}
	if (j->err) {
		plans_free(*plans, *n);
		*plans = NULL;
		*n = 0;
		p_err("cannot load the BPF tracer: %s%s", strerror(-j->err),
		      source__bpf_hint(j->err, ts->verbosity));
		return j->err;
	}
	ts->t = j->t;
	return 0;
}

/* One probe per code address: IFUNCs that run one implementation are
 * traced under the first name; then what stands behind each IFUNC. */
static void merge_code(struct trace_source *ts)
{
	struct report_merges m = {};

	funcs__merge_code(&ts->funcs, report__merged, &m);
	report__merges(&m);
	report__ifuncs(&ts->funcs, ts->verbosity > 0);
}

static int make_names(struct trace_source *ts)
{
	ts->names = calloc(ts->funcs.n + 1, sizeof(*ts->names));
	if (!ts->names)
		return -ENOMEM;
	for (size_t i = 0; i < ts->funcs.n; i++) {
		ts->names[i].name = ts->o->no_demangle ? ts->funcs.v[i].sym : ts->funcs.v[i].name;
		ts->names[i].path = ts->funcs.bins.v[ts->funcs.v[i].bin].path;
		ts->names[i].module = basename_of(ts->names[i].path);
		ts->names[i].vaddr = ts->funcs.v[i].vaddr;
	}
	return 0;
}

static int add_pid(void *impl, pid_t pid)
{
	int err = tracer__add_pid(((struct trace_source *)impl)->t, pid);

	if (err)
		p_err("cannot set the process filter: %s", strerror(-err));
	return err;
}

static int start(void *impl)
{
	(void)impl; /* the probes are live from attach on */
	return 0;
}

static int poll_events(void *impl, int timeout_ms)
{
	struct trace_source *ts = impl;
	int err = tracer__poll(ts->t, timeout_ms);

	if (!err)
		trace_children(ts);
	return err;
}

static uint64_t progress(void *impl)
{
	return tracer__calls(((struct trace_source *)impl)->t);
}

static void stop(void *impl)
{
	tracer__stop(((struct trace_source *)impl)->t);
}

static int collect(void *impl, struct profile *p)
{
	struct trace_source *ts = impl;

	return tracer__collect(ts->t, ts->names, ts->funcs.n, p);
}

static void summary(void *impl, const struct profile *p, double secs)
{
	struct trace_source *ts = impl;
	struct tracer_stats st;

	tracer__stats(ts->t, &st);
	report__trace_summary(p, &st, &ts->at, secs, ts->verbosity > 0);
}

static void describe(void *impl, struct profile_meta *m, struct strbuf *b)
{
	struct tracer_stats st;

	tracer__stats(((struct trace_source *)impl)->t, &st);
	report__trace_losses(&st, b);
	m->losses = b->len ? b->s : "";
}

static void source_free(void *impl)
{
	struct trace_source *ts = impl;

	if (!ts)
		return;
	tracer__free(ts->t);
	for (size_t i = 0; i < ts->nlibs; i++)
		plan_free(&ts->libs[i].pl);
	free(ts->libs);
	funcs__free(&ts->funcs);
	free(ts->names);
	free(ts);
}

static const struct source_ops trace_ops = {
	.what = "calls",
	.add_pid = add_pid,
	.start = start,
	.poll = poll_events,
	.progress = progress,
	.stop = stop,
	.collect = collect,
	.summary = summary,
	.describe = describe,
	.free = source_free,
};

/* Whether an output shows each call's arguments: Chrome JSON's args. */
static bool shows_args(const struct options *o)
{
	for (size_t i = 0; i < o->noutputs; i++)
		if (o->formats[i] == FORMAT_CHROME)
			return true;
	return false;
}

static int open_tracer(struct trace_source *ts, pid_t cmd_pid)
{
	struct tracer_job job = { .opts = {
					  .filter_pids = ts->o->npids || ts->o->command,
					  .follow_children = ts->o->command != NULL,
					  .want_calls = ts->o->timeline,
					  .want_args = shows_args(ts->o),
					  .want_stacks = ts->o->full_stack,
					  .max_calls = ts->o->max_calls,
					  .unwind = ts->o->unwind,
					  .notify_forks = ts->o->command != NULL,
					  .duration = ts->o->duration,
				  } };
	struct bin_plan *plans = NULL;
	char missing[64];
	size_t n = 0;
	int err;

	if (privileges__missing(missing, sizeof(missing))) {
		p_err("tracing needs root, or CAP_BPF and CAP_PERFMON (missing %s)", missing);
		return -EPERM;
	}
	err = open_and_plan(ts, &job, cmd_pid, &plans, &n);
	for (size_t i = 0; i < n && !err; i++)
		err = attach_one(ts, &plans[i]);
	plans_free(plans, n);
	return err == -EINVAL ? -EIO : err;
}

int source_trace__open(struct source *src, const struct options *o, pid_t cmd_pid, int verbosity)
{
	struct trace_source *ts = calloc(1, sizeof(*ts));
	int err;

	if (!ts)
		return -ENOMEM;
	ts->o = o;
	ts->verbosity = verbosity;
	source__set_symbolizer(o);
	err = select_funcs(o, o->funcs, o->nfuncs, &ts->funcs, &ts->exe);
	if (!err)
		merge_code(ts);
	if (!err)
		err = make_names(ts);
	if (!err)
		err = open_tracer(ts, cmd_pid);
	if (err) {
		source_free(ts);
		return err;
	}
	*src = (struct source){ &trace_ops, ts, UNIT_NANOSECONDS };
	return 0;
}
