// SPDX-License-Identifier: GPL-2.0
/* --continuous: what becomes of each finished interval. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/sink.h"
#include "util/msg.h"
#include "util/output.h"
#include "continuous.h"

/* Writes output i of the interval, whole or not at all, into path. */
static int write_file(struct continuous *c, size_t i, const struct profile *p, const char *path)
{
	struct write_opts wo = { .root = c->o->root,
				 .flamechart = c->o->flamechart,
				 .heatmap_rows = c->o->heatmap_rows };
	struct output out = {};
	int err = output__open(&out, path);

	if (!err)
		err = sink__write(c->o->formats[i], p, &wo, out.f);
	if (err == -EIO && output__error(&out))
		err = output__error(&out);
	if (!err)
		err = output__commit(&out);
	output__abort(&out);
	return err;
}

static void say_rotation(const struct continuous *c, size_t i, const struct rotation *r)
{
	if (r->err)
		p_err("cannot rotate the files of '%s': %s", c->o->outputs[i], strerror(-r->err));
	if (r->removed && c->verbosity)
		p_err("  %zu old file%s removed (%" PRIu64 " bytes)", r->removed,
		      r->removed == 1 ? "" : "s", r->bytes);
}

/* The interval's start, as its messages give it. */
static void format_start(const struct interval *iv, char *when, size_t len)
{
	struct tm tm;

	localtime_r(&iv->start, &tm);
	strftime(when, len, "%F %T", &tm);
}

static void say_written(const struct continuous *c, const struct interval *iv,
			const struct profile *p, const char *path)
{
	struct stat st;
	char when[32];

	if (!c->verbosity)
		return;
	format_start(iv, when, sizeof(when));
	p_err("interval %lu (%s, %.2f s%s): %" PRIu64 " samples, '%s' (%lld bytes)", iv->n, when,
	      iv->secs, iv->last ? ", the last" : "", profile__total_weight(p), path,
	      stat(path, &st) ? -1LL : (long long)st.st_size);
}

/* The files of -o PATTERN: one per output; a file that cannot be written
 * loses the interval, which the run survives. */
static int take_files(void *arg, const struct profile *p, const struct interval *iv)
{
	struct continuous *c = arg;
	int lost = 0;

	for (size_t i = 0; i < c->npats; i++) {
		char path[PATH_MAX];
		struct rotation r;
		int err = name_pattern__make(&c->pats[i], iv->start, path, sizeof(path));

		if (!err)
			err = write_file(c, i, p, path);
		if (err) {
			p_err("cannot write '%s': %s: interval %lu lost (%lu so far)",
			      err == -ENAMETOOLONG ? c->o->outputs[i] : path, output__strerror(err),
			      iv->n, c->lost + 1);
			lost = err;
			continue;
		}
		say_written(c, iv, p, path);
		name_pattern__rotate(&c->pats[i], c->o->cont.keep, c->o->cont.keep_size, &r);
		say_rotation(c, i, &r);
	}
	return lost;
}

int continuous__init(struct continuous *c, const struct options *o, const char *host, int verbosity)
{
	int err = 0;

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->verbosity = verbosity;
	for (; c->npats < o->noutputs && !err; c->npats++)
		err = name_pattern__init(&c->pats[c->npats], o->outputs[c->npats], host);
	if (err) {
		p_err("cannot use -o '%s': %s", o->outputs[c->npats - 1], strerror(-err));
		return err;
	}
	return continuous__add_taker(
		c, &(struct interval_taker){ .name = "files", .take = take_files, .arg = c });
}

int continuous__add_taker(struct continuous *c, const struct interval_taker *t)
{
	if (c->ntakers == CONTINUOUS_MAX_TAKERS)
		return -ENOSPC;
	c->takers[c->ntakers++] = *t;
	return 0;
}

static void say_idle(const struct continuous *c, const struct interval *iv)
{
	char when[32];

	if (!c->verbosity)
		return;
	format_start(iv, when, sizeof(when));
	p_err("interval %lu (%s, %.2f s%s): nothing sampled, no file written", iv->n, when,
	      iv->secs, iv->last ? ", the last" : "");
}

void continuous__finish(struct continuous *c, const struct profile *p, const struct interval *iv)
{
	bool lost = false;

	if (!profile__nr_stacks(p)) {
		c->idle++;
		say_idle(c, iv);
		return;
	}

	for (size_t i = 0; i < c->ntakers; i++)
		lost |= c->takers[i].take(c->takers[i].arg, p, iv) != 0;
	c->lost += lost;
	c->written += !lost;
}

void continuous__free(struct continuous *c)
{
	for (size_t i = 0; i < c->npats; i++)
		name_pattern__free(&c->pats[i]);
	c->npats = 0;
}
