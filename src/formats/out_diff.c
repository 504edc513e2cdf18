// SPDX-License-Identifier: GPL-2.0
/* The table of `flamebpf diff` (see out_diff.h). Text and markdown share
 * their cells; JSON gives the raw numbers, shares in percent. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/utf8.h"
#include "numfmt.h"
#include "out_diff.h"

#define P_MIN	    1e-16 /* smaller p-values print as "<1e-16": doubles say no more */
#define SUMMARY_MAX 5	  /* regressions named in the summary line */
#define CELL	    32

enum { BASE, NEW };

struct cells {
	char change[CELL], incl[2][CELL], self[2][CELL], p[CELL];
};

int diff_out__parse(const char *name, enum diff_format *f)
{
	if (!strcmp(name, "text"))
		*f = DIFF_TEXT;
	else if (!strcmp(name, "json"))
		*f = DIFF_JSON;
	else if (!strcmp(name, "markdown") || !strcmp(name, "md"))
		*f = DIFF_MARKDOWN;
	else
		return -EINVAL;
	return 0;
}

/* Three significant digits: "812 ns", "12.3 ms", "1.23 s". */
static void fmt_ns(char *buf, size_t size, uint64_t ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	double v = ns;
	size_t u = 0;

	while (v >= 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, size, "%.*f %s", u && v < 100 ? (v < 10 ? 2 : 1) : 0, v, units[u]);
}

static void fmt_weight(char *buf, size_t size, uint64_t w, enum profile_unit unit)
{
	if (unit == UNIT_SAMPLES)
		numfmt__count(w, buf, size);
	else
		fmt_ns(buf, size, w);
}

static void fmt_change(char *buf, size_t size, const struct diff_func *d, bool absolute)
{
	if (absolute && isinf(d->change))
		snprintf(buf, size, "new");
	else if (absolute)
		snprintf(buf, size, "%+.1f%%", d->change);
	else
		snprintf(buf, size, "%+.1f pt", d->change);
}

static void fmt_p(char *buf, size_t size, const struct diff_func *d)
{
	if (d->status == DIFF_FEW)
		snprintf(buf, size, "-");
	else if (d->p < P_MIN)
		snprintf(buf, size, "<%.0e", P_MIN);
	else
		snprintf(buf, size, "%.2g", d->p);
}

/* Shares, or with --absolute the weights themselves. */
static void cells_of(const struct diff_report *rep, const struct diff_func *d, struct cells *c)
{
	const struct diff_side *s[2] = { &d->base, &d->new };
	bool absolute = rep->o->absolute;

	for (int i = BASE; i <= NEW; i++) {
		if (absolute) {
			fmt_weight(c->incl[i], CELL, s[i]->incl, rep->r->unit);
			fmt_weight(c->self[i], CELL, s[i]->self, rep->r->unit);
		} else {
			snprintf(c->incl[i], CELL, "%.1f%%", s[i]->incl_pct);
			snprintf(c->self[i], CELL, "%.1f%%", s[i]->self_pct);
		}
	}
	fmt_change(c->change, CELL, d, absolute);
	fmt_p(c->p, CELL, d);
}

/* Every regression, then up to top rows in all. */
static size_t nshown(const struct diff_report *rep)
{
	size_t n = rep->top && rep->top < rep->r->nfuncs ? rep->top : rep->r->nfuncs;

	return n > rep->r->nregressions ? n : rep->r->nregressions;
}

/* Off the CPU: "1.23 s off the CPU in 47 blocks", the blocks only when
 * known (not in a folded file). */
static void fmt_time(char *buf, size_t size, const struct diff_result *r, int side)
{
	bool wall = r->mode == DIFF_WALL;
	char w[CELL], n[CELL];
	int len;

	fmt_ns(w, sizeof(w), r->weight[side]);
	len = snprintf(buf, size, "%s %s", w,
		       wall ? "of wall time (on and off the CPU)" : "off the CPU");
	if (!r->seen[side] || len < 0 || (size_t)len >= size)
		return;
	numfmt__count(r->seen[side], n, sizeof(n));
	snprintf(buf + len, size - len, " in %s %s", n, wall ? "samples and blocks" : "blocks");
}

/* "2,992 samples", "1.23 s in 4,567 calls", "1.23 s off the CPU in 47
 * blocks". */
static void fmt_total(char *buf, size_t size, const struct diff_result *r, int side)
{
	char w[CELL], n[CELL];

	fmt_weight(w, sizeof(w), r->weight[side], r->unit);
	numfmt__count(r->count[side], n, sizeof(n));
	if (r->mode == DIFF_OFFCPU || r->mode == DIFF_WALL) {
		fmt_time(buf, size, r, side);
	} else if (r->mode == DIFF_MEMORY) {
		numfmt__count(r->seen[side], n, sizeof(n));
		snprintf(buf, size, "%s bytes in %s allocations", w, n);
	} else if (r->unit == UNIT_SAMPLES) {
		snprintf(buf, size, "%s %s", w, r->events ? r->events : "samples");
	} else {
		snprintf(buf, size, "%s in %s calls", w, n);
	}
}

/* What fails the job, in words. */
static void fmt_rule(char *buf, size_t size, const struct diff_report *rep)
{
	const struct diff_opts *o = rep->o;

	if (o->absolute)
		snprintf(buf, size, "inclusive %s up more than %g%%, significantly",
			 rep->r->mode == DIFF_MEMORY	? "bytes"
			 : rep->r->unit == UNIT_SAMPLES ? "samples"
							: "time",
			 o->threshold);
	else
		snprintf(buf, size, "inclusive share up more than %g points, significantly",
			 o->threshold);
}

/* "quanta of 1.00 ms", or "calls" and the like. */
static void fmt_obs(char *buf, size_t size, const struct diff_result *r)
{
	char q[CELL];

	if (!r->quantum) {
		snprintf(buf, size, "%s", diff__obs_name(r));
		return;
	}
	if (r->mode == DIFF_MEMORY) {
		snprintf(buf, size, "%s of %" PRIu64 " bytes", diff__obs_name(r), r->quantum);
		return;
	}
	fmt_ns(q, sizeof(q), r->quantum);
	snprintf(buf, size, "%s of %s", diff__obs_name(r), q);
}

static void fmt_test(char *buf, size_t size, const struct diff_report *rep)
{
	const struct diff_result *r = rep->r;
	char obs[64];

	fmt_obs(obs, sizeof(obs), r);
	snprintf(buf, size,
		 "%s, one-sided, alpha %g over %zu functions tested (Bonferroni); fewer than "
		 "%" PRIu64 " %s in both: not tested",
		 r->test, rep->o->alpha, r->ntested, rep->o->min_samples, obs);
}

/* ---- text ---- */

static void text_head(const struct diff_report *rep, FILE *f)
{
	char total[2][96], line[512];

	fmt_total(total[BASE], sizeof(total[BASE]), rep->r, BASE);
	fmt_total(total[NEW], sizeof(total[NEW]), rep->r, NEW);
	fprintf(f, "base  %s: %s\nnew   %s: %s\n", rep->base, total[BASE], rep->new, total[NEW]);
	fmt_test(line, sizeof(line), rep);
	fprintf(f, "test  %s\n", line);
	fmt_rule(line, sizeof(line), rep);
	fprintf(f, "fail  %s\n\n", line);
	fprintf(f, "%9s %11s %11s %11s %11s %8s  %-11s %s\n", "change",
		rep->o->absolute ? "incl base" : "incl% base",
		rep->o->absolute ? "incl new" : "incl% new",
		rep->o->absolute ? "self base" : "self% base",
		rep->o->absolute ? "self new" : "self% new", "p-value", "verdict", "function");
}

/* "1 regression: a (+9.1 pt), b (+6.0 pt)" or "no regression". */
static void text_summary(const struct diff_report *rep, FILE *f)
{
	const struct diff_result *r = rep->r;
	char change[CELL];

	if (!r->nregressions) {
		fputs("no regression\n", f);
		return;
	}
	fprintf(f, "%zu regression%s:", r->nregressions, r->nregressions == 1 ? "" : "s");
	for (size_t i = 0; i < r->nregressions && i < SUMMARY_MAX; i++) {
		fmt_change(change, sizeof(change), &r->funcs[i], rep->o->absolute);
		fprintf(f, "%s %s (%s)", i ? "," : "", r->funcs[i].name, change);
	}
	fputs(r->nregressions > SUMMARY_MAX ? ", ...\n" : "\n", f);
}

static void write_text(const struct diff_report *rep, FILE *f)
{
	size_t n = nshown(rep);
	struct cells c;

	text_head(rep, f);
	for (size_t i = 0; i < n; i++) {
		const struct diff_func *d = &rep->r->funcs[i];

		cells_of(rep, d, &c);
		fprintf(f, "%9s %11s %11s %11s %11s %8s  %-11s %s\n", c.change, c.incl[BASE],
			c.incl[NEW], c.self[BASE], c.self[NEW], c.p,
			diff__status_name(d->status, rep->r), d->name);
	}
	if (n < rep->r->nfuncs)
		fprintf(f, "(%zu of %zu functions shown; --top 0 shows all)\n", n, rep->r->nfuncs);
	fputc('\n', f);
	text_summary(rep, f);
}

/* ---- markdown ---- */

/* A code span that survives a table cell: '|' escaped, '`' (which would
 * end it) as '\''. */
static void md_code(FILE *f, const char *s)
{
	fputc('`', f);
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '`' ? '\'' : *s, f);
	}
	fputc('`', f);
}

static void md_head(const struct diff_report *rep, FILE *f)
{
	const struct diff_result *r = rep->r;

	if (r->nregressions)
		fprintf(f, "### flamebpf diff: %zu regression%s\n\n", r->nregressions,
			r->nregressions == 1 ? "" : "s");
	else
		fputs("### flamebpf diff: no regression\n\n", f);
	fprintf(f,
		"| change | %s base | %s new | self base | self new | p-value | verdict | "
		"function |\n|---:|---:|---:|---:|---:|---:|:---|:---|\n",
		rep->o->absolute ? "inclusive" : "incl. share",
		rep->o->absolute ? "inclusive" : "incl. share");
}

static void md_foot(const struct diff_report *rep, size_t n, FILE *f)
{
	char total[2][96], line[512];

	if (n < rep->r->nfuncs)
		fprintf(f, "\n%zu of %zu functions shown.\n", n, rep->r->nfuncs);
	fmt_total(total[BASE], sizeof(total[BASE]), rep->r, BASE);
	fmt_total(total[NEW], sizeof(total[NEW]), rep->r, NEW);
	fputs("\nBase ", f);
	md_code(f, rep->base);
	fprintf(f, ": %s; new ", total[BASE]);
	md_code(f, rep->new);
	fmt_rule(line, sizeof(line), rep);
	fprintf(f, ": %s. A regression: %s", total[NEW], line);
	fmt_test(line, sizeof(line), rep);
	fprintf(f, " (%s).\n", line);
}

static void write_markdown(const struct diff_report *rep, FILE *f)
{
	size_t n = nshown(rep);
	struct cells c;

	md_head(rep, f);
	for (size_t i = 0; i < n; i++) {
		const struct diff_func *d = &rep->r->funcs[i];
		bool bold = d->status == DIFF_REGRESSION;

		cells_of(rep, d, &c);
		fprintf(f, "| %s | %s | %s | %s | %s | %s | %s%s%s | ", c.change, c.incl[BASE],
			c.incl[NEW], c.self[BASE], c.self[NEW], c.p, bold ? "**" : "",
			diff__status_name(d->status, rep->r), bold ? "**" : "");
		md_code(f, d->name);
		fputs(" |\n", f);
	}
	md_foot(rep, n, f);
}

/* ---- json ---- */

static void json_side(FILE *f, const struct diff_side *s, const char *n_name)
{
	fprintf(f,
		"{\"inclusive_pct\":%.4f,\"self_pct\":%.4f,\"inclusive\":%" PRIu64
		",\"self\":%" PRIu64 ",\"%s\":%" PRIu64 "}",
		s->incl_pct, s->self_pct, s->incl, s->self, n_name, s->n);
}

/* The key of the observations' count: "samples", "calls", "blocks",
 * "events" (wall: blocks and samples), "quanta". */
static const char *json_obs(const struct diff_result *r)
{
	if (r->mode == DIFF_WALL && !r->quantum)
		return "events";
	return diff__obs_name(r);
}

static const char *json_mode(const struct diff_result *r)
{
	static const char *const names[] = {
		[DIFF_SAMPLES] = "sample", [DIFF_CALLS] = "trace",   [DIFF_OFFCPU] = "off-cpu",
		[DIFF_WALL] = "wall",	   [DIFF_MEMORY] = "memory",
	};

	return names[r->mode];
}

static void json_func(FILE *f, const struct diff_report *rep, const struct diff_func *d)
{
	const char *n_name = json_obs(rep->r);

	fputs("{\"name\":", f);
	utf8__put_json_str(f, d->name);
	fputs(",\"change\":", f);
	if (isfinite(d->change))
		fprintf(f, "%.4f", d->change);
	else
		fputs("null", f);
	if (d->status == DIFF_FEW)
		fputs(",\"p\":null", f);
	else
		fprintf(f, ",\"p\":%.6g", d->p);
	fprintf(f, ",\"verdict\":\"%s\",\"may_fail\":%s,\"base\":",
		d->status == DIFF_REGRESSION ? "regression" : diff__status_name(d->status, rep->r),
		d->may_fail ? "true" : "false");
	json_side(f, &d->base, n_name);
	fputs(",\"new\":", f);
	json_side(f, &d->new, n_name);
	fputc('}', f);
}

/* Off the CPU, "seen": its blocks and samples, null when not known. */
static void json_profile(FILE *f, const struct diff_report *rep, int side)
{
	const struct diff_result *r = rep->r;

	fputs("{\"file\":", f);
	utf8__put_json_str(f, side == BASE ? rep->base : rep->new);
	fprintf(f, ",\"weight\":%" PRIu64 ",\"%s\":%" PRIu64, r->weight[side], json_obs(r),
		r->count[side]);
	if (r->mode == DIFF_OFFCPU || r->mode == DIFF_WALL || r->mode == DIFF_MEMORY) {
		if (r->seen[side])
			fprintf(f, ",\"seen\":%" PRIu64, r->seen[side]);
		else
			fputs(",\"seen\":null", f);
	}
	fputc('}', f);
}

static void json_head(const struct diff_report *rep, FILE *f)
{
	const struct diff_result *r = rep->r;

	fputs("{\n\"base\":", f);
	json_profile(f, rep, BASE);
	fputs(",\n\"new\":", f);
	json_profile(f, rep, NEW);
	fprintf(f,
		",\n\"unit\":\"%s\",\"mode\":\"%s\",\"compare\":\"%s\",\"threshold\":%g,"
		"\"alpha\":%g,\"min_samples\":%" PRIu64 ",",
		r->mode == DIFF_MEMORY	  ? "bytes"
		: r->unit == UNIT_SAMPLES ? "samples"
					  : "nanoseconds",
		json_mode(r), rep->o->absolute ? "absolute" : "share", rep->o->threshold,
		rep->o->alpha, rep->o->min_samples);
	if (r->quantum)
		fprintf(f, "\"quantum_%s\":%" PRIu64 ",", r->mode == DIFF_MEMORY ? "bytes" : "ns",
			r->quantum);
	fputs("\n\"test\":", f);
	utf8__put_json_str(f, r->test);
	fprintf(f, ",\n\"tested\":%zu,\"regressions\":%zu,\"functions_total\":%zu,\n", r->ntested,
		r->nregressions, r->nfuncs);
}

static void write_json(const struct diff_report *rep, FILE *f)
{
	size_t n = nshown(rep);

	json_head(rep, f);
	fputs("\"functions\":[", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_func(f, rep, &rep->r->funcs[i]);
	}
	fputs("\n]}\n", f);
}

int diff_out__write(enum diff_format fmt, const struct diff_report *rep, FILE *f)
{
	if (fmt == DIFF_JSON)
		write_json(rep, f);
	else if (fmt == DIFF_MARKDOWN)
		write_markdown(rep, f);
	else
		write_text(rep, f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
