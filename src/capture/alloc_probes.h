/* --alloc: the allocators' entry points (malloc, calloc, realloc, free,
 * aligned_alloc, posix_memalign, memalign, valloc, pvalloc, every exported
 * operator new and delete, mmap and munmap) in the binaries a target maps,
 * attached as uprobe_multi links to the sampler's allocation programs. */
#ifndef FLAMEBPF_ALLOC_PROBES_H
#define FLAMEBPF_ALLOC_PROBES_H

#include <stddef.h>
#include <sys/types.h>

#include "symbols/binary_list.h"

struct alloc_probes {
	int *fds; /* link fds */
	size_t nfds, fds_cap;
	size_t nfuncs;	 /* functions probed */
	size_t nbins;	 /* binaries with one at least */
	size_t refused;	 /* functions the kernel would not probe */
	char first[256]; /* "libc.so.6 (12), libstdc++.so.6 (20)": where, for -v */
};

/* Where the probes fire: pid > 0 in that process only (bins' first, the
 * main executable, everywhere when exe_everywhere: a COMMAND's children
 * run it), 0 in every process (the BPF pid filter keeps the targets). */
struct alloc_target {
	pid_t pid;
	int exe_everywhere;
};

/* Finds the allocators in bins and attaches enter_fd at their entries and
 * exit_fd at the returns of those that allocate. Returns 0, -ENOENT when
 * bins define none, or -errno of a failed read or attach. */
int alloc_probes__attach(struct alloc_probes *ap, const struct binaries *bins,
			 const struct alloc_target *t, int enter_fd, int exit_fd);

/* Closes the links: no probe fires after it. */
void alloc_probes__detach(struct alloc_probes *ap);

#endif
