/* The command line, parsed and checked; nothing here touches the system. */
#ifndef FLAMEBPF_OPTIONS_H
#define FLAMEBPF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "capture/source.h"
#include "formats/sink.h"
#include "push.h"

#define OPTIONS_MAX_OUTPUTS 8
/* the files written: with several -e, an -o a file per event */
#define OPTIONS_MAX_FILES (OPTIONS_MAX_OUTPUTS * PROFILE_MAX_TYPES)

/* --continuous: a file per interval, rotated. */
struct continuous_opts {
	bool on;
	double interval;    /* seconds; OPTIONS_INTERVAL when not given */
	size_t keep;	    /* --keep N: the newest N files kept; 0: all */
	uint64_t keep_size; /* --keep-size: bytes of them kept; 0: no bound */
};

#define OPTIONS_INTERVAL      60.0
#define OPTIONS_MAX_KEEP_SIZE (1ULL << 60)

struct options {
	/* what the capture sources take: -F, -f, -l, -d, -p, COMMAND, -U, -K,
	 * --max-calls, --unwind, the symbolizer's switches; and what the
	 * outputs ask of them (timeline, want_args) */
	struct source_opts capture;
	const char *output; /* the first -o; "-" when none */
	enum out_format format;
	/* every -o, with its format (several: one capture, many views); with
	 * several -e, each output but pprof is a file per event (or the
	 * --show one's), whose type it writes; -1: the whole profile */
	const char *outputs[OPTIONS_MAX_FILES];
	enum out_format formats[OPTIONS_MAX_FILES];
	int output_types[OPTIONS_MAX_FILES];
	char *owned[OPTIONS_MAX_FILES]; /* the names made for them */
	size_t noutputs;
	const char *show; /* --show EVENT: the one of several -e the graphs show */
	enum root_style root;
	size_t top; /* --top N: the N processes (threads with --tids) that hold most; 0: all */
	unsigned int heatmap_rows; /* --heatmap: SVG outputs are heatmaps of so many rows; 0: not */
	const char *weight_arg;	   /* --weight, checked once -e is known */
	struct push_opts push;	   /* --push and its options; url NULL: none */
	bool flamechart;
	bool wall; /* --wall: --off-cpu with -F's samples (which -F --off-cpu is too) */
	struct continuous_opts cont;
	int verbose;
	bool help, version;
};

#define OPTIONS_ERR_LEN 512 /* room for a tracepoint's fields */

/* Parses argv. Returns 0, or -EINVAL with a one-line message in err (without
 * the "flamebpf: " prefix) for a usage error. o->capture.pids must be freed with
 * options__free(). */
int options__parse(int argc, char **argv, struct options *o, char *err);

/* Parses "99", "99hz", "99Hz", "1khz": returns 0 and *hz, or -EINVAL. */
int options__parse_freq(const char *s, unsigned int *hz);

/* Parses a time with its unit ("500us", "1ms", "2s", "100ns") into ns.
 * Returns 0 or -EINVAL (no unit, not positive, under 1 ns, too large). */
int options__parse_time_ns(const char *s, uint64_t *ns);

/* Parses seconds, fractions allowed, > 0. Returns 0 or -EINVAL. */
int options__parse_duration(const char *s, double *secs);

/* Parses a count, 1 to max. Returns 0 or -EINVAL. */
int options__parse_count(const char *s, size_t max, size_t *n);

/* Calls (--max-calls), 1 to OPTIONS_MAX_CALLS; processes (--top), 1 to
 * OPTIONS_MAX_TOP. */
#define OPTIONS_MAX_CALLS  100000000
#define OPTIONS_MAX_TOP	   1000000
#define OPTIONS_MAX_PERIOD 1000000000 /* -c */
#define OPTIONS_EVENT_FREQ 99	      /* -e cpu-clock without -F */

/* --heatmap-rows: the slices of a second, 1 to 1000; 50 (20 ms) by default. */
#define OPTIONS_HEATMAP_ROWS 50

/* The options a capture and render share, parsed alike: --heatmap (arg
 * NULL) and --heatmap-rows ARG into *rows, --top ARG into *top. Return 0,
 * or -EINVAL with the message in err. */
int options__heatmap(const char *arg, unsigned int *rows, char *err);
int options__top(const char *arg, size_t *top, char *err);

/* Parses a size in bytes, "524288", "512k", "512KiB", "1m", "1G" (powers
 * of 1024), 1 to OPTIONS_MAX_ALLOC_SAMPLE. Returns 0 or -EINVAL. */
#define OPTIONS_MAX_ALLOC_SAMPLE (1ULL << 30)
int options__parse_bytes(const char *s, uint64_t *bytes);
/* The same, 1 to max bytes. */
int options__parse_bytes_max(const char *s, uint64_t max, uint64_t *bytes);

/* ... up to max bytes. */
int options__parse_bytes_max(const char *s, uint64_t max, uint64_t *bytes);

/* Parses "PID[,PID...]". Returns 0, -EINVAL, or -ENOMEM. */
int options__parse_pids(const char *s, pid_t **pids, size_t *n);

void options__usage(FILE *f);
void options__free(struct options *o);

#endif
