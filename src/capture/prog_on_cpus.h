/* A BPF program run once on each CPU in turn (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU, raw_tp programs): to reach what each CPU keeps
 * in its share of a per-CPU map, from the CPU itself. */
#ifndef FLAMEBPF_PROG_ON_CPUS_H
#define FLAMEBPF_PROG_ON_CPUS_H

/* Runs prog_fd on CPUs 0 to ncpus - 1; a CPU that is offline is passed
 * over (it runs no program either). 0 or the first -errno. */
int prog_on_cpus__run(int prog_fd, int ncpus);

#endif
