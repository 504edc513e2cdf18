/* The HTML report's data: the profile in the compact tables the page's
 * script reads (src/formats/html/report.js), written as one JSON object.
 *
 *   strings  every name once
 *   funcs    [name, module, kind, 0xRRGGBB] per drawn name (kind 0 user,
 *            1 kernel, 2 root); frames of any address merge by name, as
 *            the SVG merges them
 *   nodes    [parent, func] per call path (parent -1 for a root): the
 *            merged call tree, a parent before its children
 *   threads  [pid, tid, comm, tcomm] (pid -1 when the input had none); a
 *            thread that changed its name (exec) has a row per name
 *   stacks   [node, thread, weight, count] per stack of the profile
 *   sampled  in a --wall report, the stacks of samples on the CPU (no
 *            state off it): their events stand for the period before
 *            their time, as the Chrome JSON output draws them
 *   events   by time: t0 (ns, a string), stack[], dt[] (ns since the one
 *            before); in ns units dur[] too, and for traced calls self[]
 *            (the call's time less its children's) and, where any has
 *            them, args[]: arg0, arg1, arg2 and ret per call (json_u64.h;
 *            ret null where no return came); w[] where
 *            events weigh their own (allocations' bytes), not their
 *            stack's mean
 *
 * Numbers are indexes into the tables above them. */
#ifndef FLAMEBPF_HTML_DATA_H
#define FLAMEBPF_HTML_DATA_H

#include <stdio.h>

#include "profile/profile.h"
#include "sink.h"

#define HTML_DATA_VERSION 1

/* Writes the JSON object; strings escaped for an HTML <script> element.
 * Returns 0, -ENOMEM, or -EIO when writing failed. */
int html_data__write(const struct profile *p, const struct write_opts *o, FILE *f);

struct html_diff;

/* The same for a differential report: the new profile's tables, and the
 * "diff" member (html_diff.h). Also -ENODATA when either profile weighs
 * nothing. */
int html_data__write_diff(const struct profile *new, const struct html_diff *diff,
			  const struct write_opts *o, FILE *f);

/* "sample", "trace" (uprobe calls), "off-cpu" or "wall". */
const char *html_data__mode(const struct profile *p);

#endif
