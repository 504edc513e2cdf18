/* The command line, parsed and checked; nothing here touches the system. */
#ifndef FLAMEBPF_OPTIONS_H
#define FLAMEBPF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "formats/sink.h"
#include "unwind.h"

#define OPTIONS_MAX_OUTPUTS 8

struct options {
	unsigned int freq;  /* sampling frequency in Hz; 0 when not sampling */
	const char **funcs; /* -f arguments (uprobe mode) */
	size_t nfuncs;
	const char *list; /* -l argument */
	double duration;  /* seconds; 0 = until signal or targets exit */
	pid_t *pids;
	size_t npids;
	char **command;	    /* NULL-terminated argv after "--", or NULL */
	const char *output; /* the first -o; "-" when none */
	enum out_format format;
	/* every -o, with its format (several: one capture, many views) */
	const char *outputs[OPTIONS_MAX_OUTPUTS];
	enum out_format formats[OPTIONS_MAX_OUTPUTS];
	size_t noutputs;
	enum root_style root;
	bool user_only, kernel_only;
	bool flamechart;
	bool timeline; /* the output needs each sample's or call's time */
	bool full_stack;
	size_t max_calls;	 /* --max-calls: calls kept for a timeline (0: default) */
	bool no_demangle;	 /* C++ and Rust names left mangled */
	enum unwind_mode unwind; /* --unwind: how user stacks are taken */
	bool inline_frames;	 /* --inline: inlined functions as frames (DWARF) */
	bool file_line;		 /* --file-line: FILE:LINE after names (DWARF) */
	int verbose;
	bool help, version;
};

#define OPTIONS_ERR_LEN 256

/* Parses argv. Returns 0, or -EINVAL with a one-line message in err (without
 * the "flamebpf: " prefix) for a usage error. o->pids must be freed with
 * options__free(). */
int options__parse(int argc, char **argv, struct options *o, char *err);

/* Parses "99", "99hz", "99Hz", "1khz": returns 0 and *hz, or -EINVAL. */
int options__parse_freq(const char *s, unsigned int *hz);

/* Parses seconds, fractions allowed, > 0. Returns 0 or -EINVAL. */
int options__parse_duration(const char *s, double *secs);

/* Parses a count of calls, 1 to OPTIONS_MAX_CALLS. Returns 0 or -EINVAL. */
#define OPTIONS_MAX_CALLS 100000000
int options__parse_calls(const char *s, size_t *n);

/* Parses "PID[,PID...]". Returns 0, -EINVAL, or -ENOMEM. */
int options__parse_pids(const char *s, pid_t **pids, size_t *n);

void options__usage(FILE *f);
void options__free(struct options *o);

#endif
