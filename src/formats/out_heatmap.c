// SPDX-License-Identifier: GPL-2.0
/*
 * The subsecond-offset heatmap as an SVG image, for places that cannot run
 * a page (a CI artifact, a chat): a column per second of the capture, left
 * to right, each cut into slices from the top (0 ms) down; the darker a
 * cell, the more happened in it. Each cell's title gives its time and
 * value; a scale below says what the darkest one holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "profile/heatmap.h"
#include "util/strbuf.h"
#include "numfmt.h"
#include "out_heatmap.h"
#include "out_svg.h"
#include "xml.h"

#define LEFT	  70 /* the row labels */
#define TOP	  60 /* title and subtitle */
#define BOTTOM	  80 /* the column labels and the scale */
#define RIGHT	  20
#define GRID_W	  1100 /* what the columns share, within the cell bounds */
#define GRID_H	  400
#define SCALE_W	  200
#define TITLE_MAX 160 /* characters */
#define VALUE_MAX 160 /* a value with its unit, in bytes */

struct heat_draw {
	const struct heatmap *h;
	FILE *f;
	double cw, ch; /* a cell's size */
};

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* White for nothing, then light orange to dark red-brown (FlameScope's
 * look), by share of the largest cell; any value at all is visible. */
static void cell_colour(uint64_t v, uint64_t max, int rgb[3])
{
	static const int stops[3][3] = { { 255, 237, 204 }, { 253, 141, 60 }, { 127, 39, 4 } };
	double t = max ? (double)v / max : 0;
	int k = t < 0.5 ? 0 : 1;
	double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;

	for (int i = 0; i < 3; i++)
		rgb[i] = (int)(stops[k][i] + (stops[k + 1][i] - stops[k][i]) * u + 0.5);
}

static void format_value(const struct heatmap *h, uint64_t v, char *buf, size_t size)
{
	char n[32];

	if (h->what == HEAT_NS) {
		numfmt__ns(v, buf, size);
		return;
	}
	numfmt__count(v, n, sizeof(n));
	if (h->what == HEAT_COUNTED) { /* "1,228,800 syscalls:sys_enter_write:count" */
		snprintf(buf, size, "%s %s", n, h->counted);
		return;
	}
	snprintf(buf, size, "%s %s%s", n,
		 h->what == HEAT_SAMPLES ? "sample"
		 : h->what == HEAT_BYTES ? "byte"
					 : "call",
		 v == 1 ? "" : "s");
}

static void put_cell(const struct heat_draw *d, uint32_t col, uint32_t row, uint64_t v)
{
	double from = col + (double)row / d->h->nrows, to = col + (row + 1.0) / d->h->nrows;
	char value[VALUE_MAX];
	int rgb[3];

	cell_colour(v, d->h->max, rgb);
	format_value(d->h, v, value, sizeof(value));
	fprintf(d->f,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\">"
		"<title>%.3f-%.3f s: ",
		LEFT + col * d->cw, TOP + row * d->ch, d->cw, d->ch, rgb[0], rgb[1], rgb[2], from,
		to);
	xml__put(d->f, value, VALUE_MAX);
	fputs("</title></rect>\n", d->f);
}

static void put_cells(const struct heat_draw *d)
{
	fputs("<g id=\"cells\">\n", d->f);
	for (uint32_t c = 0; c < d->h->ncols; c++)
		for (uint32_t r = 0; r < d->h->nrows; r++)
			if (d->h->cells[(size_t)c * d->h->nrows + r])
				put_cell(d, c, r, d->h->cells[(size_t)c * d->h->nrows + r]);
	fputs("</g>\n", d->f);
}

/* Seconds under the columns, at least 40 px apart; offsets beside the rows. */
static void put_axes(const struct heat_draw *d)
{
	uint32_t every = 1;
	double bottom = TOP + d->h->nrows * d->ch;

	while (every * d->cw < 40)
		every = every < 5 ? 5 : every * 2;
	for (uint32_t c = 0; c < d->h->ncols; c += every)
		fprintf(d->f, "<text x=\"%.1f\" y=\"%.1f\" class=\"col\">%u s</text>\n",
			LEFT + (c + 0.5) * d->cw, bottom + 16, c);
	for (int q = 0; q <= 4; q++)
		fprintf(d->f, "<text x=\"%d\" y=\"%.1f\" class=\"row\">%d ms</text>\n", LEFT - 6,
			TOP + d->h->nrows * d->ch * q / 4 + 4, q * 250);
}

/* A gradient from nothing to the largest cell, labelled with both. */
static void put_scale(const struct heat_draw *d)
{
	double y = TOP + d->h->nrows * d->ch + 32;
	char max[VALUE_MAX];
	int rgb[3];

	format_value(d->h, d->h->max, max, sizeof(max));
	fputs("<defs><linearGradient id=\"scale\">", d->f);
	for (int i = 0; i <= 4; i++) {
		cell_colour(d->h->max * i / 4, d->h->max, rgb);
		fprintf(d->f, "<stop offset=\"%.2f\" stop-color=\"rgb(%d,%d,%d)\"/>", i / 4.0,
			rgb[0], rgb[1], rgb[2]);
	}
	fprintf(d->f,
		"</linearGradient></defs>\n"
		"<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"12\" fill=\"url(#scale)\" "
		"stroke=\"rgb(160,160,160)\"/>\n"
		"<text x=\"%d\" y=\"%.1f\" class=\"row\">0</text>\n"
		"<text x=\"%d\" y=\"%.1f\" id=\"max\">",
		LEFT, y, SCALE_W, LEFT - 6, y + 10, LEFT + SCALE_W + 6, y + 10);
	xml__put(d->f, max, VALUE_MAX);
	fprintf(d->f, " in a cell of %.0f ms</text>\n", 1000.0 / d->h->nrows);
}

static const char *title_of(const struct heatmap *h, char *buf, size_t size)
{
	if (h->what == HEAT_COUNTED) {
		snprintf(buf, size, "Heatmap: %s by second and offset in it", h->counted);
		return buf;
	}
	return h->what == HEAT_SAMPLES ? "Heatmap: samples by second and offset in it"
	       : h->what == HEAT_CALLS ? "Heatmap: traced calls begun, by second and offset in it"
	       : h->what == HEAT_BYTES ? "Heatmap: bytes allocated, by second and offset in it"
				       : "Heatmap: thread time, by second and offset in it";
}

static void put_head(const struct heat_draw *d, double w, double ht, const char *sub)
{
	char title[TITLE_MAX + 64];

	fprintf(d->f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<!-- Subsecond-offset heatmap written by flamebpf %s: %u columns of %u rows -->\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style type=\"text/css\">\n"
		"text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
		"#title { text-anchor: middle; font-size: 17px; }\n"
		"#subtitle { text-anchor: middle; fill: rgb(90,90,90); }\n"
		".col { text-anchor: middle; }\n"
		".row { text-anchor: end; }\n"
		"#cells rect:hover { stroke: rgb(0,0,0); stroke-width: 1; }\n"
		"</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
		"fill=\"rgb(255,255,255)\"/>\n"
		"<text id=\"title\" x=\"%.1f\" y=\"24\">",
		FLAMEBPF_VERSION, d->h->ncols, d->h->nrows, w, ht, w, ht, w / 2);
	xml__put(d->f, title_of(d->h, title, sizeof(title)), TITLE_MAX);
	fprintf(d->f, "</text>\n<text id=\"subtitle\" x=\"%.1f\" y=\"44\">", w / 2);
	xml__put(d->f, sub, TITLE_MAX);
	fprintf(d->f,
		"</text>\n<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"none\" stroke=\"rgb(200,200,200)\"/>\n",
		LEFT, TOP, d->h->ncols * d->cw, d->h->nrows * d->ch);
}

int heatmap__write_svg(const struct profile *p, const struct write_opts *o, FILE *f)
{
	struct heatmap h;
	struct strbuf sub = {};
	struct heat_draw d = { &h, f, 0, 0 };
	int err = heatmap__build(p, o->heatmap_rows, &h);

	if (err)
		return err;
	if (svg__subtitle(p, &sub)) {
		err = -ENOMEM;
		goto out;
	}
	d.cw = clamp((double)GRID_W / h.ncols, 3, 24);
	d.ch = clamp((double)GRID_H / h.nrows, 2, 12);
	put_head(&d,
		 LEFT + h.ncols * d.cw + RIGHT > LEFT + SCALE_W + 300
			 ? LEFT + h.ncols * d.cw + RIGHT
			 : LEFT + SCALE_W + 300,
		 TOP + h.nrows * d.ch + BOTTOM, sub.s ? sub.s : "");
	put_cells(&d);
	put_axes(&d);
	put_scale(&d);
	fputs("</svg>\n", f);
	err = ferror(f) ? -EIO : 0;
out:
	strbuf__free(&sub);
	heatmap__free(&h);
	return err;
}
