// SPDX-License-Identifier: GPL-2.0
/* The "diff" member of the HTML report's data (html_diff.h): each node's
 * colour by its change in share, scaled as the differential SVG scales it
 * (the largest change of a frame wide enough to draw is full colour), and
 * diff's table as it ordered it. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>

#include "util/utf8.h"
#include "html_diff.h"
#include "palette.h"

static bool absent(const struct html_diff_nodes *t, size_t i)
{
	return t->base_w[i] == HTML_DIFF_ABSENT;
}

static double share_change(const struct html_diff_nodes *t, size_t i)
{
	double now = (double)t->new_w[i] / t->new_total;

	return absent(t, i) ? now : now - (double)t->base_w[i] / t->base_total;
}

static double full_change(const struct html_diff_nodes *t)
{
	double full = PALETTE_DIFF_FULL_FLOOR;

	for (size_t i = 0; i < t->n; i++)
		if (!absent(t, i) && (double)t->new_w[i] >= PALETTE_DIFF_MIN_SHARE * t->new_total)
			full = fmax(full, fabs(share_change(t, i)));
	return full;
}

static void put_nodes(const struct html_diff_nodes *t, FILE *f)
{
	double full = full_change(t);

	fputs(",\n\"basew\":[", f);
	for (size_t i = 0; i < t->n; i++)
		fprintf(f, "%s%" PRId64, i ? (i % 32 ? "," : ",\n") : "",
			absent(t, i) ? -1 : (int64_t)t->base_w[i]);
	fputs("],\n\"rgb\":[", f);
	for (size_t i = 0; i < t->n; i++) {
		struct palette_rgb c = palette__by_change(share_change(t, i), full, absent(t, i));

		fprintf(f, "%s%u", i ? (i % 32 ? "," : ",\n") : "", c.r << 16 | c.g << 8 | c.b);
	}
	fputc(']', f);
}

/* ",V", null for what JSON cannot hold (a change from nothing). */
static void put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.6g", v);
	else
		fputs(",null", f);
}

static void put_funcs(const struct diff_result *r, FILE *f)
{
	fputs(",\n\"funcs\":[", f);
	for (size_t i = 0; i < r->nfuncs; i++) {
		const struct diff_func *fn = &r->funcs[i];

		fputs(i ? ",\n[" : "[", f);
		utf8__put_json_str_html(f, fn->name);
		put_num(f, fn->base.incl_pct);
		put_num(f, fn->new.incl_pct);
		put_num(f, fn->change);
		put_num(f, fn->p);
		fputc(',', f);
		utf8__put_json_str_html(f, diff__status_name(fn->status, r));
		fprintf(f, ",%d]", fn->may_fail);
	}
	fputc(']', f);
}

int html_diff__write(const struct html_diff *d, const struct html_diff_nodes *t, FILE *f)
{
	fputs(",\n\"diff\":{\"base\":", f);
	utf8__put_json_str_html(f, d->base_name);
	fputs(",\"new\":", f);
	utf8__put_json_str_html(f, d->new_name);
	fprintf(f, ",\"totals\":[%" PRIu64 ",%" PRIu64 "],\"absolute\":%s,\"threshold\":%.6g",
		t->base_total, t->new_total, d->o->absolute ? "true" : "false",
		isfinite(d->o->threshold) ? d->o->threshold : 0);
	fputs(",\"test\":", f);
	utf8__put_json_str_html(f, d->r->test ? d->r->test : "");
	put_nodes(t, f);
	put_funcs(d->r, f);
	fputc('}', f);
	return ferror(f) ? -EIO : 0;
}
