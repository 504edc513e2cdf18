// SPDX-License-Identifier: GPL-2.0
/* flamebpf render: file source -> profile -> sink. The input's format is
 * told from its content; the output's from --format or its extension. The
 * input is read whole before anything is written, and the output goes
 * through a temporary file, so a bad input never leaves an output behind. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/reader.h"
#include "formats/sink.h"
#include "util/msg.h"
#include "util/output.h"
#include "options.h"
#include "render.h"
#include "report.h"

#define EXIT_USAGE 2
#define ERR_LEN	   256

enum {
	OPT_FORMAT = 0x100,
	OPT_PIDS,
	OPT_TIDS,
	OPT_FLAMECHART,
	OPT_TITLE,
	OPT_PERIOD,
	OPT_EVENT,
	OPT_TOP,
	OPT_HEATMAP,
	OPT_HEATMAP_ROWS,
};

struct render_opts {
	const char *input;
	const char *outputs[OPTIONS_MAX_OUTPUTS];
	enum out_format formats[OPTIONS_MAX_OUTPUTS];
	size_t noutputs;
	enum out_format format; /* --format */
	bool format_set, help, period;
	const char *event; /* --event */
	size_t top;	   /* --top N; 0: all */
	struct write_opts wo;
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "pids", no_argument, NULL, OPT_PIDS },
	{ "tids", no_argument, NULL, OPT_TIDS },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "period", no_argument, NULL, OPT_PERIOD },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "heatmap", no_argument, NULL, OPT_HEATMAP },
	{ "heatmap-rows", required_argument, NULL, OPT_HEATMAP_ROWS },
	{ "help", no_argument, NULL, 'h' },
	{},
};

void render__usage(FILE *f)
{
	fputs("usage: flamebpf render [OPTIONS] INPUT\n"
	      "\n"
	      "Reads a profile and writes it in another format. INPUT ('-' for standard\n"
	      "input) is folded stacks, `perf script` text, a chrome trace (JSON) or an\n"
	      "html report of flamebpf's: the format is told from the content. Folded counts are "
	      "taken as samples; a perf\n"
	      "record counts 1, a sample, unless --period is given.\n"
	      "\n"
	      "  -o, --output FILE    write to FILE (default: standard output); repeat it\n"
	      "                       to write several formats from one reading\n"
	      "      --format FORMAT  folded, chrome, perf, svg, pprof or html; otherwise\n"
	      "                       from FILE's extension (folded when it says nothing)\n"
	      "      --pids, --tids   root frame COMM-PID or COMM-PID/TID (perf, chrome input)\n"
	      "      --flamechart     folded lines (or the svg) in time order, not merged\n"
	      "      --top N          only the N processes (threads with --tids) with the\n"
	      "                       most samples or time (folded input: by root name)\n"
	      "      --heatmap        svg outputs are the subsecond-offset heatmap (rows of\n"
	      "                       20 ms; --heatmap-rows N for N a second)\n"
	      "      --title TEXT     the svg's or the html report's title\n"
	      "      --period         perf input: weigh each record by its period (1 without\n"
	      "                       one), like stackcollapse-perf.pl; for events sampled\n"
	      "                       at a frequency, whose periods vary\n"
	      "      --event EVENT    perf input: the records of EVENT (e.g. cycles:u), not\n"
	      "                       those of the first event in it\n"
	      "  -h, --help           this help\n"
	      "\n"
	      "chrome, perf, html and --flamechart need times: perf script, chrome or html\n"
	      "input.\n"
	      "Exit status: 0 success; 1 a runtime failure: an input missing, unreadable or\n"
	      "empty, an output not written (as in diff); 2 bad usage.\n",
	      f);
}

#define usage_err(...) (snprintf(err, ERR_LEN, __VA_ARGS__), -EINVAL)

static int parse_one(int c, const char *arg, struct render_opts *o, char *err)
{
	switch (c) {
	case 'o':
		if (o->noutputs == OPTIONS_MAX_OUTPUTS)
			return usage_err("at most %d outputs (-o)", OPTIONS_MAX_OUTPUTS);
		o->outputs[o->noutputs++] = arg;
		return 0;
	case OPT_FORMAT:
		if (sink__parse(arg, &o->format))
			return usage_err(
				"unknown format '%s' (folded, chrome, perf, svg, pprof, html)",
				arg);
		o->format_set = true;
		return 0;
	case OPT_PIDS:
		o->wo.root = ROOT_PID;
		return 0;
	case OPT_TIDS:
		o->wo.root = ROOT_TID;
		return 0;
	case OPT_FLAMECHART:
		o->wo.flamechart = true;
		return 0;
	case OPT_TITLE:
		o->wo.title = arg;
		return 0;
	case OPT_PERIOD:
		o->period = true;
		return 0;
	case OPT_HEATMAP:
		return options__heatmap(NULL, &o->wo.heatmap_rows, err);
	case OPT_HEATMAP_ROWS:
		return options__heatmap(arg, &o->wo.heatmap_rows, err);
	case OPT_TOP:
		return options__top(arg, &o->top, err);
	case OPT_EVENT:
		if (!*arg)
			return usage_err("--event needs an event name (as perf script prints it)");
		o->event = arg;
		return 0;
	case 'h':
		o->help = true;
		return 0;
	}
	return usage_err("unknown option (see flamebpf render --help)");
}

static int check_args(int argc, char **argv, struct render_opts *o, char *err)
{
	size_t svgs = 0;

	if (o->help)
		return 0;
	if (optind >= argc)
		return usage_err("render needs an input file: flamebpf render [OPTIONS] INPUT");
	if (optind + 1 < argc)
		return usage_err("render reads one input file: '%s' is one too many",
				 argv[optind + 1]);
	o->input = argv[optind];
	if (!o->noutputs)
		o->outputs[o->noutputs++] = "-";
	if (o->format_set && o->noutputs > 1)
		return usage_err("--format is for one output; with several -o, each file's "
				 "extension gives its format");
	for (size_t i = 0; i < o->noutputs; i++) {
		o->formats[i] = o->format_set ? o->format : sink__from_path(o->outputs[i]);
		svgs += o->formats[i] == FORMAT_SVG;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(o->outputs[k], o->outputs[i]))
				return usage_err("'%s' is named by two -o", o->outputs[i]);
	}
	if (o->wo.heatmap_rows && !svgs)
		return usage_err("--heatmap draws an SVG: give -o FILE.svg");
	return 0;
}

static int parse_args(int argc, char **argv, struct render_opts *o, char *err)
{
	int c, ret;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", long_opts, NULL)) != -1) {
		if (c == ':')
			return usage_err("option '%s' needs a value (see flamebpf render --help)",
					 argv[optind - 1]);
		if (c == '?' && optopt && optopt < 0x100)
			return usage_err("unknown option '-%c' (see flamebpf render --help)",
					 optopt);
		if (c == '?')
			return usage_err("unknown option '%s' (see flamebpf render --help)",
					 argv[optind - 1]);
		ret = parse_one(c, optarg, o, err);
		if (ret)
			return ret;
	}
	return check_args(argc, argv, o, err);
}

/* What the input cannot give: told before anything is read. */
static int check_input(const struct render_opts *o, const struct reader *r, const char *err_name)
{
	if (reader__format(r) != IN_FOLDED)
		return 0;
	for (size_t i = 0; i < o->noutputs; i++) {
		if (!sink__needs_events(o->formats[i], &o->wo))
			continue;
		p_err("'%s' is folded stacks, which have no times: the %s output needs perf "
		      "script, chrome or html input",
		      err_name,
		      o->wo.flamechart		    ? "--flamechart"
		      : o->formats[i] == FORMAT_SVG ? "--heatmap"
						    : sink__name(o->formats[i]));
		return -EINVAL;
	}
	if (o->wo.root != ROOT_COMM) {
		p_err("'%s' is folded stacks, which have no process ids for %s: their roots are "
		      "written as they are without it",
		      err_name, o->wo.root == ROOT_PID ? "--pids" : "--tids");
		return -EINVAL;
	}
	return 0;
}

static void progress(uint64_t done, uint64_t total, void *arg)
{
	const char *name = arg;

	if (total)
		fprintf(stderr, "\rflamebpf: reading %s: %" PRIu64 " of %" PRIu64 " MB\033[K", name,
			done >> 20, total >> 20);
	else
		fprintf(stderr, "\rflamebpf: reading %s: %" PRIu64 " MB\033[K", name, done >> 20);
}

/* What the reader keeps: what any of the outputs shows. */
static struct reader_opts reader_opts(const struct render_opts *o)
{
	struct reader_opts ro = {
		.ids_in_root = o->wo.root != ROOT_COMM,
		.period = o->period,
		.event = o->event,
	};

	for (size_t i = 0; i < o->noutputs; i++) {
		enum out_format f = o->formats[i];
		bool aggregated = f == FORMAT_FOLDED || f == FORMAT_SVG;

		ro.keep_events |= sink__needs_events(f, &o->wo);
		/* threads and addresses only where the output shows them: fewer stacks */
		ro.keep_ids |= !aggregated;
		ro.keep_addrs |= f == FORMAT_PERF || f == FORMAT_PPROF;
	}
	ro.keep_ids |= ro.ids_in_root || ro.keep_events;
	if (isatty(STDERR_FILENO)) {
		ro.progress = progress;
		ro.arg = (void *)o->input;
	}
	return ro;
}

void render__notes(const struct reader_stats *st, const char *name)
{
	if (st->other_events)
		p_err("note: only the '%s' records of '%s' were read (the first event in it, or "
		      "--event's); %" PRIu64 " %s of other events ('%s', ...) left out",
		      st->event, name, st->other_events,
		      st->other_events == 1 ? "record" : "records", st->other_event);
	if (st->unmatched)
		p_err("note: %" PRIu64 " events of '%s' did not nest (an end without a begin, or "
		      "past their parent's end): they were clipped or dropped",
		      st->unmatched, name);
	if (st->skipped)
		p_err("warning: %" PRIu64 " %s of '%s' that %s no part of a record skipped (%s; "
		      "the first: line %" PRIu64 ")",
		      st->skipped, st->skipped == 1 ? "line" : "lines", name,
		      st->skipped == 1 ? "is" : "are", st->skipped_for, st->first_skipped);
	if (st->srclines)
		p_err("note: the source lines of '%s' (perf script -F +srcline) were read past: "
		      "frames are named by function (a capture with --file-line names the lines)",
		      name);
	if (st->no_pid)
		p_err("note: %" PRIu64 " records of '%s' have no PID (perf script -F +pid prints "
		      "it): their roots read COMM-?",
		      st->no_pid, name);
	if (st->cut_short || st->unclosed)
		p_err("note: '%s' ends %s: its last record was read as it is%s", name,
		      st->cut_short ? "without a newline (cut short?)"
				    : "without the empty line after its last record",
		      st->cut_frame ? ", less that line, a frame that may be cut" : "");
}

static int write_profile(const struct render_opts *o, size_t i, const struct profile *p,
			 struct output *out)
{
	int err = sink__write(o->formats[i], p, &o->wo, out->f);

	if (err == -EIO && output__error(out))
		err = output__error(out);
	if (!err)
		err = output__commit(out);
	if (err == -ENODATA)
		p_err("'%s' has no times for the %s output", o->input, sink__name(o->formats[i]));
	else if (err == -ENOTSUP)
		p_err("the %s output is not available in this version", sink__name(o->formats[i]));
	else if (err)
		p_err("cannot write '%s': %s", o->outputs[i], output__strerror(err));
	return err;
}

/* Every output is opened before the input is read; each takes its name
 * only when it is whole, and those after a failure are given up. */
static int render(const struct render_opts *o, struct reader *r)
{
	struct reader_opts ro = reader_opts(o);
	struct output out[OPTIONS_MAX_OUTPUTS];
	struct profile *p = NULL;
	struct reader_stats st;
	char err[READER_ERR_LEN];
	size_t opened = 0, done = 0;
	int ret = 0;

	for (; opened < o->noutputs && !ret; opened += !ret) {
		ret = output__open(&out[opened], o->outputs[opened]);
		if (ret)
			p_err("cannot write '%s': %s", o->outputs[opened], output__strerror(ret));
	}
	if (!ret) {
		ret = reader__read(r, &ro, &p, &st, err);
		if (ro.progress)
			report__progress_clear();
		if (ret)
			p_err("%s", err);
		else
			render__notes(&st, o->input);
	}
	if (!ret && o->top)
		ret = report__top(&p, o->top, o->wo.root == ROOT_TID);
	for (; done < opened && !ret; done += !ret)
		ret = write_profile(o, done, p, &out[done]);
	/* the one that failed was given up by write_profile's commit, or not */
	for (size_t i = done; i < opened; i++)
		output__abort(&out[i]);
	profile__free(p);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

int render__main(int argc, char **argv)
{
	struct render_opts o;
	char err[READER_ERR_LEN];
	struct reader *r;
	int ret;

	if (parse_args(argc, argv, &o, err)) {
		p_err("%s", err);
		return EXIT_USAGE;
	}
	if (o.help) {
		render__usage(stdout);
		return EXIT_SUCCESS;
	}
	if (reader__open(&r, o.input, err)) {
		p_err("%s", err);
		return EXIT_FAILURE;
	}
	ret = check_input(&o, r, o.input) ? EXIT_USAGE : render(&o, r);
	reader__close(r);
	return ret;
}
