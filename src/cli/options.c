// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"

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
};

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "sample", required_argument, NULL, 'F' },
	{ "func", required_argument, NULL, 'f' },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "state-root", no_argument, NULL, OPT_STATE_ROOT },
	{ "wakers", no_argument, NULL, OPT_WAKERS },
	{ "kernel-threads", no_argument, NULL, OPT_KTHREADS },
	{ "max-block", required_argument, NULL, OPT_MAX_BLOCK },
	{ "idle-threads", no_argument, NULL, OPT_IDLE_THREADS },
	{ "top", required_argument, NULL, OPT_TOP },
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
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{},
};

void options__usage(FILE *f)
{
	fputs("usage: flamebpf --sample FREQ [OPTIONS] [-- COMMAND [ARG...]]\n"
	      "\n"
	      "       flamebpf --off-cpu [OPTIONS] [-- COMMAND [ARG...]]\n"
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
	      "  -f, --func [BINARY:]REGEX\n"
	      "                           trace every call of the functions whose name\n"
	      "                           matches REGEX (POSIX extended, unanchored; C++ and\n"
	      "                           Rust names match demangled) in the target's program\n"
	      "                           and libraries, or in BINARY (a path, or a library\n"
	      "                           name: libc, libc.so.6); repeatable. Folded counts\n"
	      "                           are self wall time in ns. System-wide needs BINARY\n"
	      "      --off-cpu            time threads spent off the CPU (ns), by the stack\n"
	      "                           where they blocked; the leaf says why: [sleeping],\n"
	      "                           [disk], [preempted] or [stopped]\n"
	      "      --wall               (with -F) on-CPU samples, each worth its period,\n"
	      "                           and off-CPU time in one graph, in ns\n"
	      "      --state-root         (--off-cpu, --wall) the state frame right under\n"
	      "                           the root ([running] for samples), not at the leaf\n"
	      "      --wakers             (--off-cpu, --wall) after each blocked stack, a\n"
	      "                           \"--\" frame and the stack of what woke it\n"
	      "      --kernel-threads     (--off-cpu) kernel threads' waits too: left out\n"
	      "                           otherwise, and said how much\n"
	      "      --idle-threads       (--off-cpu) threads off the CPU for the whole\n"
	      "                           capture too: left out otherwise, and said how much\n"
	      "      --min-block T, --max-block T\n"
	      "                           (--off-cpu) only blocks at least / at most T\n"
	      "                           long: 500us, 1ms, 2s\n"
	      "  -l, --list [BINARY:]REGEX\n"
	      "                           print the functions -f would trace and exit\n"
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
	      "  -U, -K                   user frames only / kernel frames only\n"
	      "  -g                       (accepted for perf's sake: stacks are always taken)\n"
	      "      --full-stack         (-f) each traced call under its real user call stack\n"
	      "      --max-calls N        (-f) timeline outputs keep the first N calls\n"
	      "                           (default 1000000; 40 bytes each, 72 for chrome);\n"
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
	      "  -v, --verbose            more detail on stderr (-vv: libbpf's log too)\n"
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

static int parse_one(int c, const char *arg, struct options *o, bool *format_set, char *err)
{
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
	case OPT_TOP:
		if (options__parse_count(arg, OPTIONS_MAX_TOP, &o->top))
			return usage_err("invalid --top '%s' (a count of processes, 1 to %d)", arg,
					 OPTIONS_MAX_TOP);
		return 0;
	case 'a':
		o->capture.all = true;
		return 0;
	case OPT_OFF_CPU:
		o->capture.offcpu = true;
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
	case OPT_MIN_BLOCK:
	case OPT_MAX_BLOCK:
		if (options__parse_time_ns(arg, c == OPT_MIN_BLOCK ? &o->capture.min_block_ns
								   : &o->capture.max_block_ns))
			return usage_err("invalid time '%s' for --%s-block (a number and its unit: "
					 "500us, 1ms, 2s)",
					 arg, c == OPT_MIN_BLOCK ? "min" : "max");
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
	struct write_opts wo = { .flamechart = o->flamechart };
	size_t stdouts = 0;

	if (!o->noutputs)
		o->outputs[o->noutputs++] = "-";
	if (format_set && o->noutputs > 1)
		return usage_err("--format is for one output; with several -o, each file's "
				 "extension gives its format");
	for (size_t i = 0; i < o->noutputs; i++) {
		o->formats[i] = format_set ? o->format : sink__from_path(o->outputs[i]);
		o->capture.timeline |= sink__needs_events(o->formats[i], &wo);
		/* chrome JSON shows each call's arguments */
		o->capture.want_args |= o->formats[i] == FORMAT_CHROME;
		stdouts += !strcmp(o->outputs[i], "-");
	}
	if (stdouts > 1)
		return usage_err("standard output ('-') can take one output only");
	o->output = o->outputs[0];
	o->format = o->formats[0];
	return 0;
}

static int check(struct options *o, bool format_set, char *err)
{
	const struct source_opts *c = &o->capture;

	if (o->help || o->version)
		return 0;
	if (check_outputs(o, format_set, err))
		return -EINVAL;
	if (c->list)
		return c->freq || c->nfuncs || c->offcpu
			       ? usage_err("-l lists functions: it takes no mode")
			       : 0;
	if (!c->freq && !c->nfuncs && !c->offcpu && c->command)
		return usage_err("no mode given: use --sample FREQ, --off-cpu or -f REGEX before "
				 "the COMMAND '%s' (see --help)",
				 c->command[0]);
	if (!c->freq && !c->nfuncs && !c->offcpu)
		return usage_err("no mode given: use --sample FREQ, --off-cpu or -f REGEX (see "
				 "--help)");
	if (o->wall && !c->freq)
		return usage_err("--wall weighs the samples of -F FREQ with the time off the CPU: "
				 "give -F");
	if (o->wall && c->nfuncs)
		return usage_err("--wall is for sampling mode (-F)");
	if (c->kthreads && !c->offcpu)
		return usage_err("--kernel-threads is for --off-cpu and --wall");
	if (c->idle_threads && !c->offcpu)
		return usage_err("--idle-threads is for --off-cpu and --wall");
	if (c->state_root && !c->offcpu)
		return usage_err("--state-root is for --off-cpu and --wall");
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
	o->capture.unwind = UNWIND_MODE_AUTO;
	o->output = "-";
	o->noutputs = 0;
	optind = 0; /* glibc: 0 also resets the scan inside a clustered option */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:d:F:f:l:o:agUKvhV", long_opts, NULL)) != -1) {
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
	free(o->capture.funcs);
	o->capture.funcs = NULL;
	free(o->capture.pids);
	o->capture.pids = NULL;
	o->capture.npids = 0;
}
