// SPDX-License-Identifier: GPL-2.0
/* Opening an input, telling its format from its first lines, and handing
 * it to the reader of that format (in_*.c). The first bytes are read ahead
 * to look at, then replayed to the reader through a stdio cookie, so
 * standard input (a pipe) works as well as a file. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "in.h"
#include "reader.h"

#define PEEK_MIN   (64 * 1024)
#define PEEK_MAX   (4 * 1024 * 1024) /* a first line longer than this is not looked at whole */
#define SPLIT_MIN  (64ULL << 20)     /* perf script read as two halves from this size */
#define SPLIT_LOOK (64 * 1024)	     /* how far past the middle a record must end */

struct reader {
	int fd;
	char *path;
	char name[300]; /* for messages */
	char *peek;	/* read ahead, replayed first */
	size_t npeek, off;
	uint64_t size; /* 0 when unknown */
	FILE *f;
	enum in_format format;
};

static const char *const format_names[] = {
	[IN_FOLDED] = "folded",
	[IN_PERF] = "perf script",
	[IN_CHROME] = "chrome JSON",
	[IN_HTML] = "HTML report",
};

const char *reader__format_name(enum in_format f)
{
	return f <= IN_HTML ? format_names[f] : "?";
}

enum in_format reader__format(const struct reader *r)
{
	return r->format;
}

/* ---- telling the format ---- */

static const char *skip_blank_lines(const char *s, const char *end)
{
	const char *line = s;

	for (; s < end; s++) {
		if (*s == '\n')
			line = s + 1;
		else if (*s != ' ' && *s != '\t' && *s != '\r')
			return line;
	}
	return end;
}

/* Past blank lines and comments ('#' lines: perf script's header, or a
 * note atop a folded file), to the first line that says the format. */
static const char *skip_comment_lines(const char *s, const char *end)
{
	for (s = skip_blank_lines(s, end); s < end && *s == '#';) {
		const char *nl = memchr(s, '\n', end - s);

		s = skip_blank_lines(nl ? nl + 1 : end, end);
	}
	return s;
}

/* Copies the line at s (without '\n' and '\r') into a new string. */
static char *line_at(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', end - s);
	size_t n = (nl ? nl : end) - s;

	if (n && s[n - 1] == '\r')
		n--;
	return strndup(s, n);
}

/* "<!DOCTYPE html" or "<html", in any case. */
static bool is_html_start(const char *s, const char *end)
{
	return (end - s >= 14 && !strncasecmp(s, "<!doctype html", 14)) ||
	       (end - s >= 5 && !strncasecmp(s, "<html", 5));
}

static bool is_json_start(const char *s, const char *end)
{
	if (*s == '{')
		return true;
	if (*s != '[')
		return false;
	/* "[unknown];main 3" is folded: an array opens an object or closes */
	for (s++; s < end && strchr(" \t\r\n", *s); s++)
		;
	return s == end || *s == '{' || *s == ']';
}

/* A folded line ends in " COUNT". */
static bool ends_in_count(const char *line)
{
	const char *sp = strrchr(line, ' ');

	return sp && sp != line && sp[1] && strspn(sp + 1, "0123456789") == strlen(sp + 1);
}

static int detect_lines(const char *first, const char *second, enum in_format *f)
{
	if (in_perf__is_header(first) || first[0] == ' ' || first[0] == '\t' ||
	    (second && (in_perf__is_frame(second) || in_perf__starts_record(first, second))))
		*f = IN_PERF;
	else if (ends_in_count(first) || strchr(first, ';'))
		*f = IN_FOLDED;
	else
		return -EINVAL;
	return 0;
}

int reader__detect(const char *buf, size_t len, enum in_format *f)
{
	const char *end = buf + len, *s = buf, *nl;
	char *first, *second = NULL;
	int err;

	if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	s = skip_blank_lines(s, end);
	if (s == end)
		return -ENODATA;
	if (is_html_start(s + strspn(s, " \t\r"), end)) {
		*f = IN_HTML;
		return 0;
	}
	if (is_json_start(s + strspn(s, " \t\r"), end)) {
		*f = IN_CHROME;
		return 0;
	}
	if (*s == '#') {
		s = skip_comment_lines(s, end);
		if (s == end) { /* nothing but comments: perf script's header alone */
			*f = IN_PERF;
			return 0;
		}
	}
	first = line_at(s, end);
	nl = memchr(s, '\n', end - s);
	if (nl && nl + 1 < end)
		second = line_at(nl + 1, end);
	err = first ? detect_lines(first, second, f) : -ENOMEM;
	free(first);
	free(second);
	return err;
}

/* ---- the input ---- */

static ssize_t cookie_read(void *arg, char *buf, size_t size)
{
	struct reader *r = arg;
	ssize_t n;

	if (r->off < r->npeek) {
		n = r->npeek - r->off < size ? r->npeek - r->off : size;
		memcpy(buf, r->peek + r->off, n);
		r->off += n;
		return n;
	}
	do
		n = read(r->fd, buf, size);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Reads up to want bytes, fewer only at the end of the input, without
 * stdio: its cookie streams copy everything once more and read in pieces
 * of a few kilobytes, a system call each. Returns the count or -errno. */
static ssize_t read_full(void *arg, char *buf, size_t want)
{
	struct reader *r = arg;
	size_t got = 0;

	while (got < want) {
		ssize_t n = cookie_read(r, buf + got, want - got);

		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static bool two_lines(const char *s, size_t n)
{
	const char *end = s + n, *nl;

	s = skip_comment_lines(s, end);
	nl = s < end ? memchr(s, '\n', end - s) : NULL;
	return nl && nl + 1 < end && memchr(nl + 1, '\n', end - nl - 1);
}

/* Reads ahead until two whole lines (or the end) are there to look at. */
static int peek(struct reader *r)
{
	size_t cap = 0;
	ssize_t n = 1;

	while (n > 0 && r->npeek < PEEK_MAX && !(r->npeek && two_lines(r->peek, r->npeek))) {
		if (r->npeek == cap) {
			char *grown = realloc(r->peek, cap = cap ? cap * 2 : PEEK_MIN);

			if (!grown)
				return -ENOMEM;
			r->peek = grown;
		}
		do
			n = read(r->fd, r->peek + r->npeek, cap - r->npeek);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		r->npeek += n;
	}
	return 0;
}

static int open_fd(struct reader *r, const char *path, char *err)
{
	struct stat st;

	r->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (r->fd < 0 || fstat(r->fd, &st)) {
		int e = errno;

		snprintf(err, READER_ERR_LEN, "cannot open %s: %s", r->name, strerror(e));
		return -e;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, READER_ERR_LEN, "cannot read %s: %s", r->name, strerror(EISDIR));
		return -EISDIR;
	}
	r->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	return 0;
}

#define INPUTS "folded stacks, perf script text, a chrome trace or a flamebpf HTML report"

/* A compressed input is refused before its bytes are taken for lines. */
static int refuse_gzip(const struct reader *r, enum in_kind kind, char *err)
{
	if (kind == IN_KIND_PPROF)
		snprintf(err, READER_ERR_LEN,
			 "%s is a pprof profile (gzip'd protobuf): flamebpf writes pprof but "
			 "does not read it (it reads " INPUTS ")",
			 r->name);
	else
		snprintf(err, READER_ERR_LEN,
			 "%s is gzip-compressed: decompress it first (gunzip it, or pipe "
			 "zcat's output to '-')",
			 r->name);
	return -EINVAL;
}

static void say_not_profile(const struct reader *r, enum in_kind kind, char *err)
{
	if (kind == IN_KIND_BINARY)
		snprintf(err, READER_ERR_LEN, "%s is binary data, not a profile (" INPUTS ")",
			 r->name);
	else
		snprintf(err, READER_ERR_LEN, "%s line 1: not a profile (" INPUTS ")", r->name);
}

static int detect(struct reader *r, char *err)
{
	const char *buf;
	enum in_kind kind;
	int ret = peek(r);

	if (ret) {
		snprintf(err, READER_ERR_LEN, "cannot read %s: %s", r->name, strerror(-ret));
		return ret;
	}
	buf = r->peek ? r->peek : "";
	kind = in__kind(buf, r->npeek);
	if (kind == IN_KIND_PPROF || kind == IN_KIND_GZIP)
		return refuse_gzip(r, kind, err);
	ret = reader__detect(buf, r->npeek, &r->format);
	if (ret == -ENODATA)
		snprintf(err, READER_ERR_LEN, "%s is empty: no stacks in it", r->name);
	else if (ret == -EINVAL)
		say_not_profile(r, kind, err);
	return ret;
}

int reader__open(struct reader **out, const char *path, char err[READER_ERR_LEN])
{
	static const cookie_io_functions_t io = { .read = cookie_read };
	struct reader *r = calloc(1, sizeof(*r));
	int ret = -ENOMEM;

	if (!r || !(r->path = strdup(path)))
		goto fail;
	r->fd = -1;
	if (strcmp(path, "-"))
		snprintf(r->name, sizeof(r->name), "'%s'", path);
	else
		snprintf(r->name, sizeof(r->name), "standard input");
	ret = open_fd(r, path, err);
	if (!ret)
		ret = detect(r, err);
	if (ret)
		goto fail;
	r->f = fopencookie(r, "r", io);
	if (!r->f)
		goto fail;
	*out = r;
	return 0;
fail:
	if (ret == -ENOMEM)
		snprintf(err, READER_ERR_LEN, "cannot read %s: %s", r ? r->name : path,
			 strerror(ENOMEM));
	reader__close(r);
	return ret;
}

void reader__close(struct reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	if (r->fd > STDIN_FILENO)
		close(r->fd);
	free(r->peek);
	free(r->path);
	free(r);
}

static enum profile_unit unit_of(enum in_format f)
{
	/* folded counts could be samples or ns: nothing in the file says */
	return f == IN_CHROME ? UNIT_NANOSECONDS : UNIT_SAMPLES;
}

static int has_stacks(struct in_ctx *c)
{
	if (profile__nr_stacks(c->p) && (profile__total_weight(c->p) || profile__nr_events(c->p)))
		return 0;
	return in__fail_at(c, -ENODATA, "no stacks in it: nothing to render");
}

/* ---- a large perf script read in two halves at once ---- */

/* A half of the input, read on a thread of its own. */
struct half {
	struct in_ctx c;
	struct reader_opts o;
	struct reader_stats st;
	char err[READER_ERR_LEN];
	int ret;
};

static void *read_half(void *arg)
{
	struct half *h = arg;

	h->ret = in_perf__read(&h->c);
	return NULL;
}

/* Where the second half starts: just after the first empty line (the end
 * of a record) past the middle, or 0 when none is near. */
static uint64_t split_point(const struct reader *r)
{
	char buf[SPLIT_LOOK];
	uint64_t mid = r->size / 2;
	ssize_t n = pread(r->fd, buf, sizeof(buf), (off_t)mid);
	const char *blank = n > 1 ? memmem(buf, (size_t)n, "\n\n", 2) : NULL;

	return blank ? mid + (uint64_t)(blank - buf) + 2 : 0;
}

/* A half without an event agrees with any, but for time off the CPU
 * (offcpu-time records), which the other half must have seen too. */
static bool same_event(const struct profile *a, const struct profile *b)
{
	const char *x = profile__meta(a)->event, *y = profile__meta(b)->event;

	if (profile__unit(a) != profile__unit(b))
		return false;
	return !*x || !*y || !strcmp(x, y);
}

/* The second half's figures added to the first's, and its time span. */
static int join_halves(struct in_ctx *a, const struct half *b)
{
	struct reader_stats *st = a->st;
	struct profile_meta m = *profile__meta(a->p);
	int err = profile__merge(a->p, b->c.p);

	st->records += b->st.records;
	st->other_events += b->st.other_events;
	st->no_pid += b->st.no_pid;
	st->cut_short = b->st.cut_short;
	st->unclosed = b->st.unclosed;
	if (!st->other_event[0])
		memcpy(st->other_event, b->st.other_event, sizeof(st->other_event));
	if (b->st.last_ts > st->last_ts)
		st->last_ts = b->st.last_ts;
	if (!st->first_ts || (b->st.first_ts && b->st.first_ts < st->first_ts))
		st->first_ts = b->st.first_ts;
	m.secs = st->last_ts > st->first_ts ? (st->last_ts - st->first_ts) / 1e9 : 0;
	return err ? err : profile__set_meta(a->p, &m);
}

/* Reads a large perf script file as two halves on two CPUs, each into a
 * profile of its own, then merges them: what one record makes does not
 * depend on those before it, but for the event kept (the first one seen),
 * which the halves must agree on. -EAGAIN when the file cannot be split
 * this way, or either half failed: the caller then reads it whole, which
 * also names the line of an error exactly. */
static int read_split(struct reader *r, struct in_ctx *a)
{
	struct half *b = calloc(1, sizeof(*b));
	uint64_t at = split_point(r);
	pthread_t th;
	int ret = -EAGAIN;

	if (!b || !at || at >= r->size)
		goto out;
	b->o = *a->o;
	b->o.progress = NULL; /* the first half tells it for both */
	b->c = (struct in_ctx){ .name = a->name,
				.o = &b->o,
				.st = &b->st,
				.err = b->err,
				.range_fd = r->fd,
				.range_at = at,
				.range_end = r->size };
	a->range_fd = r->fd;
	a->range_end = at;
	a->total = at;
	b->c.p = profile__new(a->p ? profile__unit(a->p) : UNIT_SAMPLES);
	if (!b->c.p || pthread_create(&th, NULL, read_half, b))
		goto out;
	ret = in_perf__read(a);
	pthread_join(th, NULL);
	/* a skipped line is named by its number, which only the whole file
	 * tells */
	if (!ret && !b->ret && same_event(a->p, b->c.p) && !a->st->skipped && !b->st.skipped)
		ret = join_halves(a, b);
	else
		ret = -EAGAIN;
	a->st->halves = ret ? 1 : 2;
out:
	if (b) {
		profile__free(b->c.p);
		free(b->c.blk);
	}
	free(b);
	return ret;
}

static bool splittable(const struct reader *r, const struct reader_opts *o)
{
	return r->format == IN_PERF && r->size >= (o->split_min ? o->split_min : SPLIT_MIN) &&
	       !o->keep_events && sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/* A context reading r from its start, into a new profile. */
static int new_ctx(struct in_ctx *c, struct reader *r, const struct reader_opts *o,
		   struct reader_stats *st, char *err)
{
	/* the line readers read the input directly; chrome's JSON parser
	 * through the stream */
	*c = (struct in_ctx){ .f = r->f,
			      .read = r->format == IN_CHROME ? NULL : read_full,
			      .read_arg = r,
			      .name = r->name,
			      .o = o,
			      .st = st,
			      .err = err };
	memset(st, 0, sizeof(*st));
	st->halves = 1;
	c->total = r->size;
	c->next_report = IN_REPORT_STEP;
	c->p = profile__new(unit_of(r->format));
	return c->p ? 0 : in__fail_errno(c, -ENOMEM);
}

int reader__read(struct reader *r, const struct reader_opts *o, struct profile **out,
		 struct reader_stats *st, char err[READER_ERR_LEN])
{
	static int (*const readers[])(struct in_ctx *) = {
		[IN_FOLDED] = in_folded__read,
		[IN_PERF] = in_perf__read,
		[IN_CHROME] = in_chrome__read,
		[IN_HTML] = in_html__read,
	};
	struct in_ctx c;
	int ret = new_ctx(&c, r, o, st, err);

	if (ret)
		return ret;
	ret = splittable(r, o) ? read_split(r, &c) : -EAGAIN;
	if (ret == -EAGAIN) {
		profile__free(c.p);
		free(c.blk);
		ret = new_ctx(&c, r, o, st, err);
		if (ret)
			return ret;
		ret = readers[r->format](&c);
	}
	if (!ret)
		ret = has_stacks(&c);
	free(c.blk);
	if (ret) {
		profile__free(c.p);
		return ret;
	}
	*out = c.p;
	return 0;
}

int reader__load(const char *path, const struct reader_opts *o, struct profile **out,
		 enum in_format *format, struct reader_stats *st, char err[READER_ERR_LEN])
{
	struct reader *r;
	int ret = reader__open(&r, path, err);

	if (ret)
		return ret;
	if (format)
		*format = r->format;
	ret = reader__read(r, o, out, st, err);
	reader__close(r);
	return ret;
}
