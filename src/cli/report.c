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
