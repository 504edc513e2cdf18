// SPDX-License-Identifier: GPL-2.0
/* The page around the data: the script and style are compiled in from
 * src/formats/html/ (the build refuses them if they hold "</script" or
 * "</style", which would end their element), the data is a JSON object in
 * a script element of its own, every '<' in it escaped. A Content Security
 * Policy forbids the page any request: it works offline, and a name in the
 * data can never make it fetch something. */
#include <errno.h>

#include "gen/html_css.h"
#include "gen/html_js.h"
#include "html_data.h"
#include "out_html.h"

#ifndef FLAMEBPF_VERSION
#define FLAMEBPF_VERSION "unknown"
#endif

static void put_head(FILE *f)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"flamebpf " FLAMEBPF_VERSION "\">\n"
	      "<title>flamebpf report</title>\n<style>\n",
	      f);
	fwrite(html_css, 1, sizeof(html_css) - 1, f);
	fputs("</style>\n</head>\n<body>\n<div id=\"report\"><p id=\"loading\">Loading the "
	      "profile&hellip;</p></div>\n<noscript>This report needs JavaScript.</noscript>\n",
	      f);
}

static int write_page(const struct profile *p, const struct html_diff *diff,
		      const struct write_opts *o, FILE *f)
{
	int err;

	put_head(f);
	fputs("<script type=\"application/json\" id=\"flamebpf-data\">\n", f);
	err = diff ? html_data__write_diff(p, diff, o, f) : html_data__write(p, o, f);
	if (err)
		return err;
	fputs("\n</script>\n<script>\n", f);
	fwrite(html_js, 1, sizeof(html_js) - 1, f);
	fputs("</script>\n</body>\n</html>\n", f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

int html__write(const struct profile *p, const struct write_opts *o, FILE *f)
{
	return write_page(p, NULL, o, f);
}

int html__write_diff(const struct profile *new, const struct html_diff *diff,
		     const struct write_opts *o, FILE *f)
{
	return write_page(new, diff, o, f);
}
