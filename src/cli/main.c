// SPDX-License-Identifier: GPL-2.0
/* flamebpf: the command line. Orchestrates source -> profile -> sink and is
 * the one place that talks to the user. */
#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture/command.h"
#include "capture/source.h"
#include "capture/usdt_list.h"
#include "formats/sink.h"
#include "profile/profile.h"
#include "symbols/proc_tgid.h"
#include "util/msg.h"
#include "util/output.h"
#include "cmd_diff.h"
#include "continuous.h"
#include "options.h"
#include "push.h"
#include "render.h"
#include "report.h"

#define EXIT_USAGE     2
#define POLL_MS	       50
#define PROGRESS_EVERY 0.25

static volatile sig_atomic_t stop_signal, nsignals;
/* --continuous: allocations from this size on get mappings of their own */
#define CONT_MMAP_THRESHOLD (256 << 10)

/* --continuous: SIGHUP ends the interval, not the run */
static volatile sig_atomic_t hup_pending;
static bool hup_ends_interval;
static int verbosity;

struct run {
	const struct options *o;
	int argc;
	char **argv;
	struct output out[OPTIONS_MAX_FILES];
	struct source src;
	struct command cmd;
	bool have_cmd, cmd_ran, cmd_stopped, exec_failed;
	bool bad_input;	    /* the source found the options unusable: exit 2 */
	int *pidfds;	    /* -p targets, to notice when they all exit */
	bool gone_at_start; /* they all exited while the probes went in */
	struct profile *p;
	struct profile *top; /* --top N: what is written; NULL: p */
	/* several -e: the profile of each event, made for an output that draws it */
	struct profile *of_type[PROFILE_MAX_TYPES];
	struct top_stats top_st;
	double start, secs;
	struct pusher *pusher;
	const char *why_stopped;
	sig_atomic_t signals_at_stop; /* nsignals then: one more stops the writing */
	/* --continuous: the intervals' files (and later pushes), the one
	 * running, when it began and when it ends (CLOCK_MONOTONIC) */
	struct continuous cont;
	struct interval iv;
	double iv_start, iv_end;
	double wall_start; /* CLOCK_REALTIME at start */
};

static void on_signal(int sig)
{
	if (sig == SIGHUP && hup_ends_interval) {
		hup_pending = 1;
		return;
	}
	stop_signal = sig;
	nsignals++;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (verbosity < 2 && (level == LIBBPF_DEBUG || verbosity < 1))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	int rate = 0;

	if (f) {
		if (fscanf(f, "%d", &rate) != 1)
			rate = 0;
		fclose(f);
	}
	return rate;
}

/* The kernel throttles a PMU's interrupts that take too long, not the
 * clock events' timer: on a VM whose timer interrupt costs tens of us, 100
 * kHz left a traced `true` no time to run for 8 minutes (soft lockups),
 * and flamebpf's own -d with it; 50 kHz still ended. */
#define CLOCK_FREQ_MAX 50000

/* Usage errors that need a look at the system: they exit 2 too. */
static int check_usage(const struct options *o)
{
	int max = max_sample_rate();
	const struct perf_event_desc *ev = o->capture.event;

	if (max > 0 && o->capture.freq > (unsigned int)max) {
		p_err("frequency %u Hz is above kernel.perf_event_max_sample_rate (%d)",
		      o->capture.freq, max);
		return -EINVAL;
	}
	if (o->capture.freq > CLOCK_FREQ_MAX && (!ev || ev->clock)) {
		p_err("frequency %u Hz: %s above %d Hz can take all of a CPU's time (the kernel "
		      "does not throttle its timer); use -F %d or less",
		      o->capture.freq, ev ? ev->name : "cpu-clock", CLOCK_FREQ_MAX, CLOCK_FREQ_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < o->capture.npids; i++) {
		if (kill(o->capture.pids[i], 0) && errno == ESRCH) {
			p_err("no such process: %d", o->capture.pids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

/* -p of a thread's id: its process, as perf record -p takes it (the
 * thread alone had been filtered out, and no sample was its). Each
 * process once. */
static void threads_to_processes(struct options *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->capture.npids; i++) {
		pid_t pid = o->capture.pids[i], tgid;
		bool seen = false;

		if (!proc_tgid__of(pid, &tgid) && tgid != pid) {
			p_err("%d is a thread of process %d: profiling the process (--tids "
			      "shows each thread)",
			      (int)pid, (int)tgid);
			pid = tgid;
		}
		for (size_t j = 0; j < n; j++)
			seen = seen || o->capture.pids[j] == pid;
		if (!seen)
			o->capture.pids[n++] = pid;
	}
	o->capture.npids = n;
}

static int open_source(struct run *r)
{
	const struct options *o = r->o;
	int err = o->capture.alloc ? source_alloc__open(&r->src, &o->capture,
							r->have_cmd ? r->cmd.pid : 0, verbosity)
		  : o->capture.freq || o->capture.event || o->capture.tracepoint ||
				  o->capture.nusdt || o->capture.offcpu || o->capture.nspans
			  ? source_sample__open(&r->src, &o->capture, verbosity)
			  : source_trace__open(&r->src, &o->capture, r->have_cmd ? r->cmd.pid : 0,
					       verbosity);

	for (size_t i = 0; i < o->capture.npids && !err; i++)
		err = r->src.ops->add_pid(r->src.impl, o->capture.pids[i], false);
	if (!err && r->have_cmd)
		err = r->src.ops->add_pid(r->src.impl, r->cmd.pid, true);
	r->bad_input = err == -EINVAL;
	return err;
}

/* Before the probes go in: a target that exits while they do is noticed
 * (-ESRCH: gone already), not traced until the duration ends. */
static void open_pidfds(struct run *r)
{
	r->pidfds = calloc(r->o->capture.npids ? r->o->capture.npids : 1, sizeof(int));
	for (size_t i = 0; r->pidfds && i < r->o->capture.npids; i++) {
		r->pidfds[i] = syscall(SYS_pidfd_open, r->o->capture.pids[i], 0);
		if (r->pidfds[i] < 0)
			r->pidfds[i] = -errno;
	}
}

/* Whether output path is this process's standard output. */
static bool is_stdout(const char *path)
{
	struct stat a, b;

	if (!strcmp(path, "-"))
		return true;
	return !stat(path, &a) && !fstat(STDOUT_FILENO, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* A COMMAND writes to the standard output the profile goes to: a file or a
 * pipe gets both, mixed, which no reader of either takes. Said, not
 * refused: perf and bpftrace share it too. */
static void warn_shared_stdout(const struct options *o)
{
	if (isatty(STDOUT_FILENO))
		return;
	for (size_t i = 0; i < o->noutputs; i++)
		if (is_stdout(o->outputs[i])) {
			p_err("warning: the profile goes to standard output, which '%s' writes to "
			      "too: the two are mixed there (-o FILE keeps them apart)",
			      o->capture.command[0]);
			return;
		}
}

static int start(struct run *r)
{
	int err;

	if (r->o->capture.command) {
		warn_shared_stdout(r->o);
		err = command__spawn(&r->cmd, r->o->capture.command);
		if (err) {
			p_err("cannot start '%s': %s", r->o->capture.command[0], strerror(-err));
			return err;
		}
		r->have_cmd = true;
	}
	open_pidfds(r);
	err = open_source(r);
	if (!err)
		err = r->src.ops->start(r->src.impl);
	if (err)
		return err;
	/* Ctrl-C while the probes went in: the command must not run at all */
	if (stop_signal) {
		p_err("SIG%s before the capture began: no output written",
		      sigabbrev_np(stop_signal));
		return -EINTR;
	}
	r->start = now();
	r->wall_start = wall_now();
	if (r->have_cmd && (err = command__start(&r->cmd))) {
		p_err("cannot run '%s': %s", r->o->capture.command[0], strerror(-err));
		r->exec_failed = true;
		return err;
	}
	r->cmd_ran = r->have_cmd;
	return 0;
}

/* True when every -p target is gone; a pidfd polls readable on exit. */
static bool targets_gone(struct run *r)
{
	if (!r->o->capture.npids || !r->pidfds)
		return false;
	for (size_t i = 0; i < r->o->capture.npids; i++) {
		struct pollfd pfd = { .fd = r->pidfds[i], .events = POLLIN };

		if (r->pidfds[i] == -ESRCH)
			continue;
		if (r->pidfds[i] < 0)
			return false; /* cannot tell: run until stopped */
		/* only its exit: an error or POLLNVAL is not the target leaving */
		if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & (POLLIN | POLLHUP)))
			return false;
	}
	return true;
}

static const char *stop_reason(struct run *r, double t)
{
	if (stop_signal)
		return strsignal(stop_signal);
	if (r->o->capture.duration > 0 && t - r->start >= r->o->capture.duration)
		return "duration reached";
	if (r->have_cmd && command__exited(&r->cmd))
		return "command exited";
	if (targets_gone(r))
		return "target processes exited";
	return NULL;
}

/* What the writers may tell about the capture (titles, otherData). */
static int describe(struct run *r, struct profile *p, double start, double secs)
{
	struct profile_meta m = { .freq = r->o->capture.freq,
				  .secs = secs,
				  .start_ns = (uint64_t)(start * 1e9) };
	struct strbuf cmd = {}, losses = {};
	struct utsname u;
	int err;

	for (int i = 0; i < r->argc; i++)
		strbuf__addf(&cmd, "%s%s", i ? " " : "", r->argv[i]);
	m.cmdline = cmd.len ? cmd.s : "flamebpf";
	if (!uname(&u)) {
		m.kernel = u.release;
		m.host = u.nodename;
	}
	m.ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	r->src.ops->describe(r->src.impl, &m, &losses);
	err = profile__set_meta(p, &m);
	strbuf__free(&cmd);
	strbuf__free(&losses);
	return err;
}

/* --continuous: the interval that ends at t (SIGHUP's, the stop's, or
 * the schedule's) drained from the kernel and handed on; the next begins.
 * Intervals keep to a schedule of --interval from the start, not drifting
 * with the time the writing takes; after a SIGHUP, a new one from then. */
static int end_interval(struct run *r, double t, bool last)
{
	struct profile *p = profile__new(r->src.unit), *top = NULL;
	struct strbuf note = {};
	struct top_stats st;
	int err = p ? 0 : -ENOMEM;

	r->iv.secs = t - r->iv_start;
	r->iv.last = last;
	if (!err)
		err = r->src.ops->drain(r->src.impl, p, &note);
	if (!err)
		err = describe(r, p, r->iv_start, r->iv.secs);
	if (err)
		p_err("cannot read the %s of interval %lu from the kernel: %s", r->src.ops->what,
		      r->iv.n, strerror(-err));
	else if (!r->o->top ||
		 !(err = report__keep_top(p, r->o->top, r->o->root == ROOT_TID, &top, &st)))
		continuous__finish(&r->cont, top ? top : p, &r->iv);
	if (note.len && verbosity)
		p_err("  %s", note.s);
	strbuf__free(&note);
	profile__free(top);
	profile__free(p);
	r->iv.n++;
	r->iv.start = (time_t)(r->wall_start + (t - r->start));
	r->iv_start = t;
	r->iv_end = hup_pending || r->iv_end + r->o->cont.interval <= t
			    ? t + r->o->cont.interval
			    : r->iv_end + r->o->cont.interval;
	hup_pending = 0;
	return err;
}

static bool interval_over(const struct run *r, double t)
{
	return r->o->cont.on && (hup_pending || t >= r->iv_end);
}

static int capture(struct run *r)
{
	double next_progress = 0, t;
	int err;

	r->gone_at_start = targets_gone(r);
	r->wall_start = wall_now() - (now() - r->start);
	r->iv = (struct interval){ .n = 1, .start = (time_t)r->wall_start };
	r->iv_start = r->start;
	r->iv_end = r->start + r->o->cont.interval;
	while (!(r->why_stopped = stop_reason(r, t = now()))) {
		if (interval_over(r, t) && (err = end_interval(r, t, false)))
			return err;
		if (t >= next_progress) {
			report__progress(t - r->start, r->src.ops->progress(r->src.impl),
					 r->src.ops->what);
			next_progress = t + PROGRESS_EVERY;
		}
		err = r->src.ops->poll(r->src.impl, POLL_MS);
		if (err && err != -EINTR) {
			p_err("cannot read events from the kernel: %s", strerror(-err));
			return err;
		}
	}
	r->secs = now() - r->start;
	r->signals_at_stop = nsignals;
	report__progress_clear();
	r->src.ops->stop(r->src.impl);
	if (r->have_cmd && !command__exited(&r->cmd)) {
		command__stop(&r->cmd);
		r->cmd_stopped = true;
	}
	return 0;
}

static void explain_empty(const struct run *r)
{
	const char *who = r->o->capture.all	? "any process"
			  : r->have_cmd		? "the command"
			  : r->o->capture.npids ? "the target processes"
						: "any process";

	if (r->gone_at_start)
		p_err("no %s: the target processes exited before the capture began",
		      r->o->capture.offcpu ? "time off the CPU" : "samples or calls");
	else if (r->o->capture.alloc == PROFILE_ALLOC_LIVE)
		p_err("no memory live at the end: %s freed every allocation the probes saw during "
		      "the capture (or made none; --alloc shows what was allocated)",
		      who);
	else if (r->o->capture.alloc)
		p_err("no allocations: %s made no allocation the probes saw during the capture",
		      who);
	else if (r->o->capture.offcpu)
		p_err("no time off the CPU: %s never blocked and ran again during the capture "
		      "(threads off the CPU all the time are left out: --idle-threads keeps them)",
		      who);
	else if (r->o->capture.nusdt || r->o->capture.tracepoint)
		p_err("no hits: %s never reached the %s during the capture", who,
		      r->o->capture.nusdt ? "USDT probes" : "tracepoint");
	else if (r->o->capture.event && !r->o->capture.event->clock)
		p_err("no %s: %s made none during the capture", profile__meta(r->p)->event, who);
	else if (r->src.unit == UNIT_NANOSECONDS)
		p_err("no calls: %s never returned from a traced function during the capture (not "
		      "called, or still running: try a longer capture)",
		      who);
	else if (r->have_cmd && !r->o->capture.all)
		p_err("no samples: the command never ran on a CPU while sampled (it was too "
		      "short for %u Hz, or only slept)",
		      r->o->capture.freq);
	else if (r->o->capture.npids)
		p_err("no samples: the target processes never ran on a CPU during the capture "
		      "(idle, or they exited)");
	else
		p_err("no samples: nothing ran on a CPU while sampling (capture too short?)");
}

/* Whether the command was stopped with the capture: by flamebpf at its end,
 * or by the very signal that stopped flamebpf (Ctrl-C in a terminal signals
 * the whole group, and which of the two sees it first is a race that must
 * not decide the status). */
static bool command_stopped(const struct run *r)
{
	int st = r->cmd.status;

	return r->cmd_stopped || (WIFSIGNALED(st) && WTERMSIG(st) == stop_signal);
}

/* A signal once the capture stopped abandons the outputs not yet written. */
static int interrupted(const struct run *r, size_t i)
{
	if (nsignals == r->signals_at_stop)
		return 0;
	p_err("SIG%s while writing the output: '%s'%s not written", sigabbrev_np(stop_signal),
	      r->o->outputs[i], i + 1 < r->o->noutputs ? " and the outputs after it" : "");
	return -EINTR;
}

/* What output i writes: the profile, or one event's of several. */
static int profile_of(struct run *r, size_t i, const struct profile **p)
{
	int type = r->o->output_types[i];

	*p = r->top ? r->top : r->p;
	if (type < 0)
		return 0;
	if (!r->of_type[type] && !(r->of_type[type] = profile__of_type(*p, (uint32_t)type)))
		return -errno;
	*p = r->of_type[type];
	return 0;
}

static int write_one(struct run *r, size_t i)
{
	struct write_opts wo = { .root = r->o->root,
				 .flamechart = r->o->flamechart,
				 .heatmap_rows = r->o->heatmap_rows };
	const struct profile *p;
	int err = profile_of(r, i, &p);

	/* several -e: an event that never came has no graph to draw */
	if (!err && r->o->output_types[i] >= 0 && !profile__total_weight(p)) {
		p_err("no %s during the capture: '%s' not written", profile__meta(p)->event,
		      r->o->outputs[i]);
		output__abort(&r->out[i]);
		return 0;
	}
	if (!err)
		err = sink__write(r->o->formats[i], p, &wo, r->out[i].f);

	if (err == -ENODATA) {
		p_err("no %s times were kept for the %s output (all lost: see the summary)",
		      r->src.ops->what, sink__name(r->o->formats[i]));
		return -EIO;
	}
	if (err == -EIO && output__error(&r->out[i]))
		err = output__error(&r->out[i]);
	if (!err && (err = interrupted(r, i)))
		return err;
	if (!err)
		err = output__commit(&r->out[i]);
	if (err)
		p_err("cannot write '%s': %s", r->o->outputs[i], output__strerror(err));
	return err;
}

static int write_output(struct run *r)
{
	int err;

	r->p = profile__new(r->src.unit);
	if (!r->p)
		return -ENOMEM;
	err = r->src.ops->collect(r->src.impl, r->p);
	if (!err)
		err = describe(r, r->p, r->start, r->secs);
	if (err) {
		p_err("cannot read the %s from the kernel: %s", r->src.ops->what, strerror(-err));
		return err;
	}
	if (!profile__total_weight(r->p)) {
		explain_empty(r);
		return -ENODATA;
	}
	if (r->o->top &&
	    (err = report__keep_top(r->p, r->o->top, r->o->root == ROOT_TID, &r->top, &r->top_st)))
		return err;
	for (size_t i = 0; i < r->o->noutputs && !err; i++)
		err = interrupted(r, i) ?: write_one(r, i);
	return err;
}

/* -v: what the last push cost. */
static void say_pushed(const struct run *r)
{
	const struct push_stats *st = pusher__stats(r->pusher);

	p_err("pushed %" PRIu64 " bytes to %s: encoded in %.0f ms, sent in %.0f ms", st->last_bytes,
	      r->o->push.url, st->encode_ns / 1e6, st->send_ns / 1e6);
}

/* --continuous: each interval's profile to the backend, as a taker of
 * the interval loop; one that waits in the spool is not lost. */
static int push_interval(void *arg, const struct profile *p, const struct interval *iv)
{
	struct run *r = arg;
	int err = pusher__push(r->pusher, p, (uint64_t)iv->start * 1000000000ULL,
			       (uint64_t)((iv->start + iv->secs) * 1e9));

	if (!err && verbosity)
		say_pushed(r);
	return err == -EAGAIN ? 0 : err;
}

/* --push: before the capture, so that a bad token file costs nothing. */
static int open_pusher(struct run *r)
{
	char why[PUSH_ERR_LEN];
	int err;

	if (!r->o->push.url)
		return 0;
	err = pusher__new(&r->pusher, &r->o->push, why, sizeof(why));
	if (err) {
		p_err("%s", why);
		r->bad_input = err == -EINVAL;
		return err;
	}
	if (r->o->cont.on)
		err = continuous__add_taker(&r->cont,
					    &(struct interval_taker){ "push", push_interval, r });
	return err;
}

/* The profile to the backend; what could not go waits in the spool. With
 * --continuous the intervals went already: what waits is sent now. */
static int push(struct run *r)
{
	const struct profile *p = r->top ? r->top : r->p;
	int err;

	if (!r->pusher)
		return 0;
	if (r->o->cont.on)
		err = pusher__flush(r->pusher);
	else
		err = pusher__push(r->pusher, p, (uint64_t)(r->wall_start * 1e9),
				   (uint64_t)((r->wall_start + r->secs) * 1e9));
	if (!err && !r->o->cont.on && verbosity)
		say_pushed(r);
	if (err == -EAGAIN)
		p_err("push: %zu upload%s not sent, kept in '%s' for the next run with --spool "
		      "'%s'",
		      pusher__pending(r->pusher), pusher__pending(r->pusher) == 1 ? "" : "s",
		      pusher__spool_dir(r->pusher), pusher__spool_dir(r->pusher));
	return err;
}

/* --continuous at the stop: the last interval, partial, and how the run
 * went. */
static int finish_continuous(struct run *r)
{
	int err = end_interval(r, r->start + r->secs, true);

	if (r->cont.lost)
		p_err("%lu of %lu intervals lost (see above)", r->cont.lost,
		      r->cont.lost + r->cont.written + r->cont.idle);
	if (verbosity)
		p_err("%lu intervals written, %" PRIu64 " %s counted in all; %lu with nothing "
		      "sampled, no file written",
		      r->cont.written, r->src.ops->progress(r->src.impl), r->src.ops->what,
		      r->cont.idle);
	else if (r->cont.idle)
		p_err("%lu of %lu intervals had nothing sampled: no file written for them",
		      r->cont.idle, r->cont.lost + r->cont.written + r->cont.idle);
	return err ?: r->cont.lost ? -EIO : 0;
}

static void summarize(struct run *r)
{
	if (r->have_cmd && r->cmd.reaped)
		report__command_status(r->cmd.status, command_stopped(r));
	if (!r->o->cont.on)
		r->src.ops->summary(r->src.impl, r->p, r->secs);
	if (r->top)
		report__top_share(&r->top_st, r->o->root == ROOT_TID, r->p);
	if (verbosity)
		p_err("stopped: %s", r->why_stopped);
}

static void cleanup(struct run *r)
{
	if (r->have_cmd && !r->cmd.reaped) {
		if (r->cmd.go_fd >= 0)
			command__abort(&r->cmd);
		else
			command__stop(&r->cmd);
	}
	for (size_t i = 0; i < r->o->noutputs; i++)
		output__abort(&r->out[i]);
	if (r->src.ops)
		r->src.ops->free(r->src.impl);
	pusher__free(r->pusher);
	profile__free(r->p);
	profile__free(r->top);
	for (size_t t = 0; t < PROFILE_MAX_TYPES; t++)
		profile__free(r->of_type[t]);
	continuous__free(&r->cont);
	for (size_t i = 0; r->pidfds && i < r->o->capture.npids; i++)
		if (r->pidfds[i] >= 0)
			close(r->pidfds[i]);
	free(r->pidfds);
}

/* The exit status a shell gives for the command (128 + N when signal N
 * killed it) when it failed on its own, else -1: it exited 0, it never
 * ran, or it was stopped with the capture (command_stopped). */
static int command_failure(const struct run *r)
{
	int st = r->cmd.status;

	if (!r->cmd_ran || !r->cmd.reaped || command_stopped(r))
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st) ? WEXITSTATUS(st) : -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

/* A usage error first; then a command that failed on its own, whatever
 * else did (CI wraps its tests in flamebpf); then flamebpf's own result. */
static int exit_status(const struct run *r, int err)
{
	int failed = command_failure(r);

	if ((r->exec_failed && err == -ENOENT) || r->bad_input)
		return EXIT_USAGE;
	if (failed >= 0)
		return failed;
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The host's name, for {host} in --continuous's file names. */
static const char *host_name(void)
{
	static struct utsname u;

	return uname(&u) ? "localhost" : u.nodename;
}

static int run(const struct options *o, int argc, char **argv)
{
	struct run r = { .o = o, .argc = argc, .argv = argv, .cmd = { .go_fd = -1, .err_fd = -1 } };
	int err;

	/* before any file exists: a signal must not kill a run that made one */
	hup_ends_interval = o->cont.on;
	install_signals();
	/* a long run reads and frees big tables again and again: given their
	 * own mappings, each goes back to the system when freed, not into the
	 * heap between live allocations (glibc's threshold otherwise rises to
	 * the size of the last one freed). Beside other programs' builds and
	 * tests, an interval's peak went from 71 to 52 MiB. */
	if (o->cont.on)
		mallopt(M_MMAP_THRESHOLD, CONT_MMAP_THRESHOLD);
	if (o->cont.on && continuous__init(&r.cont, o, host_name(), verbosity)) {
		cleanup(&r);
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < o->noutputs && !o->cont.on; i++) {
		err = output__open(&r.out[i], o->outputs[i]);
		if (err) {
			p_err("cannot write '%s': %s", o->outputs[i], output__strerror(err));
			cleanup(&r);
			return EXIT_FAILURE;
		}
	}
	err = open_pusher(&r) ?: start(&r);
	if (!err)
		err = capture(&r);
	if (!err)
		err = o->cont.on ? finish_continuous(&r) : write_output(&r);
	if (!err || err == -ENODATA || (o->cont.on && err == -EIO))
		summarize(&r);
	if (!err)
		err = push(&r);
	cleanup(&r);
	return exit_status(&r, err);
}

static int list_funcs(const struct options *o)
{
	int err = usdt_list__is(o->capture.list) ? usdt_list__print(&o->capture, o->capture.list)
						 : source_trace__list(&o->capture);

	if (err == -EINVAL)
		return EXIT_USAGE;
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	char err[OPTIONS_ERR_LEN];
	struct options o;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "render"))
		return render__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff__main(argc - 1, argv + 1);
	if (options__parse(argc, argv, &o, err)) {
		p_err("%s", err);
		options__free(&o);
		return EXIT_USAGE;
	}
	verbosity = o.verbose;
	libbpf_set_print(libbpf_log);
	if (o.help)
		options__usage(stdout);
	else if (o.version)
		printf("flamebpf %s\n", FLAMEBPF_VERSION);
	if (o.help || o.version) {
		options__free(&o);
		return EXIT_SUCCESS;
	}
	threads_to_processes(&o);
	if (check_usage(&o))
		ret = EXIT_USAGE;
	else if (o.capture.list)
		ret = list_funcs(&o);
	else
		ret = run(&o, argc, argv);
	options__free(&o);
	return ret;
}
