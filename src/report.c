// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"
#include "strbuf.h"

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("flamebpf: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void report__progress(double elapsed, uint64_t samples)
{
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rflamebpf: sampling %.1f s, %" PRIu64 " samples (Ctrl-C to stop)\033[K",
		elapsed, samples);
}

void report__progress_clear(void)
{
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
}

static void add_loss(struct strbuf *b, uint64_t n, const char *what)
{
	if (n)
		strbuf__addf(b, "%s%" PRIu64 " %s", b->len ? ", " : "", n, what);
}

static void report_losses(const struct sampler_stats *st)
{
	const uint64_t *c = st->counter;
	struct strbuf b = {};

	add_loss(&b, c[CNT_SAMPLES_DROPPED], "samples (ring buffer full)");
	add_loss(&b, c[CNT_STACKS_DROPPED], "stacks (ring buffer full)");
	add_loss(&b, st->collisions, "stacks (hash collision)");
	add_loss(&b, c[CNT_USTACK_ERR], "user stacks (unreadable)");
	add_loss(&b, c[CNT_KSTACK_ERR], "kernel stacks (unreadable)");
	add_loss(&b, c[CNT_EVENTS_LOST], "process events (ring buffer full)");
	add_loss(&b, c[CNT_SEEN_FULL], "process events (process map full)");
	add_loss(&b, c[CNT_PIDS_FULL], "child processes untraced (pid map full)");
	p_err("lost: %s", b.len ? b.s : "nothing");
	strbuf__free(&b);
}

void report__summary(const struct profile *p, const struct sampler_stats *st, double secs,
		     unsigned int freq, bool verbose)
{
	p_err("%" PRIu64 " samples, %zu processes, %zu stacks in %.2f s at %u Hz (%s on %u CPUs)",
	      profile__total_weight(p), profile__nr_processes(p), profile__nr_stacks(p), secs, freq,
	      st->event, st->ncpus);
	report_losses(st);
	if (verbose)
		p_err("%" PRIu64 " unique raw stacks; BPF maps %.1f MiB; %" PRIu64
		      " samples beyond the counts map; %" PRIu64
		      " samples of other processes skipped",
		      st->stacks, st->map_bytes / 1048576.0, st->counter[CNT_SAMPLES_SPILLED],
		      st->counter[CNT_FILTERED]);
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
