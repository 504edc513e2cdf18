/* What the readers of in_*.c share: the input, its name for messages,
 * the line being read (in.c). Internal to reader.c and the readers. */
#ifndef FLAMEBPF_IN_H
#define FLAMEBPF_IN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "profile/profile.h"
#include "reader.h"

/* Progress is told every this many bytes read. */
#define IN_REPORT_STEP (4 * 1024 * 1024)

struct in_ctx {
	FILE *f;
	const char *name; /* "'path'" or "standard input" */
	const struct reader_opts *o;
	struct reader_stats *st;
	char *err; /* READER_ERR_LEN bytes */
	struct profile *p;
	uint64_t line;	       /* number of the line last read, from 1 */
	uint64_t done, total;  /* bytes read, input size (0: unknown) */
	uint64_t next_report;  /* when done passes it, progress is called */
	bool last_had_newline; /* the line last read ended in '\n' */
	char *buf;	       /* the line last read, its '\n' (and '\r') removed */
	char *blk;	       /* what in__getline read ahead: [pos, end) not yet handed out */
	/* Where in__getline reads, when not through f: up to want bytes,
	 * fewer only at the end; returns the count or -errno. */
	ssize_t (*read)(void *arg, char *buf, size_t want);
	void *read_arg;
	int range_fd; /* with range_end: in__getline reads [range_at, range_end) */
	uint64_t range_at, range_end;
	size_t pos, end, cap;
	bool eof;
};

/* Formats "NAME line N: MSG" into c->err. Returns -EINVAL. */
int in__fail(struct in_ctx *c, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Formats "NAME: MSG" into c->err. Returns err. */
int in__fail_at(struct in_ctx *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reads the next line into c->buf, which holds it until the next call (the
 * reader may write into it). Returns its length, -1 at the end of the input,
 * or -EIO (c->err says it) when reading failed. */
ssize_t in__getline(struct in_ctx *c);

/* The input read ahead that no line handed out yet holds, without reading
 * more: [*s, *s + return value). A reader may take whole lines of it at
 * once with in__take instead of in__getline, and write into them. */
size_t in__unread(struct in_ctx *c, char **s);

/* Takes n bytes of what in__unread showed, nlines whole lines (each with its
 * '\n'), as if in__getline had read them. */
void in__take(struct in_ctx *c, size_t n, uint64_t nlines);

/* Tells progress for n more bytes read. */
void in__advance(struct in_ctx *c, size_t n);

/* The failure for -ENOMEM (and others that are not about the content). */
int in__fail_errno(struct in_ctx *c, int err);

struct json_object;

/* The array a JSON document is made of, or that its top object holds under
 * array_key, element by element; and the top object's member_key (NULL for
 * none). The objects are freed after the calls. */
struct json_split {
	const char *array_key, *member_key;
	int (*element)(void *arg, struct json_object *ev, size_t index);
	int (*member)(void *arg, struct json_object *value);
	void *arg;
};

/* Reads c->f to its end. Returns 0, or -errno with c->err set; the line of
 * a syntax error is named. During element(), c->line is where it starts. */
int in_json__split(struct in_ctx *c, const struct json_split *js);

/* A line that is no part of a record (what one is: why, in words):
 * skipped, counted, the first one named. The peers (stackcollapse-perf.pl,
 * inferno, flamegraph.pl) skip them too; one odd line must not cost the
 * whole file. Returns 0. */
int in__skip_line(struct in_ctx *c, const char *why);

int in_folded__read(struct in_ctx *c);
int in_perf__read(struct in_ctx *c);
int in_chrome__read(struct in_ctx *c);
int in_html__read(struct in_ctx *c);

/* What the first bytes of an input are, where they are not text. */
enum in_kind {
	IN_KIND_TEXT,
	IN_KIND_PPROF,	/* a gzip'd profile.proto: written, never read, here */
	IN_KIND_GZIP,	/* other gzip'd data */
	IN_KIND_BINARY, /* a NUL byte in them */
};

enum in_kind in__kind(const char *buf, size_t len);

/* Whether line (NUL-terminated, no '\n') is a `perf script` record header
 * with a timestamp; for telling the format. */
bool in_perf__is_header(const char *line);
/* Whether it is a frame line of a callchain ("\tADDR SYMBOL (DSO)"). */
bool in_perf__is_frame(const char *line);
/* Whether the two lines start a record in the layout of old perf versions:
 * a header without a time, its frames not indented. */
bool in_perf__starts_record(const char *first, const char *second);

#endif
