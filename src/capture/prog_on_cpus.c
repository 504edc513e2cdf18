// SPDX-License-Identifier: GPL-2.0
#include <errno.h>

#include <bpf/bpf.h>

#include "prog_on_cpus.h"

int prog_on_cpus__run(int prog_fd, int ncpus)
{
	for (int cpu = 0; cpu < ncpus; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

		if (bpf_prog_test_run_opts(prog_fd, &opts) && errno != ENXIO)
			return -errno;
	}
	return 0;
}
