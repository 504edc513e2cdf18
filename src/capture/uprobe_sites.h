/* Probes at a set of offsets in one binary for one BPF program, by the
 * mechanism the kernel has: one uprobe_multi link (Linux 6.6+), or one
 * classic uprobe (perf_event uprobe PMU) per offset. Either way the program
 * reads each probe's cookie with bpf_get_attach_cookie(), and the kernel
 * raises a USDT semaphore while its probe is attached. The tracer's
 * functions, the sampler's USDT and span sites and the allocators all go
 * through here. */
#ifndef FLAMEBPF_UPROBE_SITES_H
#define FLAMEBPF_UPROBE_SITES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uprobe_multi.h"

struct bpf_program;

struct uprobe_set {
	const char *path;	  /* the binary */
	const uint64_t *offsets;  /* in the file */
	const uint64_t *ref_ctrs; /* semaphores' offsets in the file (0: none), or NULL */
	const uint64_t *cookies;
	size_t n;
	enum uprobe_multi_kind kind; /* a session needs uprobe_multi */
	/* > 0: a uprobe_multi link fires in that process only; classic
	 * probes fire in every process, for the BPF pid filter to sort */
	pid_t pid;
};

/* What the first refused attach was, for the error message. */
struct uprobe_failure {
	char path[PATH_MAX]; /* "" for none */
	uint64_t offset, cookie;
	bool one; /* offset and cookie say which probe; else the whole set failed */
};

/* The links attached: closable all at once. Zeroed, with multi set (from
 * uprobe_multi__features, as the programs were loaded), before the first
 * attach. */
struct uprobe_sites {
	bool multi;
	struct uprobe_link *v;
	size_t n, cap;
	struct uprobe_failure failed;
};

/* Before load: prog's expected attach type as links of kind need it (none
 * for classic uprobes: bpf_get_attach_cookie() then reads the perf
 * event's cookie). */
void uprobe_sites__prepare(const struct uprobe_sites *us, struct bpf_program *prog,
			   enum uprobe_multi_kind kind);

/* Attaches prog at every offset of set. With bad, the offsets the kernel
 * refuses are left out and flagged there (only for a set without
 * ref_ctrs), and only a set with none attached fails; without, any
 * refusal fails. A set with nothing in it is no error. Returns 0 or
 * -errno, the failure noted in us->failed; what was attached stays in us. */
int uprobe_sites__attach(struct uprobe_sites *us, struct bpf_program *prog,
			 const struct uprobe_set *set, bool *bad);

/* Detaches every probe, newest first; us can take new ones after. */
void uprobe_sites__close(struct uprobe_sites *us);

#endif
