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

#include "symbols/symbolize.h"
#include "util/msg.h"
#include "catch_sites.h"
#include "fragments.h"
#include "funcs.h"
#include "privileges.h"
#include "probe_plan.h"
#include "disasm.h"
#include "ret_sites.h"
#include "source.h"
#include "stack_walkers.h"
#include "summary.h"
#include "targets.h"
#include "tracer.h"
#include "uprobe_multi.h"

struct trace_source {
	struct tracer *t; /* first: see tracer_of */
	const struct source_opts *o;
	int verbosity;
	struct funcs funcs;
	struct trace_func *names; /* by function id (index in funcs) */
	struct trace_attach_stats at;
	struct target_binary exe;   /* the target's program (dev, ino only) */
	struct catch_sites catches; /* libstdc++'s exception probes in the targets */
	/* Every target process was judged plain (stack_walkers.h): no unwinder,
	 * no Go, nothing that switches stacks. Functions that are no leaf may
	 * then return by uretprobe, in the processes the BPF filter marks
	 * plain: a process that execs another program loses the mark. Needs
	 * uprobe sessions, whose entry can decline the return probe. */
	bool plain;
	pid_t cmd_pid;
	/* Plans kept after attaching: in COMMAND mode the probes of its
	 * libraries, to attach them for each child it forks (they are limited
	 * to single processes); with plain targets, every binary's safe plan,
	 * for a process found not to be plain after an exec. */
	struct kept_plan {
		const char *path;
		struct probe_plan pl; /* empty but for a COMMAND's libraries */
		struct probe_plan safe;
	} * kept;
	size_t nkept;
	pid_t *replanned; /* processes given the safe plans */
	size_t nreplanned;
};

/* The binaries a -f without BINARY searches: the target's. */
static void list_names(const struct binaries *b, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < b->n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "", b->v[i].path);
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

/* The BINARY of a "BINARY:REGEX" argument that was not found, so taken
 * for a regex: its part before the ':' when that is a plain name, else
 * NULL. */
static char *unfound_binary(const char *arg)
{
	size_t len = strcspn(arg, ":");

	if (!len || arg[len] != ':' || arg[len + 1] == ':' ||
	    strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") < len)
		return NULL;
	return strndup(arg, len);
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
		err = targets__resolve(binary, target, &own);
		bins = &own;
	} else if (!target->n) {
		char *name = unfound_binary(arg);

		if (name)
			p_err("'%s': no binary '%s' in the library directories or PATH (tracing "
			      "system-wide needs BINARY:REGEX)",
			      arg, name);
		else
			p_err("'%s': tracing system-wide needs BINARY:REGEX (e.g. libc:%s)", arg,
			      regex);
		free(name);
		err = -EINVAL;
	}
	q.re = &re;
	q.text = regex;
	if (!err && (err = funcs__match(list, bins, &q)))
		p_err("cannot read the symbols of '%s': %s",
		      q.failed < bins->n ? bins->v[q.failed].path : arg, strerror(-err));
	if (!err && !q.matched) {
		char *name = binary ? NULL : unfound_binary(arg);

		list_names(bins, names, sizeof(names));
		if (name)
			p_err("no symbol matches '%s' in %s (nor is there a binary '%s' in the "
			      "target, the library directories or PATH)",
			      regex, names, name);
		else
			p_err("no symbol matches '%s' in %s", regex, names);
		free(name);
		err = -EINVAL;
	}
	regfree(&re);
out_free:
	binaries__free(&own);
	free(binary);
	free(regex);
	return err == -ENOEXEC ? -EINVAL : err;
}

/* Whether to put probes on libstdc++'s exceptions: FLAMEBPF_NO_CATCH_PROBES=1
 * in the environment says no (to see, or test, the stack-pointer inference
 * alone). */
static bool wants_catches(void)
{
	const char *v = getenv("FLAMEBPF_NO_CATCH_PROBES");

	return !v || strcmp(v, "1");
}

/* Selects the functions of the specs; *exe (if not NULL) gets the target's
 * main executable, the first of its binaries, *walkers what walks the
 * stacks of the target processes (all of them, when there is no target),
 * and *catches (if not NULL) the exception probes in the target's binaries. */
static int select_funcs(const struct source_opts *o, const char *const *specs, size_t n,
			struct funcs *list, struct target_binary *exe, unsigned int *walkers,
			struct catch_sites *catches)
{
	struct binaries target = {};
	int err = targets__of(o, &target);

	for (size_t i = 0; i < n && !err; i++)
		err = match_one(list, specs[i], &target);
	if (!err && exe && target.n) {
		exe->dev = target.v[0].dev;
		exe->ino = target.v[0].ino;
	}
	if (!err && walkers)
		*walkers = target.n ? stack_walkers__of_binaries(&target) : ~0U;
	if (!err && catches && wants_catches())
		err = catch_sites__find(&target, catches);
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
		/* an IFUNC whose implementation was not found is not traced,
		 * nor a .cold part (its time is its function's) */
		keep[i] = k != ENTRY_REFUSED && !list->v[i].ifunc && !fragment__is(list->v[i].sym);
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
	size_t stepped = 0, n = funcs__count(list), ifuncs = 0, parts = 0;
	bool *keep = calloc(n + 1, sizeof(*keep));
	struct disasm *d = NULL;
	int err = keep ? disasm__new(&d) : -ENOMEM;

	for (size_t i = 0; i < list->n; i++) {
		ifuncs += list->v[i].ifunc;
		parts += fragment__is(list->v[i].sym);
	}
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
	if (!err && n > funcs__count(list) + ifuncs + parts)
		p_err("%zu left out: the kernel cannot probe their first instruction (a lock or "
		      "segment prefix), or would run it wrongly",
		      n - funcs__count(list) - ifuncs - parts);
	if (!err && ifuncs)
		p_err("%zu IFUNCs left out: the implementation their resolver picks could not be "
		      "found, or is in another file (the vDSO)",
		      ifuncs);
	if (!err && parts)
		p_err("%zu split-off parts (.cold) left out: their time is their function's",
		      parts);
	disasm__free(d);
	free(keep);
	return !err && !list->n ? -EINVAL : err;
}

int source_trace__list(const struct source_opts *o)
{
	struct funcs list = {};
	int err = select_funcs(o, &o->list, 1, &list, NULL, NULL, NULL);

	if (!err)
		err = list_probeable(&list);
	funcs__free(&list);
	return err;
}

static void note_skipped(struct trace_source *ts, const struct probe_plan *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		ts->at.attached += !pl->bad[i];
		if (pl->bad[i])
			probe_plan__note_refused(&ts->at, ts->funcs.v[pl->ids[i]].name);
	}
}

static int attach_plan(struct trace_source *ts, const char *path, struct probe_plan *pl, pid_t pid,
		       size_t *bad_sites)
{
	struct trace_target tg = {
		.path = path,
		.n = pl->n,
		.offsets = pl->offsets,
		.ids = pl->ids,
		.uret = pl->uret,
		.plain_only = pl->plain_only,
		.go_g = pl->go_g,
		.nsites = pl->nsites,
		.site_offsets = pl->site_offsets,
		.site_ids = pl->site_cookies,
	};

	return tracer__attach(ts->t, &tg, pid, pl->bad, bad_sites);
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* One binary's probes, planned before the tracer is loaded, and the safe
 * way for those that are fast only in plain processes. */
struct bin_plan {
	size_t bin;
	pid_t pid;
	struct probe_plan pl, safe;
};

/* Keeps what later processes need of a binary's plans (taken over: *bp is
 * left without them). */
static int keep_plans(struct trace_source *ts, const char *path, struct bin_plan *bp, bool lib)
{
	struct kept_plan *v, k = { path };

	if (!lib && !ts->plain)
		return 0;
	v = realloc(ts->kept, (ts->nkept + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	ts->kept = v;
	if (lib) {
		k.pl = bp->pl;
		memset(&bp->pl, 0, sizeof(bp->pl));
	}
	k.safe = bp->safe;
	memset(&bp->safe, 0, sizeof(bp->safe));
	ts->kept[ts->nkept++] = k;
	return 0;
}

static bool kept_any(const struct trace_source *ts, bool safe)
{
	for (size_t i = 0; i < ts->nkept; i++)
		if (safe ? ts->kept[i].safe.n : ts->kept[i].pl.n)
			return true;
	return false;
}

/* Attaches the kept plans (safe: the safe ones) for process pid alone.
 * Returns 0, -ESRCH when it is gone, or -errno. */
static int attach_kept(struct trace_source *ts, pid_t pid, bool safe)
{
	size_t bad_sites = 0;
	int err = 0;

	for (size_t i = 0; i < ts->nkept && !err; i++) {
		struct probe_plan *pl = safe ? &ts->kept[i].safe : &ts->kept[i].pl;

		if (pl->n)
			err = attach_plan(ts, ts->kept[i].path, pl, pid, &bad_sites);
	}
	return err;
}

static void note_attach_time(double *worst_ms, uint64_t since_ns)
{
	double ms = (now_ns() - (double)since_ns) / 1e6;

	if (ms > *worst_ms)
		*worst_ms = ms;
}

/* A child of the command: its libraries' probes, for it alone; the safe
 * ones too when it is no longer plain (its parent exec'd another program).
 * One that exited already (ESRCH) needs none. */
static void trace_child(struct trace_source *ts, const struct trace_proc_event *ev)
{
	bool safe = ts->plain && !(tracer__pid_flags(ts->t, ev->pid) & PID_PLAIN);
	int err;

	if (!kept_any(ts, false))
		return;
	if (ts->at.children == TRACE_MAX_CHILDREN) {
		ts->at.children_over++;
		return;
	}
	err = attach_kept(ts, ev->pid, false);
	if (!err && safe)
		err = attach_kept(ts, ev->pid, true);
	if (err == -ESRCH)
		return;
	if (err && !ts->at.children_err)
		ts->at.children_err = err;
	if (err)
		return;
	ts->at.children++;
	note_attach_time(&ts->at.children_attach_ms, ev->ts);
}

static bool replanned(const struct trace_source *ts, pid_t pid)
{
	for (size_t i = 0; i < ts->nreplanned; i++)
		if (ts->replanned[i] == pid)
			return true;
	return false;
}

/* Whether the program process pid runs now is plain, judged as the
 * targets were: its executable and the libraries it loads. */
static bool runs_plain(pid_t pid)
{
	char link[64], exe[4096];
	struct binaries b = {};
	ssize_t n;
	bool plain;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	plain = !binaries__of_command(exe, &b) && b.n && !stack_walkers__of_binaries(&b);
	binaries__free(&b);
	return plain;
}

/* A process exec'd a program other than the one judged plain: its calls of
 * functions fast only in plain processes stopped being traced (the BPF
 * side saw to it). A plain program gets them back; another, the safe
 * plans, once. */
static void trace_exec(struct trace_source *ts, const struct trace_proc_event *ev)
{
	pid_t *v;
	int err;

	if (runs_plain(ev->pid)) {
		if (!tracer__add_pid(ts->t, ev->pid, PID_PLAIN, false))
			ts->at.execs_plain++;
		return;
	}
	if (replanned(ts, ev->pid))
		return;
	v = realloc(ts->replanned, (ts->nreplanned + 1) * sizeof(*v));
	if (!v)
		return;
	ts->replanned = v;
	ts->replanned[ts->nreplanned++] = ev->pid;
	err = attach_kept(ts, ev->pid, true);
	if (err && err != -ESRCH && !ts->at.execs_err)
		ts->at.execs_err = err;
	if (err)
		return;
	ts->at.execs_replanned++;
	note_attach_time(&ts->at.execs_attach_ms, ev->ts);
}

static void trace_proc_events(struct trace_source *ts)
{
	const struct trace_proc_event *ev;
	size_t n = tracer__proc_events(ts->t, &ev);

	for (size_t i = 0; i < n; i++) {
		if (ev[i].type == EV_FORK)
			trace_child(ts, &ev[i]);
		else
			trace_exec(ts, &ev[i]);
	}
}

static int plan_one(struct trace_source *ts, struct disasm *d, size_t first, size_t last,
		    struct bin_plan *bp)
{
	const char *path = ts->funcs.bins.v[ts->funcs.v[first].bin].open_path;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0) {
		err = -errno;
		p_err("cannot open '%s': %s", path, strerror(-err));
		return err;
	}
	err = probe_plan__binary(&ts->funcs, first, last, fd, ts->plain, d, &bp->pl,
				 ts->plain ? &bp->safe : NULL, &ts->at);
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
	if (!err)
		err = keep_plans(ts, path, bp, ts->o->command && bp->pid);
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
	for (size_t i = 0; i < n; i++) {
		probe_plan__free(&v[i].pl);
		probe_plan__free(&v[i].safe);
	}
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
		err = plan_one(ts, d, first, last, &v[n++]);
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
	struct summary_merges m = {};

	funcs__merge_code(&ts->funcs, summary__merged, &m);
	summary__merges(&m);
	summary__ifuncs(&ts->funcs, ts->verbosity > 0);
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

/* A target's marks in the BPF filter: the command execs its program once
 * more (the one judged) before it is the judged image. */
static int add_pid(void *impl, pid_t pid, bool before_exec)
{
	struct trace_source *ts = impl;
	unsigned int flags = !ts->plain		  ? 0
			     : pid == ts->cmd_pid ? PID_PLAIN | PID_EXEC_ONCE
						  : PID_PLAIN;
	int err = tracer__add_pid(ts->t, pid, flags, before_exec);

	if (err)
		p_err("cannot set the process filter: %s", strerror(-err));
	return err;
}

int source_tracer__add_targets(void *impl, const struct source_opts *o, pid_t cmd_pid,
			       int (*add)(void *impl, pid_t pid, bool before_exec))
{
	int err = 0;

	for (size_t i = 0; i < o->npids && !err; i++)
		err = add(impl, o->pids[i], false);
	if (!err && cmd_pid)
		err = add(impl, cmd_pid, true);
	return err;
}

/* The tracer of a source whose impl begins with it: trace's and py's. */
static struct tracer *tracer_of(void *impl)
{
	return *(struct tracer **)impl;
}

int source_tracer__start(void *impl)
{
	(void)impl; /* the probes are live from attach on */
	return 0;
}

static int poll_events(void *impl, int timeout_ms)
{
	struct trace_source *ts = impl;
	int err = tracer__poll(ts->t, timeout_ms);

	if (!err)
		trace_proc_events(ts);
	return err;
}

uint64_t source_tracer__progress(void *impl)
{
	return tracer__calls(tracer_of(impl));
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
	summary__trace(p, &st, &ts->at, secs, ts->verbosity > 0);
}

void source_tracer__describe(void *impl, struct profile_meta *m, struct strbuf *b)
{
	struct tracer_stats st;

	tracer__stats(tracer_of(impl), &st);
	summary__trace_losses(&st, b);
	m->losses = b->len ? b->s : "";
}

static void source_free(void *impl)
{
	struct trace_source *ts = impl;

	if (!ts)
		return;
	tracer__free(ts->t);
	for (size_t i = 0; i < ts->nkept; i++) {
		probe_plan__free(&ts->kept[i].pl);
		probe_plan__free(&ts->kept[i].safe);
	}
	free(ts->kept);
	free(ts->replanned);
	catch_sites__free(&ts->catches);
	funcs__free(&ts->funcs);
	free(ts->names);
	free(ts);
}

static const struct source_ops trace_ops = {
	.what = "calls",
	.add_pid = add_pid,
	.start = source_tracer__start,
	.poll = poll_events,
	.progress = source_tracer__progress,
	.stop = stop,
	.collect = collect,
	.summary = summary,
	.describe = source_tracer__describe,
	.free = source_free,
};

/* libstdc++'s exception probes, in the process -p names or else in every
 * process (a COMMAND's children too; the BPF side passes over the threads
 * of processes not traced). Where they cannot go, exceptions are still
 * noticed by the stack pointer, later: said, not fatal. */
static int attach_exceptions(struct trace_source *ts)
{
	pid_t pid = ts->o->npids == 1 ? ts->o->pids[0] : 0;

	for (size_t i = 0; i < ts->catches.n; i++) {
		const struct catch_site_set *set = &ts->catches.v[i];
		int err = tracer__attach_exceptions(ts->t, set->path, set->offsets, set->ref_ctrs,
						    set->cookies, set->n, pid);

		if (err == -ENOMEM)
			return err;
		if (err)
			p_err("cannot attach the exception probes of '%s': %s (calls an exception "
			      "leaves end at the thread's next traced event)",
			      set->path, strerror(-err));
		else
			ts->at.exception_binaries++;
	}
	return 0;
}

static int open_tracer(struct trace_source *ts, pid_t cmd_pid)
{
	struct tracer_job job = { .opts = {
					  .filter_pids = ts->o->npids || ts->o->command,
					  .follow_children = ts->o->command != NULL,
					  .want_calls = ts->o->timeline,
					  .want_args = ts->o->want_args,
					  .want_stacks = ts->o->full_stack,
					  .max_calls = ts->o->max_calls,
					  .unwind = ts->o->unwind,
					  .notify_forks = ts->o->command != NULL,
					  .notify_execs = ts->plain,
					  .cpu_split = ts->o->cpu_split,
					  .state_root = ts->o->state_root,
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
	if (!err)
		err = source_tracer__add_targets(ts, ts->o, cmd_pid, add_pid);
	for (size_t i = 0; i < n && !err; i++)
		err = attach_one(ts, &plans[i]);
	plans_free(plans, n);
	if (!err)
		err = attach_exceptions(ts);
	return err == -EINVAL ? -EIO : err;
}

/* Whether the targets' plain judgement can be relied on: the BPF filter
 * carries it per process, and a session's entry can decline a return. */
static bool may_trust_plain(const struct source_opts *o, unsigned int walkers)
{
	bool multi, sessions;

	if (walkers || !(o->npids || o->command))
		return false;
	uprobe_multi__features(&multi, &sessions);
	return multi && sessions;
}

int source_trace__open(struct source *src, const struct source_opts *o, pid_t cmd_pid,
		       int verbosity)
{
	struct trace_source *ts;
	unsigned int walkers = 0;
	int err;

	if (source_pytrace__wanted(o))
		return source_pytrace__open(src, o, cmd_pid, verbosity);
	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -ENOMEM;
	ts->o = o;
	ts->verbosity = verbosity;
	source__set_symbolizer(o);
	ts->cmd_pid = cmd_pid;
	err = select_funcs(o, o->funcs, o->nfuncs, &ts->funcs, &ts->exe, &walkers, &ts->catches);
	if (!err)
		ts->plain = may_trust_plain(o, walkers);
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
