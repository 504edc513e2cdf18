// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "out_chrome.h"
#include "out_folded.h"
#include "out_heatmap.h"
#include "out_html.h"
#include "out_perf.h"
#include "out_pprof.h"
#include "out_svg.h"
#include "sink.h"

static const char *const names[FORMAT_NR] = {
	[FORMAT_FOLDED] = "folded", [FORMAT_CHROME] = "chrome", [FORMAT_PERF] = "perf",
	[FORMAT_SVG] = "svg",	    [FORMAT_PPROF] = "pprof",	[FORMAT_HTML] = "html",
};

const char *sink__name(enum out_format f)
{
	return f < FORMAT_NR ? names[f] : "?";
}

int sink__parse(const char *name, enum out_format *f)
{
	for (int i = 0; i < FORMAT_NR; i++) {
		if (!strcmp(name, names[i])) {
			*f = i;
			return 0;
		}
	}
	return -EINVAL;
}

enum out_format sink__from_path(const char *path)
{
	static const struct {
		const char *ext;
		enum out_format f;
	} exts[] = {
		{ ".json", FORMAT_CHROME }, { ".perf", FORMAT_PERF },	{ ".script", FORMAT_PERF },
		{ ".svg", FORMAT_SVG },	    { ".pb.gz", FORMAT_PPROF }, { ".pprof", FORMAT_PPROF },
		{ ".html", FORMAT_HTML },   { ".htm", FORMAT_HTML },
	};
	size_t len = strlen(path);

	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i].ext);

		if (len > el && !strcmp(path + len - el, exts[i].ext))
			return exts[i].f;
	}
	return FORMAT_FOLDED;
}

/* html: its heatmap places each sample or call in time. */
bool sink__needs_events(enum out_format f, const struct write_opts *o)
{
	return f == FORMAT_CHROME || f == FORMAT_PERF || f == FORMAT_HTML || o->flamechart ||
	       (f == FORMAT_SVG && o->heatmap_rows);
}

int sink__write(enum out_format f, const struct profile *p, const struct write_opts *o, FILE *out)
{
	if (sink__needs_events(f, o) && !profile__nr_events(p))
		return -ENODATA;
	switch (f) {
	case FORMAT_CHROME:
		return chrome__write(p, o, out);
	case FORMAT_PERF:
		return perf__write(p, o, out);
	case FORMAT_SVG:
		return o->heatmap_rows ? heatmap__write_svg(p, o, out) : svg__write(p, o, out);
	case FORMAT_PPROF:
		return pprof__write(p, o, out);
	case FORMAT_HTML:
		return html__write(p, o, out);
	default:
		return o->flamechart ? folded__write_flamechart(p, o, out)
				     : folded__write(p, o, out);
	}
}
