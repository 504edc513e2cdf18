/* The file sources: a profile read back from folded stacks, `perf script`
 * text, a chrome trace (JSON) or flamebpf's HTML report. The format is told from the content, not
 * from the file name. Readers stream: memory grows with the unique stacks,
 * and with the events only when asked to keep them. */
#ifndef FLAMEBPF_READER_H
#define FLAMEBPF_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"

#define READER_ERR_LEN 512

enum in_format {
	IN_FOLDED,
	IN_PERF,
	IN_CHROME,
	IN_HTML, /* flamebpf's HTML report: the data it embeds */
};

struct reader_opts {
	bool keep_events; /* each sample or call with its time (timeline outputs) */
	/* with keep_events, for their durations alone (diff): perf records
	 * without a time are kept too, at time 0 */
	bool untimed_events;
	bool keep_ids;	 /* pid and tid on stacks; otherwise 0, so threads merge */
	bool keep_addrs; /* frame addresses and offsets; otherwise 0, so they merge */
	/* --pids/--tids: perf records without a PID are counted (their root
	 * is COMM-?), and Java names stay as they are (stackcollapse-perf.pl
	 * tidies them only under a root that is exactly "java"). */
	bool ids_in_root;
	/* perf: each record weighs its period (1 without one), like
	 * stackcollapse-perf.pl; otherwise 1, a sample, as flamebpf counts. */
	bool period;
	/* perf: the event whose records are read (without its trailing ':');
	 * NULL: the first one in the file. */
	const char *event;
	/* A perf script file this large or larger is read in two halves at
	 * once (0: 64 MiB); the tests make it small. */
	uint64_t split_min;
	/* Called every few MB read; total is 0 when the size is unknown. */
	void (*progress)(uint64_t done, uint64_t total, void *arg);
	void *arg;
};

/* What a reader left out or had to guess, for the user. */
struct reader_stats {
	uint64_t records;	    /* perf records, chrome events, folded lines read */
	uint64_t other_events;	    /* perf records of another event than the first */
	char event[64];		    /* perf: the event kept */
	char other_event[64];	    /* perf: the first event left out */
	uint64_t ignored;	    /* chrome: events of phases without a call (i, C, ...) */
	uint64_t unmatched;	    /* chrome: E without B, partial overlaps clipped */
	uint64_t first_ts, last_ts; /* perf: the times of the first and last records */
	uint64_t no_pid;	    /* perf, ids_in_root: records without a PID */
	uint64_t skipped;	    /* perf, folded: lines that are no part of a record */
	uint64_t first_skipped;	    /* ... the first one's number */
	const char *skipped_for;    /* ... what such a line is not, in words */
	uint64_t srclines;	    /* perf: source lines under frames (-F +srcline) */
	bool cut_short;		    /* perf: the last line has no newline */
	bool cut_frame;		    /* perf: ... and was a frame line, left out */
	bool unclosed;		    /* perf: no empty line after the last record */
	unsigned int halves;	    /* 2: read as two halves at once */
};

struct reader;

/* Opens path ("-" for standard input) and tells its format from the first
 * lines. Returns 0, or -errno with the reason in words in err: -ENOENT,
 * -EISDIR, ..., -ENODATA (empty), -EINVAL (not a profile). */
int reader__open(struct reader **r, const char *path, char err[READER_ERR_LEN]);
enum in_format reader__format(const struct reader *r);
const char *reader__format_name(enum in_format f);

/* Reads the whole input into a new profile. Returns 0, or -EINVAL (bad
 * content: err names the line), -ENODATA (no stacks), -EIO, -ENOMEM; err
 * says it in words. */
int reader__read(struct reader *r, const struct reader_opts *o, struct profile **out,
		 struct reader_stats *st, char err[READER_ERR_LEN]);
void reader__close(struct reader *r);

/* reader__open + reader__read + reader__close. */
int reader__load(const char *path, const struct reader_opts *o, struct profile **out,
		 enum in_format *format, struct reader_stats *st, char err[READER_ERR_LEN]);

/* The format of the text that starts with buf (len bytes): 0 and *f, or
 * -ENODATA (nothing but blanks) or -EINVAL. Exposed for the tests. */
int reader__detect(const char *buf, size_t len, enum in_format *f);

#endif
