// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/msg.h"
#include "report.h"

void report__progress(double elapsed, uint64_t n, const char *what)
{
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rflamebpf: %.1f s, %" PRIu64 " %s (Ctrl-C to stop)\033[K", elapsed, n,
		what);
}

void report__progress_clear(void)
{
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
}

void report__command_status(int status, bool stopped_by_us)
{
	const char *how = stopped_by_us ? " (stopped by flamebpf at the end of the capture)" : "";

	if (WIFEXITED(status))
		p_err("command exited with status %d%s", WEXITSTATUS(status), how);
	else if (WIFSIGNALED(status))
		p_err("command killed by signal %d (%s)%s", WTERMSIG(status),
		      strsignal(WTERMSIG(status)), how);
}

void report__top_share(const struct top_stats *st, bool by_thread, const struct profile *p)
{
	const char *what = by_thread ? (st->kept == 1 ? "thread" : "threads")
				     : (st->kept == 1 ? "process" : "processes");

	p_err("top %zu %s of %zu: %.1f%% of the %s", st->kept, what, st->of,
	      st->total ? 100.0 * st->weight / st->total : 0,
	      profile__meta(p)->alloc		 ? "bytes"
	      : profile__unit(p) == UNIT_SAMPLES ? "samples"
						 : "time");
}

int report__keep_top(const struct profile *p, size_t n, bool by_thread, struct profile **top,
		     struct top_stats *st)
{
	int err = profile__top(p, n, by_thread, top, st);

	if (err)
		p_err("cannot keep the top %zu %s: %s", n, by_thread ? "threads" : "processes",
		      strerror(-err));
	return err;
}

int report__top(struct profile **p, size_t n, bool by_thread)
{
	struct profile *top;
	struct top_stats st;
	int err = report__keep_top(*p, n, by_thread, &top, &st);

	if (err)
		return err;
	report__top_share(&st, by_thread, *p);
	profile__free(*p);
	*p = top;
	return 0;
}
