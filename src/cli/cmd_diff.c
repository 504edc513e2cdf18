// SPDX-License-Identifier: GPL-2.0
/* flamebpf diff: two file sources -> the comparison (diff.c) -> the table
 * (out_diff.c) on stdout and, with -o, a differential flame graph. Exit
 * statuses are SPEC's: 1 is a regression or a runtime failure (a profile
 * missing, empty or unreadable, an output not written), 2 bad usage (and
 * two profiles of different modes, which no options make comparable). A
 * failure prints no verdict line and, before the comparison, no table. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/out_diff.h"
#include "formats/html_diff.h"
#include "formats/out_html.h"
#include "formats/out_svg.h"
#include "formats/reader.h"
#include "profile/diff.h"
#include "util/msg.h"
#include "util/output.h"
#include "cmd_diff.h"
#include "render.h"

#define EXIT_REGRESSION 1
#define EXIT_USAGE	2
#define ERR_LEN		512

#define DEFAULT_THRESHOLD 5.0
/* Family-wise. Under pure sampling noise two captures of one build fail
 * about once in 2000 comparisons (once in 200 at 0.01: too often for a CI
 * gate), and a 9-point growth over 1000 samples is still found 9 times in
 * 10 (Monte Carlo on the demo workload's shape). */
#define DEFAULT_ALPHA	    0.001
#define DEFAULT_MIN_SAMPLES 20
#define DEFAULT_TOP	    20
#define MAX_GRAPHS	    4 /* -o given more often than this is refused */

enum {
	OPT_FORMAT = 0x100,
	OPT_THRESHOLD,
	OPT_ABSOLUTE,
	OPT_FAIL_ON,
	OPT_IGNORE,
	OPT_MIN_SAMPLES,
	OPT_TOP,
	OPT_ALPHA,
};

struct diff_cmd {
	const char *base, *new;
	const char *graphs[MAX_GRAPHS]; /* -o: each an .svg or an .html */
	size_t ngraphs;
	enum diff_format format;
	struct diff_opts o;
	size_t top;
	regex_t fail_on, ignore;
	bool help;
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "absolute", no_argument, NULL, OPT_ABSOLUTE },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "ignore", required_argument, NULL, OPT_IGNORE },
	{ "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "help", no_argument, NULL, 'h' },
	{},
};

void diff__usage(FILE *f)
{
	fputs("usage: flamebpf diff [OPTIONS] BASE NEW\n"
	      "\n"
	      "Compares two profiles (folded stacks, perf script text, chrome traces or\n"
	      "flamebpf html reports, in any mix) function by function: the inclusive share of "
	      "each in BASE and NEW,\n"
	      "the change in percentage points, the self shares, and whether the change is\n"
	      "more than sampling noise. Regressions first.\n"
	      "\n"
	      "  -o, --output FILE      also write a differential flame graph: NEW's shape,\n"
	      "                         red where the share grew, blue where it shrank; FILE\n"
	      "                         .svg, or .html (.htm): a page with the graph (hover,\n"
	      "                         zoom, search) and this table; up to 4 -o\n"
	      "      --format FORMAT    the table: text (default), json or markdown\n"
	      "      --threshold PCT    a regression grew by more than PCT points (default 5)\n"
	      "      --absolute         compare totals, not shares (same workload and duration\n"
	      "                         in both): PCT is then % growth of the inclusive weight\n"
	      "      --fail-on REGEX    only functions matching REGEX can be regressions\n"
	      "      --ignore REGEX     leave functions matching REGEX out altogether\n"
	      "      --min-samples N    do not test functions with fewer than N samples (calls\n"
	      "                         in uprobe mode, blocks or quanta of time off the CPU)\n"
	      "                         in both profiles (default 20)\n"
	      "      --alpha P          significance level, shared by all the functions tested\n"
	      "                         (Bonferroni; default 0.001)\n"
	      "      --top N            rows shown, every regression included (default 20;\n"
	      "                         0: all)\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "REGEX is POSIX extended, unanchored; kernel functions are named NAME_[k].\n"
	      "Sampling profiles: one-sided two-proportion z-test of the samples of stacks\n"
	      "holding the function. Uprobe-mode profiles: its calls and its per-call times\n"
	      "(Mann-Whitney U with one event per call, as chrome traces hold). Off-CPU and\n"
	      "wall-clock profiles (--off-cpu, --wall): its blocks and samples, and the\n"
	      "blocks' durations, where chrome traces or perf script give one event per\n"
	      "block; in folded files, its time counted in quanta of 1 ms (--wall: its\n"
	      "sampling period, when longer) as samples.\n"
	      "Exit status: 0 no regression; 1 a regression (a 'regression:' line on\n"
	      "stderr), or a failure: a profile missing, unreadable or empty, an output not\n"
	      "written; 2 bad usage, or profiles of different modes.\n",
	      f);
}

#define usage_err(...) (snprintf(err, ERR_LEN, __VA_ARGS__), -EINVAL)

/* A finite number in [min, max], "%" allowed after it. */
static int parse_double(const char *arg, double min, double max, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (end == arg || *end || errno || !isfinite(*v) || *v < min || *v > max)
		return -EINVAL;
	return 0;
}

static int parse_count(const char *arg, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(arg, &end, 10);
	if (end == arg || *end || errno || arg[0] == '-')
		return -EINVAL;
	return 0;
}

static int parse_regex(const char *opt, const char *arg, regex_t *re, const regex_t **set,
		       char *err)
{
	char why[128];
	int ret;

	if (*set) {
		regfree(re);
		*set = NULL;
	}
	ret = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);
	if (ret) {
		regerror(ret, re, why, sizeof(why));
		return usage_err("bad %s regex '%s': %s", opt, arg, why);
	}
	*set = re;
	return 0;
}

static int parse_number(int c, const char *arg, struct diff_cmd *d, char *err)
{
	uint64_t n;

	switch (c) {
	case OPT_THRESHOLD:
		if (parse_double(arg, 0, 1e9, &d->o.threshold))
			return usage_err("bad --threshold '%s': a number of points (or %% with "
					 "--absolute), 0 or more",
					 arg);
		return 0;
	case OPT_ALPHA:
		if (parse_double(arg, 0, 1, &d->o.alpha) || d->o.alpha <= 0 || d->o.alpha >= 1)
			return usage_err("bad --alpha '%s': a probability between 0 and 1", arg);
		return 0;
	case OPT_MIN_SAMPLES:
		if (parse_count(arg, &d->o.min_samples))
			return usage_err("bad --min-samples '%s': a whole number", arg);
		return 0;
	}
	if (parse_count(arg, &n) || n > SIZE_MAX)
		return usage_err("bad --top '%s': a whole number (0 for all)", arg);
	d->top = n;
	return 0;
}

static int parse_one(int c, const char *arg, struct diff_cmd *d, char *err)
{
	switch (c) {
	case 'o':
		if (d->ngraphs == MAX_GRAPHS)
			return usage_err("-o given more than %d times", MAX_GRAPHS);
		d->graphs[d->ngraphs++] = arg;
		return 0;
	case OPT_FORMAT:
		if (diff_out__parse(arg, &d->format))
			return usage_err("unknown format '%s' (text, json, markdown)", arg);
		return 0;
	case OPT_THRESHOLD:
	case OPT_ALPHA:
	case OPT_MIN_SAMPLES:
	case OPT_TOP:
		return parse_number(c, arg, d, err);
	case OPT_ABSOLUTE:
		d->o.absolute = true;
		return 0;
	case OPT_FAIL_ON:
		return parse_regex("--fail-on", arg, &d->fail_on, &d->o.fail_on, err);
	case OPT_IGNORE:
		return parse_regex("--ignore", arg, &d->ignore, &d->o.ignore, err);
	case 'h':
		d->help = true;
		return 0;
	}
	return usage_err("unknown option (see flamebpf diff --help)");
}

static bool ends_in(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);

	return n > e && !strcmp(path + n - e, ext);
}

static bool html_name(const char *path)
{
	return ends_in(path, ".html") || ends_in(path, ".htm");
}

static int check_args(int argc, char **argv, struct diff_cmd *d, char *err)
{
	if (d->help)
		return 0;
	if (argc - optind != 2)
		return usage_err("diff compares two profiles: flamebpf diff [OPTIONS] BASE NEW "
				 "(%d given)",
				 argc - optind);
	d->base = argv[optind];
	d->new = argv[optind + 1];
	for (size_t i = 0; i < d->ngraphs; i++)
		if (!ends_in(d->graphs[i], ".svg") && !html_name(d->graphs[i]))
			return usage_err(
				"-o writes the differential flame graph, an SVG or an "
				"HTML page: '%s' ends in neither .svg nor .html (the table "
				"goes to standard output)",
				d->graphs[i]);
	return 0;
}

static void cmd_init(struct diff_cmd *d)
{
	memset(d, 0, sizeof(*d));
	d->format = DIFF_TEXT;
	d->o.threshold = DEFAULT_THRESHOLD;
	d->o.alpha = DEFAULT_ALPHA;
	d->o.min_samples = DEFAULT_MIN_SAMPLES;
	d->top = DEFAULT_TOP;
}

static int parse_args(int argc, char **argv, struct diff_cmd *d, char *err)
{
	int c, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", long_opts, NULL)) != -1) {
		if (c == ':')
			return usage_err("option '%s' needs a value (see flamebpf diff --help)",
					 argv[optind - 1]);
		if (c == '?' && optopt && optopt < 0x100)
			return usage_err("unknown option '-%c' (see flamebpf diff --help)", optopt);
		if (c == '?')
			return usage_err("unknown option '%s' (see flamebpf diff --help)",
					 argv[optind - 1]);
		ret = parse_one(c, optarg, d, err);
		if (ret)
			return ret;
	}
	return check_args(argc, argv, d, err);
}

static void cmd_free(struct diff_cmd *d)
{
	if (d->o.fail_on)
		regfree(&d->fail_on);
	if (d->o.ignore)
		regfree(&d->ignore);
}

/* ---- the profiles ---- */

/* A chrome trace keeps its calls' events, and chrome and perf script their
 * blocks off the CPU: their durations are what the per-call (per-block)
 * test compares; only durations, so perf records need no time. Threads and
 * addresses merge: functions only. */
static int load(const char *path, struct profile **p, enum in_format *format)
{
	struct reader_opts ro = {};
	struct reader_stats st;
	char err[READER_ERR_LEN];
	struct reader *r;
	int ret = reader__open(&r, path, err);

	if (ret) {
		p_err("%s", err);
		return ret;
	}
	*format = reader__format(r);
	ro.keep_events = *format != IN_FOLDED;
	ro.untimed_events = true;
	ret = reader__read(r, &ro, p, &st, err);
	reader__close(r);
	if (ret == -ENODATA)
		p_err("'%s' holds no stacks: nothing to compare", path);
	else if (ret)
		p_err("%s", err);
	else
		render__notes(&st, path);
	return ret;
}

/* Two profiles of different modes: each file, its format and what it
 * holds. A chrome trace reads as timed calls unless its otherData says
 * "mode":"sample" (as flamebpf -F writes it): said when one did. */
static void say_modes(const char *const path[2], struct profile *const p[2],
		      const enum in_format format[2])
{
	char why[256] = "";

	for (int i = 0; i < 2; i++)
		if (format[i] == IN_CHROME && diff__mode(p[i]) == DIFF_CALLS)
			snprintf(why, sizeof(why),
				 "'%s' has no \"mode\":\"sample\" in its otherData, so its spans "
				 "read as timed calls; ",
				 path[i]);
	p_err("'%s' (%s) is %s but '%s' (%s) is %s: they cannot be compared (%srecord both in "
	      "one mode: -F, -f, --off-cpu or --wall)",
	      path[0], reader__format_name(format[0]), diff__mode_name(diff__mode(p[0])), path[1],
	      reader__format_name(format[1]), diff__mode_name(diff__mode(p[1])), why);
}

/* Both with some weight: -ENODATA when one has none. */
static int check_weights(const struct diff_cmd *d, struct profile *const p[2])
{
	const char *path[2] = { d->base, d->new };

	for (int i = 0; i < 2; i++) {
		if (!profile__total_weight(p[i])) {
			p_err("'%s' has no %s: nothing to compare", path[i],
			      profile__unit(p[i]) == UNIT_SAMPLES ? "samples" : "time");
			return -ENODATA;
		}
	}
	return 0;
}

/* ---- the verdict ---- */

/* "p 3.1e-12", or "p < 1e-16" where a double says no more. */
static void fmt_p(char *buf, size_t size, double p)
{
	if (p < 1e-16)
		snprintf(buf, size, "p < 1e-16");
	else
		snprintf(buf, size, "p %.2g", p);
}

/* One line on stderr for the CI log, whatever the table's format. */
static void say_verdict(const struct diff_cmd *d, const struct diff_result *r)
{
	const struct diff_func *f = &r->funcs[0];
	const char *unit = r->unit == UNIT_SAMPLES ? "samples" : "ns";
	char more[64] = "", p[32];

	if (!r->nregressions)
		return;
	if (r->nregressions > 1)
		snprintf(more, sizeof(more), ", and %zu more", r->nregressions - 1);
	fmt_p(p, sizeof(p), f->p);
	if (!d->o.absolute)
		p_err("regression: '%s' inclusive share %.1f%% -> %.1f%% (%+.1f points, %s)%s",
		      f->name, f->base.incl_pct, f->new.incl_pct, f->change, p, more);
	else if (isinf(f->change))
		p_err("regression: '%s' is new: %" PRIu64 " %s inclusive (%s)%s", f->name,
		      f->new.incl, unit, p, more);
	else
		p_err("regression: '%s' inclusive %" PRIu64 " -> %" PRIu64 " %s (%+.1f%%, %s)%s",
		      f->name, f->base.incl, f->new.incl, unit, f->change, p, more);
}

static int write_table(const struct diff_cmd *d, const struct diff_result *r)
{
	struct diff_report rep = { r, &d->o, d->base, d->new, d->top };
	int err = diff_out__write(d->format, &rep, stdout);

	if (err)
		p_err("cannot write the table to standard output: %s", strerror(-err));
	return err;
}

/* A graph, an SVG or (.html) the page that also holds the table. */
static int write_graph(const struct diff_cmd *d, struct profile *const p[2],
		       const struct diff_result *r, const char *path, struct output *out)
{
	struct write_opts wo = { .root = ROOT_COMM };
	struct html_diff hd = { p[0], r, &d->o, d->base, d->new };
	int err = html_name(path) ? html__write_diff(p[1], &hd, &wo, out->f)
				  : svg__write_diff(p[0], p[1], &wo, out->f);

	if (err == -EIO && output__error(out))
		err = output__error(out);
	if (!err)
		err = output__commit(out);
	if (err)
		p_err("cannot write '%s': %s", path, output__strerror(err));
	return err;
}

static int compare(const struct diff_cmd *d, struct profile *const p[2], struct output out[])
{
	struct diff_result r;
	int ret, err = diff__compare(p[0], p[1], &d->o, &r);

	if (err) {
		p_err("cannot compare '%s' with '%s': %s", d->base, d->new, strerror(-err));
		return EXIT_FAILURE;
	}
	err = write_table(d, &r);
	for (size_t i = 0; i < d->ngraphs && !err; i++)
		err = write_graph(d, p, &r, d->graphs[i], &out[i]);
	if (!err)
		say_verdict(d, &r);
	ret = err ? EXIT_FAILURE : r.nregressions ? EXIT_REGRESSION : EXIT_SUCCESS;
	diff__free(&r);
	return ret;
}

/* The exit status, both profiles loaded. Profiles of different modes are
 * a usage error, as a timeline of folded stacks is to render. */
static int judge(const struct diff_cmd *d, struct profile *const p[2],
		 const enum in_format format[2], struct output out[])
{
	const char *path[2] = { d->base, d->new };

	if (diff__mode(p[0]) != diff__mode(p[1])) {
		say_modes(path, p, format);
		return EXIT_USAGE;
	}
	if (check_weights(d, p))
		return EXIT_FAILURE;
	return compare(d, p, out);
}

static int run(const struct diff_cmd *d)
{
	struct output out[MAX_GRAPHS] = {};
	struct profile *p[2] = {};
	enum in_format format[2];
	int ret = EXIT_FAILURE, err = 0;
	size_t opened;

	/* an unwritable -o fails before the work */
	for (opened = 0; opened < d->ngraphs && !err; opened++)
		if ((err = output__open(&out[opened], d->graphs[opened])))
			p_err("cannot write '%s': %s", d->graphs[opened], output__strerror(err));
	if (!err && !load(d->base, &p[0], &format[0]) && !load(d->new, &p[1], &format[1]))
		ret = judge(d, p, format, out);
	for (size_t i = 0; i < opened; i++)
		output__abort(&out[i]); /* nothing once committed */
	profile__free(p[0]);
	profile__free(p[1]);
	return ret;
}

int diff__main(int argc, char **argv)
{
	char err[ERR_LEN];
	struct diff_cmd d;
	int ret;

	cmd_init(&d);
	if (parse_args(argc, argv, &d, err)) {
		p_err("%s", err);
		cmd_free(&d);
		return EXIT_USAGE;
	}
	if (d.help)
		diff__usage(stdout);
	ret = d.help ? EXIT_SUCCESS : run(&d);
	cmd_free(&d);
	return ret;
}
