// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"
#include "push_opt.h"
#include "util/name_pattern.h"
#include "span_opt.h"
#include "weight.h"

#define MAX_FREQ     1000000
#define MAX_DURATION (365.0 * 24 * 3600)

enum {
	OPT_FORMAT = 0x100,
	OPT_PIDS,
	OPT_TIDS,
	OPT_FLAMECHART,
	OPT_FULL_STACK,
	OPT_NO_DEMANGLE,
	OPT_UNWIND,
	OPT_INLINE,
	OPT_FILE_LINE,
	OPT_MAX_CALLS,
	OPT_OFF_CPU,
	OPT_MIN_BLOCK,
	OPT_WALL,
	OPT_STATE_ROOT,
	OPT_WAKERS,
	OPT_KTHREADS,
	OPT_MAX_BLOCK,
	OPT_IDLE_THREADS,
	OPT_TOP,
	OPT_HEATMAP,
	OPT_HEATMAP_ROWS,
	OPT_CPU_SPLIT,
	OPT_WEIGHT,
	OPT_ALLOC,
	OPT_ALLOC_SAMPLE,
	OPT_SHOW,
	OPT_SPAN,
	OPT_CONTINUOUS,
	OPT_INTERVAL,
	OPT_KEEP,
	OPT_KEEP_SIZE,
	OPT_PUSH, /* then the others of push_opt.h, in their order */
	OPT_PUSH_LAST = OPT_PUSH + PUSH_OPT_SPOOL_SIZE,
};

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "sample", required_argument, NULL, 'F' },
	{ "event", required_argument, NULL, 'e' },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "show", required_argument, NULL, OPT_SHOW },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "push", required_argument, NULL, OPT_PUSH + PUSH_OPT_URL },
	{ "app", required_argument, NULL, OPT_PUSH + PUSH_OPT_APP },
	{ "label", required_argument, NULL, OPT_PUSH + PUSH_OPT_LABEL },
	{ "push-ca", required_argument, NULL, OPT_PUSH + PUSH_OPT_CA },
	{ "push-token-file", required_argument, NULL, OPT_PUSH + PUSH_OPT_TOKEN_FILE },
	{ "spool", required_argument, NULL, OPT_PUSH + PUSH_OPT_SPOOL },
	{ "spool-size", required_argument, NULL, OPT_PUSH + PUSH_OPT_SPOOL_SIZE },
	{ "count", required_argument, NULL, 'c' },
	{ "func", required_argument, NULL, 'f' },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "alloc", optional_argument, NULL, OPT_ALLOC },
	{ "alloc-sample", required_argument, NULL, OPT_ALLOC_SAMPLE },
	{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "state-root", no_argument, NULL, OPT_STATE_ROOT },
	{ "wakers", no_argument, NULL, OPT_WAKERS },
	{ "kernel-threads", no_argument, NULL, OPT_KTHREADS },
	{ "max-block", required_argument, NULL, OPT_MAX_BLOCK },
	{ "idle-threads", no_argument, NULL, OPT_IDLE_THREADS },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "heatmap", no_argument, NULL, OPT_HEATMAP },
	{ "heatmap-rows", required_argument, NULL, OPT_HEATMAP_ROWS },
	{ "cpu-split", no_argument, NULL, OPT_CPU_SPLIT },
	{ "list", required_argument, NULL, 'l' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "pids", no_argument, NULL, OPT_PIDS },
	{ "tids", no_argument, NULL, OPT_TIDS },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "full-stack", no_argument, NULL, OPT_FULL_STACK },
	{ "max-calls", required_argument, NULL, OPT_MAX_CALLS },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "unwind", required_argument, NULL, OPT_UNWIND },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "file-line", no_argument, NULL, OPT_FILE_LINE },
	{ "continuous", no_argument, NULL, OPT_CONTINUOUS },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "keep-size", required_argument, NULL, OPT_KEEP_SIZE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{},
};

int options__parse_bytes(const char *s, uint64_t *bytes)
{
	return options__parse_bytes_max(s, OPTIONS_MAX_ALLOC_SAMPLE, bytes);
}

int options__parse_bytes_max(const char *s, uint64_t max, uint64_t *bytes)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = { { "", 1 },
		      { "k", 1024 },
		      { "K", 1024 },
		      { "KiB", 1024 },
		      { "m", 1024 * 1024 },
		      { "M", 1024 * 1024 },
		      { "MiB", 1024 * 1024 },
		      { "g", 1024 * 1024 * 1024 },
		      { "G", 1024 * 1024 * 1024 },
		      { "GiB", 1024 * 1024 * 1024 } };
	unsigned long long n;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || !n)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (n > max / units[i].mult)
			return -EINVAL;
		*bytes = n * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

void options__usage(FILE *f)
{
	fputs("usage: flamebpf --sample FREQ [OPTIONS] [-- COMMAND [ARG...]]\n"
	      "\n"
	      "       flamebpf --off-cpu [OPTIONS] [-- COMMAND [ARG...]]\n"
	      "       flamebpf --alloc[=live] [OPTIONS] {-p PID | -- COMMAND [ARG...]}\n"
	      "       flamebpf -f [BINARY:]REGEX [OPTIONS] [-- COMMAND [ARG...]]\n"
	      "       flamebpf -l [BINARY:]REGEX [-p PID | -- COMMAND]\n"
	      "       flamebpf render [OPTIONS] INPUT   (see flamebpf render --help)\n"
	      "       flamebpf diff [OPTIONS] BASE NEW  (see flamebpf diff --help)\n"
	      "\n"
	      "Flame graphs with eBPF: samples user and kernel stacks on every CPU, or times\n"
	      "every call of chosen functions with uprobes, and writes folded stacks, an SVG\n"
	      "flame graph, Chrome trace JSON, perf script text, pprof or an HTML report.\n"
	      "\n"
	      "Target (none = system-wide):\n"
	      "  -p, --pid PID[,PID...]   only these processes (all their threads)\n"
	      "  -- COMMAND [ARG...]      run COMMAND with sampling on (its children too);\n"
	      "                           stop when it exits\n"
	      "  -a, --all-cpus           every process, as perf's -a; with a COMMAND\n"
	      "                           (-a -- sleep 10), every process while it runs\n"
	      "  -d, --duration SECONDS   stop after this long (fractions allowed); otherwise\n"
	      "                           at Ctrl-C, SIGTERM, SIGHUP or when the targets exit\n"
	      "\n"
	      "Mode:\n"
	      "  -F, --sample FREQ        sample every CPU at FREQ: 99, 99hz, 1khz, 4999hz\n"
	      "  -e, --event EVENT        sample on a perf event instead of cpu-clock:\n"
	      "                           page-faults, major-faults, minor-faults,\n"
	      "                           context-switches, cpu-migrations, ... (counts of\n"
	      "                           them, not time), task-clock; cycles, instructions,\n"
	      "                           ... where the machine has a PMU\n"
	      "                           or tracepoint:CATEGORY:NAME (t:...): stacks\n"
	      "                           counted at each hit (tracepoint:syscalls:\n"
	      "                           sys_enter_write, t:sched:sched_process_exec)\n"
	      "                           Repeatable for counted events (-e page-faults -e\n"
	      "                           context-switches): each its own pprof sample type,\n"
	      "                           and OUT.EVENT.EXT a file per event in other formats\n"
	      "      --show EVENT         (several -e) the other formats draw EVENT alone,\n"
	      "                           to the file -o names\n"
	      "  -c, --count N            (-e) a sample every N events (default 1); or -F\n"
	      "                           FREQ, each sample weighing its own period\n"
	      "      --weight W           (-e tracepoint:...) hits weigh a value: a system\n"
	      "                           call's argument (sys_enter_*) by its name where\n"
	      "                           tracefs is mounted, or arg0 to arg5; ret\n"
	      "                           (sys_exit_*); any other tracepoint's numeric\n"
	      "                           field, named as tracefs's format file names it\n"
	      "                           (t:block:block_rq_issue --weight bytes; needs\n"
	      "                           tracefs mounted)\n"
	      "  -f, --func [BINARY:]REGEX\n"
	      "                           trace every call of the functions whose name\n"
	      "                           matches REGEX (POSIX extended, unanchored; C++ and\n"
	      "                           Rust names match demangled) in the target's program\n"
	      "                           and libraries, or in BINARY (a path, or a library\n"
	      "                           name: libc, libc.so.6); repeatable. Folded counts\n"
	      "                           are self wall time in ns. System-wide needs BINARY\n"
	      "      --span NAME=BEGIN,END\n"
	      "                           a span from a pair of USDT probes, each\n"
	      "                           usdt:BINARY:PROVIDER:NAME, BEGIN's argument as its\n"
	      "                           label: BEGIN(arg0) a string, BEGIN(arg0:int) a\n"
	      "                           number; repeatable. With -F, --off-cpu, --wall\n"
	      "                           every sample (block) sits under its thread's\n"
	      "                           open spans ([NAME LABEL]);\n"
	      "                           alone, the spans' own time (ns), nested\n"
	      "      --alloc[=live]       memory: bytes allocated by user stack (malloc,\n"
	      "                           calloc, realloc, aligned_alloc, posix_memalign,\n"
	      "                           memalign, valloc, pvalloc, operator new, anonymous\n"
	      "                           mmap), or with =live the bytes still live at the\n"
	      "                           end by the stack that allocated them; needs -p or\n"
	      "                           a COMMAND\n"
	      "      --alloc-sample BYTES (--alloc) record one allocation in about every\n"
	      "                           BYTES bytes (512k, 1m), weighed so that totals\n"
	      "                           stay right: fewer calls pay for the stack walk\n"
	      "      --off-cpu            time threads spent off the CPU (ns), by the stack\n"
	      "                           where they blocked; the leaf says why: [sleeping],\n"
	      "                           [disk], [preempted] or [stopped]\n"
	      "      --wall               (with -F) on-CPU samples, each worth its period,\n"
	      "                           and off-CPU time in one graph, in ns\n"
	      "      --state-root         (--off-cpu, --wall, --cpu-split) the state frame\n"
	      "                           right under the root ([running] for samples or\n"
	      "                           time on the CPU), not at the leaf\n"
	      "      --wakers             (--off-cpu, --wall) after each blocked stack, a\n"
	      "                           \"--\" frame and the stack of what woke it\n"
	      "      --kernel-threads     (--off-cpu) kernel threads' waits too: left out\n"
	      "                           otherwise, and said how much\n"
	      "      --idle-threads       (--off-cpu) threads off the CPU for the whole\n"
	      "                           capture too: left out otherwise, and said how much\n"
	      "      --min-block T, --max-block T\n"
	      "                           (--off-cpu) only blocks at least / at most T\n"
	      "                           long: 500us, 1ms, 2s\n"
	      "      --cpu-split          (-f) each call's time on and off the CPU: folded\n"
	      "                           self time split into [running], [sleeping],\n"
	      "                           [disk], [preempted], [stopped] leaf frames; chrome\n"
	      "                           args on_cpu_ns, off_cpu_ns and ns by state. Hooks\n"
	      "                           every context switch while it runs\n"
	      "  -l, --list [BINARY:]REGEX\n"
	      "                           print the functions -f would trace and exit;\n"
	      "                           usdt:[BINARY][:REGEX] the USDT probes (sys/sdt.h)\n"
	      "                           of BINARY, or of the target's binaries, which\n"
	      "                           -f usdt:... counts by stack at each hit\n"
	      "\n"
	      "Output:\n"
	      "  -o, --output FILE        write to FILE (default: standard output);\n"
	      "                           repeatable: one capture, several formats\n"
	      "      --format FORMAT      folded, chrome, perf, svg, pprof or html; otherwise\n"
	      "                           from FILE's extension: .folded .txt .json .perf\n"
	      "                           .script .svg .pb.gz .pprof .html .htm (folded when\n"
	      "                           none of these); html: one page, no network, with\n"
	      "                           the heatmap of time and the flame graph of a range\n"
	      "      --pids, --tids       root frame COMM-PID or COMM-PID/TID instead of COMM\n"
	      "      --top N              only the N processes (threads with --tids) with the\n"
	      "                           most samples or time; the summary says their share\n"
	      "      --heatmap            SVG outputs are the subsecond-offset heatmap of the\n"
	      "                           capture: a column a second, rows of 20 ms\n"
	      "      --heatmap-rows N     ... with N rows a second (1 to 1000)\n"
	      "  -U, -K                   user frames only / kernel frames only\n"
	      "  -g                       (accepted for perf's sake: stacks are always taken)\n"
	      "      --full-stack         (-f) each traced call under its real user call stack\n"
	      "      --max-calls N        (-f) timeline outputs keep the first N calls\n"
	      "                           (default 1000000; 40 bytes each, 72 for chrome,\n"
	      "                           64 more with --cpu-split);\n"
	      "                           the rest are counted as lost\n"
	      "      --flamechart         folded lines (or the svg) in time order, thread by\n"
	      "                           thread: one per stretch of a call's self time, or\n"
	      "                           per run of identical samples; not merged\n"
	      "      --no-demangle        C++ and Rust names as the symbol table has them\n"
	      "      --unwind MODE        user stacks by: auto (default: each binary's unwind\n"
	      "                           tables, frame pointers where it has none), dwarf\n"
	      "                           (tables only) or fp (frame pointers only)\n"
	      "      --inline             functions inlined at an address as frames of\n"
	      "                           their own (from DWARF: binaries built with -g,\n"
	      "                           or their debug files)\n"
	      "      --file-line          \" (FILE:LINE)\" after user function names (DWARF)\n"
	      "\n"
	      "Continuous profiling (-F, system-wide, -p or COMMAND):\n"
	      "      --continuous         run until stopped, a complete file per interval;\n"
	      "                           -o PATTERN takes strftime fields of the\n"
	      "                           interval's start (one of seconds: %S, %s, %T)\n"
	      "                           and {host}; SIGHUP ends an interval early\n"
	      "      --interval T         the interval: 60s (default), 1m, 1h, 90 (seconds);\n"
	      "                           1 s at least\n"
	      "      --keep N             keep the newest N files the pattern names\n"
	      "      --keep-size SIZE     ... or at most SIZE bytes of them: 500M, 2G\n"
	      "  -v, --verbose            more detail on stderr (-vv: libbpf's log too);\n"
	      "                           with --continuous, a line per interval\n"
	      "\n"
	      "Push (to a profiling backend):\n"
	      "      --push URL           send the profile to Grafana Pyroscope\n"
	      "                           (http[s]://HOST:PORT, /ingest, pprof) or an OTLP\n"
	      "                           collector (otlp+http[s]://HOST:PORT, profiles\n"
	      "                           v1development of opentelemetry-proto v1.9.0)\n"
	      "      --app NAME           Pyroscope's application name (default flamebpf)\n"
	      "      --label KEY=VALUE    a label of every pushed profile (repeatable)\n"
	      "      --push-ca FILE       CA certificates for https (default: the system's)\n"
	      "      --push-token-file F  send 'Authorization: Bearer' F's first line\n"
	      "      --spool DIR          keep what the backend could not take here, sent\n"
	      "                           again oldest first (default: a temporary one)\n"
	      "      --spool-size SIZE    at most SIZE bytes, the oldest dropped (256M)\n"
	      "\n"
	      "  -h, --help               this help;  -V, --version  the version\n"
	      "\n"
	      "Exit status: 0 success, 1 runtime failure, 2 bad usage; with a COMMAND\n"
	      "that failed, its status (128 + N when killed by signal N).\n",
	      f);
}

int options__parse_time_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (v * units[i].ns >= 1e18 || v * units[i].ns < 1)
			return -EINVAL;
		*ns = (uint64_t)(v * units[i].ns + 0.5);
		return 0;
	}
	return -EINVAL;
}

int options__parse_freq(const char *s, unsigned int *hz)
{
	unsigned long long v;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > MAX_FREQ)
		return -EINVAL;
	if (!strcasecmp(end, "khz") || !strcasecmp(end, "k"))
		v *= 1000;
	else if (*end && strcasecmp(end, "hz"))
		return -EINVAL;
	if (v == 0 || v > MAX_FREQ)
		return -EINVAL;
	*hz = v;
	return 0;
}

static int parse_unwind(const char *s, enum unwind_mode *mode)
{
	static const char *const names[] = {
		[UNWIND_MODE_FP] = "fp", [UNWIND_MODE_DWARF] = "dwarf", [UNWIND_MODE_AUTO] = "auto"
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*mode = i;
			return 0;
		}
	}
	return -EINVAL;
}

int options__parse_duration(const char *s, double *secs)
{
	char *end;
	double v;

	/* plain decimals only: strtod would also take " 1", "0x10" and "1e3" */
	if (!*s || strspn(s, "0123456789.") != strlen(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > MAX_DURATION)
		return -EINVAL;
	*secs = v;
	return 0;
}

int options__parse_count(const char *s, size_t max, size_t *n)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -EINVAL;
	*n = v;
	return 0;
}

int options__parse_pids(const char *s, pid_t **pids, size_t *n)
{
	const char *p = s;

	do {
		char *end;
		long v;
		pid_t *grown;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v <= 0 || v > 0x7fffffff || (*end && *end != ','))
			return -EINVAL;
		grown = realloc(*pids, (*n + 1) * sizeof(**pids));
		if (!grown)
			return -ENOMEM;
		*pids = grown;
		(*pids)[(*n)++] = v;
		p = *end ? end + 1 : end;
	} while (*p);
	return p[-1] == ',' ? -EINVAL : 0;
}

#define usage_err(...) (snprintf(err, OPTIONS_ERR_LEN, __VA_ARGS__), -EINVAL)

/* --interval: seconds, or a time with its unit (ms, s, m, h). */
static int parse_interval(const char *s, double *secs)
{
	size_t len = strlen(s);
	uint64_t ns;

	if (!options__parse_duration(s, secs))
		return 0;
	if (len > 1 && (s[len - 1] == 'm' || s[len - 1] == 'h') && s[len - 2] != 'm') {
		char *num = strndup(s, len - 1);
		int err = num ? options__parse_duration(num, secs) : -ENOMEM;

		free(num);
		*secs *= s[len - 1] == 'm' ? 60 : 3600;
		return err;
	}
	if (options__parse_time_ns(s, &ns))
		return -EINVAL;
	*secs = ns / 1e9;
	return 0;
}

int options__heatmap(const char *arg, unsigned int *rows, char *err)
{
	size_t n;

	if (!arg) {
		if (!*rows)
			*rows = OPTIONS_HEATMAP_ROWS;
		return 0;
	}
	if (options__parse_count(arg, 1000, &n))
		return usage_err("invalid --heatmap-rows '%s' (rows a second, 1 to 1000)", arg);
	*rows = n;
	return 0;
}

int options__top(const char *arg, size_t *top, char *err)
{
	if (options__parse_count(arg, OPTIONS_MAX_TOP, top))
		return usage_err("invalid --top '%s' (a count of processes, 1 to %d)", arg,
				 OPTIONS_MAX_TOP);
	return 0;
}

static int parse_tracepoint(const char *arg, struct source_opts *c, char *err)
{
	int ret = tracepoint_spec__parse(arg, &c->tp);

	if (ret == -ENOENT)
		return usage_err("'%s': this architecture has no such system call", arg);
	if (ret)
		return usage_err(
			"invalid tracepoint '%s' (tracepoint:CATEGORY:NAME, as "
			"tracepoint:syscalls:sys_enter_write or t:sched:sched_process_exec)",
			arg);
	c->tracepoint = true;
	return 0;
}

static int unknown_event(const char *name, char *err)
{
	struct strbuf b = {};
	int ret;

	if (strchr(name, ':'))
		ret = usage_err("event '%s': perf's software and hardware events and "
				"tracepoint:CATEGORY:NAME are sampled on, not modifiers nor PMUs",
				name);
	else if (perf_events__names(PERF_TYPE_SOFTWARE, &b))
		ret = usage_err("out of memory");
	else
		ret = usage_err("unknown event '%s' (software events: %s; hardware events "
				"where the machine has a PMU: cycles, instructions, ...)",
				name, b.s);
	strbuf__free(&b);
	return ret;
}

/* -e, repeatable: perf events side by side, or one tracepoint alone. */
static int add_event(struct source_opts *c, const char *arg, char *err)
{
	const struct perf_event_desc *ev;

	if (c->tracepoint || (c->nevents && tracepoint_spec__is(arg)))
		return usage_err("-e %s counts its hits alone: not with -e %s",
				 c->tracepoint ? c->tp.spec : arg,
				 c->tracepoint ? arg : c->events[0]->name);
	if (tracepoint_spec__is(arg))
		return parse_tracepoint(arg, c, err);
	ev = perf_events__find(arg);
	if (!ev)
		return unknown_event(arg, err);
	for (size_t i = 0; i < c->nevents; i++)
		if (c->events[i] == ev)
			return usage_err("-e %s given twice", ev->name);
	if (c->nevents == PROFILE_MAX_TYPES)
		return usage_err("more than %d -e events", PROFILE_MAX_TYPES);
	c->events[c->nevents++] = ev;
	c->event = c->events[0];
	return 0;
}

static int parse_one(int c, const char *arg, struct options *o, bool *format_set, char *err)
{
	if (c >= OPT_PUSH && c <= OPT_PUSH_LAST)
		return push_opt__parse((enum push_opt)(c - OPT_PUSH), arg, &o->push, err);
	switch (c) {
	case 'p':
		if (options__parse_pids(arg, &o->capture.pids, &o->capture.npids))
			return usage_err("invalid pid list '%s'", arg);
		return 0;
	case 'd':
		if (options__parse_duration(arg, &o->capture.duration))
			return usage_err("invalid duration '%s' (seconds, > 0)", arg);
		return 0;
	case 'F':
		if (options__parse_freq(arg, &o->capture.freq))
			return usage_err(
				"invalid frequency '%s' (e.g. 99, 99hz, 1khz; 1 Hz to 1 MHz)", arg);
		return 0;
	case 'e':
		return add_event(&o->capture, arg, err);
	case OPT_SHOW:
		o->show = arg;
		return 0;
	case OPT_SPAN:
		return span_opt__parse(&o->capture, arg, err);
	case OPT_WEIGHT:
		o->weight_arg = arg;
		return 0;
	case 'c': {
		size_t n;

		if (options__parse_count(arg, OPTIONS_MAX_PERIOD, &n))
			return usage_err("invalid -c '%s' (events a sample, 1 to %d)", arg,
					 OPTIONS_MAX_PERIOD);
		o->capture.period = n;
		return 0;
	}
	case 'f': {
		const char **v = realloc(o->capture.funcs, (o->capture.nfuncs + 1) * sizeof(*v));

		if (!v)
			return usage_err("out of memory");
		o->capture.funcs = v;
		o->capture.funcs[o->capture.nfuncs++] = arg;
		return 0;
	}
	case 'l':
		o->capture.list = arg;
		return 0;
	case 'o':
		if (o->noutputs == OPTIONS_MAX_OUTPUTS)
			return usage_err("more than %d -o outputs", OPTIONS_MAX_OUTPUTS);
		o->outputs[o->noutputs++] = arg;
		return 0;
	case OPT_FORMAT:
		if (sink__parse(arg, &o->format))
			return usage_err(
				"unknown format '%s' (folded, chrome, perf, svg, pprof, html)",
				arg);
		*format_set = true;
		return 0;
	case OPT_PIDS:
		o->root = ROOT_PID;
		return 0;
	case OPT_TIDS:
		o->root = ROOT_TID;
		return 0;
	case OPT_HEATMAP:
		return options__heatmap(NULL, &o->heatmap_rows, err);
	case OPT_HEATMAP_ROWS:
		return options__heatmap(arg, &o->heatmap_rows, err);
	case OPT_TOP:
		return options__top(arg, &o->top, err);
	case 'a':
		o->capture.all = true;
		return 0;
	case OPT_OFF_CPU:
		o->capture.offcpu = true;
		return 0;
	case OPT_ALLOC:
		if (!arg || !strcmp(arg, "total"))
			o->capture.alloc = PROFILE_ALLOC_TOTAL;
		else if (!strcmp(arg, "live"))
			o->capture.alloc = PROFILE_ALLOC_LIVE;
		else
			return usage_err("unknown --alloc view '%s' (--alloc: bytes allocated, "
					 "--alloc=live: bytes still live at the end)",
					 arg);
		return 0;
	case OPT_WALL:
		o->capture.offcpu = o->wall = true;
		return 0;
	case OPT_STATE_ROOT:
		o->capture.state_root = true;
		return 0;
	case OPT_WAKERS:
		o->capture.offcpu = o->capture.wakers = true;
		return 0;
	case OPT_KTHREADS:
		o->capture.kthreads = true;
		return 0;
	case OPT_IDLE_THREADS:
		o->capture.idle_threads = true;
		return 0;
	case OPT_CPU_SPLIT:
		o->capture.cpu_split = true;
		return 0;
	case OPT_MIN_BLOCK:
	case OPT_MAX_BLOCK:
		if (options__parse_time_ns(arg, c == OPT_MIN_BLOCK ? &o->capture.min_block_ns
								   : &o->capture.max_block_ns))
			return usage_err("invalid time '%s' for --%s-block (a number and its unit: "
					 "500us, 1ms, 2s)",
					 arg, c == OPT_MIN_BLOCK ? "min" : "max");
		return 0;
	case OPT_ALLOC_SAMPLE:
		if (options__parse_bytes(arg, &o->capture.alloc_sample))
			return usage_err("invalid --alloc-sample '%s' (bytes: 524288, 512k, 1m; 1 "
					 "byte to 1 GiB)",
					 arg);
		return 0;
	case 'g':
		return 0;
	case 'U':
		o->capture.user_only = true;
		return 0;
	case 'K':
		o->capture.kernel_only = true;
		return 0;
	case OPT_FLAMECHART:
		o->flamechart = true;
		return 0;
	case OPT_FULL_STACK:
		o->capture.full_stack = true;
		return 0;
	case OPT_MAX_CALLS:
		if (options__parse_count(arg, OPTIONS_MAX_CALLS, &o->capture.max_calls))
			return usage_err("invalid --max-calls '%s' (a count of calls, 1 to %d)",
					 arg, OPTIONS_MAX_CALLS);
		return 0;
	case OPT_NO_DEMANGLE:
		o->capture.no_demangle = true;
		return 0;
	case OPT_INLINE:
		o->capture.inline_frames = true;
		return 0;
	case OPT_FILE_LINE:
		o->capture.file_line = true;
		return 0;
	case OPT_UNWIND:
		if (parse_unwind(arg, &o->capture.unwind))
			return usage_err("unknown --unwind mode '%s' (auto, dwarf, fp)", arg);
		return 0;
	case OPT_CONTINUOUS:
		o->cont.on = true;
		return 0;
	case OPT_INTERVAL:
		if (parse_interval(arg, &o->cont.interval))
			return usage_err("invalid --interval '%s' (60s, 1m, 1h; seconds without "
					 "a unit)",
					 arg);
		return 0;
	case OPT_KEEP:
		if (options__parse_count(arg, SIZE_MAX, &o->cont.keep))
			return usage_err("invalid --keep '%s' (a count of files, 1 or more)", arg);
		return 0;
	case OPT_KEEP_SIZE:
		if (options__parse_bytes_max(arg, OPTIONS_MAX_KEEP_SIZE, &o->cont.keep_size))
			return usage_err("invalid --keep-size '%s' (bytes: 500M, 2G, 1048576)",
					 arg);
		return 0;
	case 'v':
		o->verbose++;
		return 0;
	case 'h':
		o->help = true;
		return 0;
	case 'V':
		o->version = true;
		return 0;
	}
	return usage_err("unknown option (see --help)");
}

/* Each -o takes its format from its extension, unless --format names the
 * one format of the one output. */
static int check_outputs(struct options *o, bool format_set, char *err)
{
	struct write_opts wo = { .flamechart = o->flamechart, .heatmap_rows = o->heatmap_rows };
	size_t stdouts = 0, svgs = 0;

	/* --push alone writes nothing: the profile goes to the backend */
	if (!o->noutputs && !o->push.url)
		o->outputs[o->noutputs++] = "-";
	if (format_set && o->noutputs > 1)
		return usage_err("--format is for one output; with several -o, each file's "
				 "extension gives its format");
	for (size_t i = 0; i < o->noutputs; i++) {
		o->formats[i] = format_set ? o->format : sink__from_path(o->outputs[i]);
		o->capture.timeline |= sink__needs_events(o->formats[i], &wo);
		/* chrome JSON shows each call's arguments */
		o->capture.want_args |=
			o->formats[i] == FORMAT_CHROME || o->formats[i] == FORMAT_HTML;
		stdouts += !strcmp(o->outputs[i], "-");
		svgs += o->formats[i] == FORMAT_SVG;
	}
	if (o->heatmap_rows && !svgs)
		return usage_err("--heatmap draws an SVG: give -o FILE.svg");
	if (stdouts > 1)
		return usage_err("standard output ('-') can take one output only");
	o->output = o->outputs[0];
	o->format = o->formats[0];
	return 0;
}

/* --span: samples (-F, --off-cpu, --wall) grouped under spans, or the
 * spans' own time. */
static int check_spans(const struct options *o, char *err)
{
	const struct source_opts *c = &o->capture;

	if (!c->nspans)
		return 0;
	if (c->nfuncs || c->nusdt || c->event || c->tracepoint)
		return usage_err("--span groups the samples of -F, --off-cpu or --wall under "
				 "spans, or times the spans alone: not with %s",
				 c->nfuncs || c->nusdt ? "-f" : "-e");
	return 0;
}

/* --show's event: its index in c->events, or -1 when it is none of them. */
static int shown_event(const struct source_opts *c, const char *name)
{
	const struct perf_event_desc *ev = perf_events__find(name);

	for (size_t i = 0; ev && i < c->nevents; i++)
		if (c->events[i] == ev)
			return (int)i;
	return -1;
}

/* "out.svg" for the event page-faults: "out.page-faults.svg". */
static char *event_path(const char *path, const char *event)
{
	const char *base = strrchr(path, '/'), *dot = strrchr(base ? base : path, '.');
	size_t at = dot && dot != (base ? base + 1 : path) ? (size_t)(dot - path) : strlen(path);
	char *out = malloc(strlen(path) + strlen(event) + 2);

	if (out)
		sprintf(out, "%.*s.%s%s", (int)at, path, event, path + at);
	return out;
}

/* Several -e: pprof takes every event (a sample type each); the other
 * formats draw one, so each of their outputs becomes a file per event,
 * or writes the one --show names. */
static int split_outputs(struct options *o, char *err)
{
	const struct source_opts *c = &o->capture;
	int show = o->show ? shown_event(c, o->show) : -1;
	size_t n = o->noutputs;

	if (o->show && c->nevents < 2)
		return usage_err("--show chooses one of several -e events to draw");
	if (o->show && show < 0)
		return usage_err("--show %s: not one of the -e events", o->show);
	for (size_t i = 0; i < n; i++) {
		o->output_types[i] = o->formats[i] == FORMAT_PPROF ? -1 : show;
		if (o->output_types[i] >= 0 || o->formats[i] == FORMAT_PPROF || c->nevents < 2)
			continue;
		if (!strcmp(o->outputs[i], "-"))
			return usage_err("several -e to standard output: --show EVENT chooses "
					 "the one drawn (or -o FILE: a file per event)");
		o->output_types[i] = 0;
		for (size_t e = 1; e < c->nevents; e++) {
			o->owned[o->noutputs] = event_path(o->outputs[i], c->events[e]->name);
			if (!o->owned[o->noutputs])
				return usage_err("out of memory");
			o->outputs[o->noutputs] = o->owned[o->noutputs];
			o->formats[o->noutputs] = o->formats[i];
			o->output_types[o->noutputs++] = (int)e;
		}
		o->owned[i] = event_path(o->outputs[i], c->events[0]->name);
		if (!o->owned[i])
			return usage_err("out of memory");
		o->outputs[i] = o->owned[i];
	}
	return 0;
}

/* -f usdt:...: probes counted as a tracepoint's hits are, by the sampler,
 * not functions timed: set apart from the functions. */
static int split_usdt(struct source_opts *c, char *err)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nfuncs; i++)
		n += !strncmp(c->funcs[i], "usdt:", 5);
	if (!n)
		return 0;
	if (n < c->nfuncs)
		return usage_err("-f usdt:... counts probe hits and -f FUNCTION times calls: not "
				 "both in one capture yet");
	c->usdt_specs = c->funcs;
	c->nusdt = c->nfuncs;
	c->funcs = NULL;
	c->nfuncs = 0;
	return 0;
}

/* -e: a clock is sampled at a frequency (99 Hz unless -F says), anything
 * else counted, a sample every -c N events (1 unless said). */
static int check_event(struct options *o, char *err)
{
	struct source_opts *c = &o->capture;

	c->weight = TP_WEIGHT_HITS;
	if (o->weight_arg && !c->tracepoint)
		return usage_err("--weight weighs the hits of a tracepoint: give -e "
				 "tracepoint:CATEGORY:NAME");
	c->weight_name = o->weight_arg;
	if (o->weight_arg && weight__parse(c, o->weight_arg, err))
		return -EINVAL;
	if (c->nusdt && (c->offcpu || c->freq || c->period || c->event || c->tracepoint))
		return usage_err("-f %s counts every hit of the probes: not with %s",
				 c->usdt_specs[0],
				 c->offcpu   ? "--off-cpu or --wall"
				 : c->freq   ? "-F"
				 : c->period ? "-c N"
					     : "-e");
	if (c->tracepoint && (c->offcpu || c->nfuncs || c->freq || c->period))
		return usage_err("-e %s counts every hit of the tracepoint: not with %s",
				 c->tp.spec,
				 c->nfuncs   ? "-f"
				 : c->offcpu ? "--off-cpu or --wall"
				 : c->freq   ? "-F"
					     : "-c N");
	if (c->period && c->freq)
		return usage_err("-c N and -F FREQ both say how often to sample: give one");
	if (c->period && (!c->event || c->event->clock))
		return usage_err("-c N samples every N events of a counted event (-e page-faults, "
				 "...): a clock is sampled at -F FREQ");
	if (!c->event)
		return 0;
	if (c->offcpu || c->nfuncs)
		return usage_err("-e is for sampling: not with %s",
				 c->nfuncs ? "-f" : "--off-cpu or --wall");
	for (size_t i = 0; c->nevents > 1 && i < c->nevents; i++)
		if (c->events[i]->clock)
			return usage_err("several -e count events side by side: %s is a clock, "
					 "sampled alone",
					 c->events[i]->name);
	if (c->event->clock && !c->freq)
		c->freq = OPTIONS_EVENT_FREQ;
	if (!c->event->clock && !c->period && !c->freq)
		c->period = 1;
	return 0;
}

/* --alloc: a mode of its own, for targets, aggregated. */
static int check_alloc(const struct options *o, char *err)
{
	const struct source_opts *c = &o->capture;

	if (c->alloc_sample && !c->alloc)
		return usage_err("--alloc-sample samples the allocations of --alloc");

	if (c->freq || c->event || c->tracepoint || c->nfuncs || c->offcpu || c->period ||
	    o->weight_arg || c->nspans)
		return usage_err("--alloc is a mode of its own: not with %s",
				 c->nspans		     ? "--span"
				 : c->nfuncs		     ? "-f"
				 : c->offcpu		     ? "--off-cpu or --wall"
				 : c->event || c->tracepoint ? "-e"
				 : c->period		     ? "-c N"
				 : o->weight_arg	     ? "--weight"
							     : "-F");
	if (!c->npids && !c->command)
		return usage_err("--alloc needs a target: -p PID or a COMMAND (probing every "
				 "process's malloc would slow the whole system)");
	if (c->all)
		return usage_err("--alloc needs a target: not -a");
	if (c->kernel_only)
		return usage_err("--alloc takes user stacks: not -K");
	if (c->full_stack || c->max_calls || c->cpu_split)
		return usage_err("--full-stack, --max-calls and --cpu-split are for uprobe mode "
				 "(-f)");
	return 0;
}

/* --continuous: plain sampling, into files named by time. */
static int check_continuous(struct options *o, char *err)
{
	const struct source_opts *c = &o->capture;
	const struct continuous_opts *k = &o->cont;
	char why[OPTIONS_ERR_LEN - 32];

	if (!k->on && (k->interval || k->keep || k->keep_size))
		return usage_err("%s is for --continuous", k->interval ? "--interval"
							   : k->keep   ? "--keep"
								       : "--keep-size");
	if (!k->on)
		return 0;
	if (k->interval && k->interval < 1)
		return usage_err("--interval %g s: 1 s at least", k->interval);
	o->cont.interval = k->interval ? k->interval : OPTIONS_INTERVAL;
	if (c->nfuncs || c->nusdt || c->alloc || c->offcpu || c->tracepoint || c->nspans ||
	    c->period || !c->freq || (c->event && !c->event->clock) || c->nevents > 1)
		return usage_err("--continuous is for sampling mode (-F FREQ): not with %s",
				 c->nfuncs || c->nusdt ? "-f"
				 : c->alloc	       ? "--alloc"
				 : c->offcpu	       ? "--off-cpu or --wall"
				 : c->nspans	       ? "--span"
						       : "-e or -c");
	for (size_t i = 0; i < o->noutputs; i++) {
		if (!strcmp(o->outputs[i], "-"))
			return usage_err(
				"--continuous writes a file per interval: give -o PATTERN, "
				"as -o /var/lib/flamebpf/%%Y%%m%%d-%%H%%M%%S.pb.gz");
		if (name_pattern__check(o->outputs[i], why, sizeof(why)))
			return usage_err("-o %s", why);
	}
	return 0;
}

static int check(struct options *o, bool format_set, char *err)
{
	const struct source_opts *c = &o->capture;

	if (o->help || o->version)
		return 0;
	if (check_outputs(o, format_set, err) || push_opt__check(&o->push, err))
		return -EINVAL;
	if (o->push.url && c->list)
		return usage_err("-l lists functions: it pushes nothing");
	if (c->list)
		return c->freq || c->event || c->tracepoint || c->nfuncs || c->offcpu || c->alloc
			       ? usage_err("-l lists functions: it takes no mode")
			       : 0;
	if (split_usdt(&o->capture, err))
		return -EINVAL;
	if (c->alloc || c->alloc_sample)
		return check_alloc(o, err);
	if (check_event(o, err) || split_outputs(o, err) || check_spans(o, err) ||
	    check_continuous(o, err))
		return -EINVAL;
	if (!c->freq && !c->event && !c->tracepoint && !c->nusdt && !c->nfuncs && !c->offcpu &&
	    !c->nspans && c->command)
		return usage_err(
			"no mode given: use --sample FREQ, -e EVENT, --off-cpu, --alloc or "
			"-f REGEX before the COMMAND '%s' (see --help)",
			c->command[0]);
	if (!c->freq && !c->event && !c->tracepoint && !c->nusdt && !c->nfuncs && !c->offcpu &&
	    !c->nspans)
		return usage_err(
			"no mode given: use --sample FREQ, -e EVENT, --off-cpu, --alloc or "
			"-f REGEX (see --help)");
	if (o->wall && !c->freq)
		return usage_err("--wall weighs the samples of -F FREQ with the time off the CPU: "
				 "give -F");
	if (o->wall && c->nfuncs)
		return usage_err("--wall is for sampling mode (-F)");
	if (c->kthreads && !c->offcpu)
		return usage_err("--kernel-threads is for --off-cpu and --wall");
	if (c->idle_threads && !c->offcpu)
		return usage_err("--idle-threads is for --off-cpu and --wall");
	if (c->cpu_split && !c->nfuncs)
		return usage_err("--cpu-split splits the time of the calls -f traces: it is for "
				 "uprobe mode (-f)");
	if (c->state_root && !c->offcpu && !c->cpu_split)
		return usage_err("--state-root is for --off-cpu, --wall and --cpu-split");
	if (c->nfuncs && c->offcpu)
		return usage_err("-f cannot be combined with --off-cpu: --cpu-split gives the "
				 "traced calls' time off the CPU");
	if (!!c->nfuncs + (c->freq || c->offcpu) > 1)
		return usage_err("-f cannot be combined with --sample or --off-cpu yet");
	if ((c->min_block_ns || c->max_block_ns) && !c->offcpu)
		return usage_err("--min-block and --max-block are for --off-cpu");
	if (c->max_block_ns && c->min_block_ns > c->max_block_ns)
		return usage_err("--min-block is above --max-block: no block would be kept");
	if (c->nfuncs && (c->user_only || c->kernel_only))
		return usage_err("-U and -K are for sampling mode");
	if (c->user_only && c->kernel_only)
		return usage_err("-U and -K exclude each other");
	if (c->npids && c->command)
		return usage_err("-p and COMMAND exclude each other");
	if (c->all && c->npids)
		return usage_err("-a (every process) and -p exclude each other");
	if (c->all && c->command && c->nfuncs)
		return usage_err("-a with a COMMAND is for sampling mode: -f traces every process "
				 "that runs BINARY when given neither -p nor a COMMAND");
	if (c->full_stack && !c->nfuncs)
		return usage_err("--full-stack is for uprobe mode (-f)");
	if (c->max_calls && !c->nfuncs)
		return usage_err("--max-calls is for uprobe mode (-f)");
	return 0;
}

int options__parse(int argc, char **argv, struct options *o, char *err)
{
	bool format_set = false;
	int c, ret;

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < OPTIONS_MAX_FILES; i++)
		o->output_types[i] = -1;
	o->capture.unwind = UNWIND_MODE_AUTO;
	o->output = "-";
	o->noutputs = 0;
	optind = 0; /* glibc: 0 also resets the scan inside a clustered option */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:d:F:e:c:f:l:o:agUKvhV", long_opts, NULL)) != -1) {
		if (c == ':')
			return usage_err("option '%s' needs a value (see --help)",
					 argv[optind - 1]);
		if (c == '?' && optopt && optopt < 0x100)
			return usage_err("unknown option '-%c' (see --help)", optopt);
		if (c == '?')
			return usage_err("unknown option '%s' (see --help)", argv[optind - 1]);
		ret = parse_one(c, optarg, o, &format_set, err);
		if (ret)
			return ret;
	}
	if (optind < argc)
		o->capture.command = &argv[optind];
	return check(o, format_set, err);
}

void options__free(struct options *o)
{
	span_opt__free(&o->capture);
	for (size_t i = 0; i < OPTIONS_MAX_FILES; i++) {
		free(o->owned[i]);
		o->owned[i] = NULL;
	}
	free(o->capture.funcs);
	o->capture.funcs = NULL;
	free(o->capture.usdt_specs);
	o->capture.usdt_specs = NULL;
	free(o->capture.pids);
	o->capture.pids = NULL;
	o->capture.npids = 0;
}
