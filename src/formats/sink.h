/* The writers behind one call: a profile out in the format asked for. No
 * writer knows where the profile came from (a capture or a file). */
#ifndef FLAMEBPF_SINK_H
#define FLAMEBPF_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/profile.h"

enum out_format {
	FORMAT_FOLDED,
	FORMAT_CHROME,
	FORMAT_PERF,
	FORMAT_SVG,
	FORMAT_PPROF,
	FORMAT_HTML,
	FORMAT_NR,
};

enum root_style {
	ROOT_COMM, /* COMM */
	ROOT_PID,  /* COMM-PID */
	ROOT_TID,  /* COMM-PID/TID */
};

/* What pprof and OTLP say of a process beyond its pid and name (its
 * executable's build-id, its cgroup): labels on its samples. */
#define PROC_LABELS_MAX 3

struct proc_label {
	const char *key, *value;
};

struct proc_labeler {
	/* pid's labels in *labels (n returned, at most PROC_LABELS_MAX; 0:
	 * none known); they live as long as arg */
	size_t (*get)(void *arg, uint32_t pid, const struct proc_label **labels);
	void *arg;
};

struct write_opts {
	enum root_style root;	   /* folded, svg */
	bool flamechart;	   /* folded, svg: time order from the events */
	const char *title;	   /* svg, html; NULL for one made from the profile */
	unsigned int heatmap_rows; /* svg: the heatmap, with this many slices a second; 0: none */
	const struct proc_labeler *procs; /* pprof: labels per process; NULL: none */
};

/* "folded", "chrome", ... */
const char *sink__name(enum out_format f);

/* Parses a --format name. Returns 0 or -EINVAL. */
int sink__parse(const char *name, enum out_format *f);

/* The format a file name asks for by its extension; folded when none does. */
enum out_format sink__from_path(const char *path);

/* True when the format, with these options, draws from the profile's events
 * (each sample or call with its time) rather than only from its stacks. */
bool sink__needs_events(enum out_format f, const struct write_opts *o);

/* Writes p to f. Returns 0; -ENODATA when the format needs events and the
 * profile has none; -ENOMEM; -EIO when writing failed. */
int sink__write(enum out_format f, const struct profile *p, const struct write_opts *o, FILE *out);

#endif
