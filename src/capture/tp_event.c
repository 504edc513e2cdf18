// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "tp_event.h"

/* One event, on the first CPU online: the kernel runs a tracepoint's
 * programs at every hit, on any CPU, before it looks at the events' CPUs
 * (perf_trace_run_bpf_submit); an event per CPU would run one as often. */
static int open_tracepoint(unsigned int id, int ncpus)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.sample_period = 1,
		.wakeup_events = 1,
	};
	int fd = -1;

	errno = ENODEV;
	for (int cpu = 0; cpu < ncpus && fd < 0 && errno == ENODEV; cpu++)
		fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd;
}

struct bpf_link *tp_event__attach(struct bpf_program *prog, unsigned int id, int ncpus)
{
	int fd = open_tracepoint(id, ncpus), err;
	struct bpf_link *link;

	if (fd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(prog, fd);
	if (!link) {
		err = errno;
		close(fd);
		errno = err;
	}
	return link;
}
