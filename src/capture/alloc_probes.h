/* --alloc: the allocators' entry points (malloc, calloc, realloc, free,
 * aligned_alloc, posix_memalign, memalign, valloc, pvalloc, every exported
 * operator new and delete, mmap and munmap) in the binaries a target maps,
 * attached to the sampler's allocation programs (uprobe_sites.h). */
#ifndef FLAMEBPF_ALLOC_PROBES_H
#define FLAMEBPF_ALLOC_PROBES_H

#include <stddef.h>
#include <sys/types.h>

#include "symbols/binary_list.h"
#include "uprobe_sites.h"

/* Zeroed, with links.multi set as the programs were loaded. */
struct alloc_probes {
	struct uprobe_sites links;
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

/* Finds the allocators in bins and attaches entries at their entries and
 * returns at the returns of those that allocate. Returns 0, -ENOENT when bins
 * define none, or -errno of a failed read or attach (ap->links.failed
 * says where). */
int alloc_probes__attach(struct alloc_probes *ap, const struct binaries *bins,
			 const struct alloc_target *t, struct bpf_program *entries,
			 struct bpf_program *returns);

/* Closes the links: no probe fires after it. */
void alloc_probes__detach(struct alloc_probes *ap);

#endif
