/* uprobe_multi links (Linux 6.6+) through the raw bpf() syscall: Debian's
 * libbpf 1.1 has no API for them. */
#ifndef FLAMEBPF_UPROBE_MULTI_H
#define FLAMEBPF_UPROBE_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UPROBE_MULTI_ATTACH_TYPE   48 /* BPF_TRACE_UPROBE_MULTI */
#define UPROBE_SESSION_ATTACH_TYPE 57 /* BPF_TRACE_UPROBE_SESSION (6.13+) */

enum uprobe_multi_kind {
	UPROBE_MULTI_ENTRY,
	UPROBE_MULTI_RETURN,  /* uretprobes */
	UPROBE_MULTI_SESSION, /* entry and return in one program */
};

/* Whether the running kernel has uprobe_multi links, and uprobe sessions
 * (6.13+): its BTF names the attach types. FLAMEBPF_CLASSIC_UPROBES=1 in
 * the environment says no to both (to test the fallback on a new kernel),
 * FLAMEBPF_NO_UPROBE_SESSIONS=1 to sessions. */
void uprobe_multi__features(bool *multi, bool *sessions);

/* Whether FLAMEBPF_CLASSIC_UPROBES=1 asks for classic uprobes (tests, and
 * a way round a uprobe_multi bug). */
bool uprobe_multi__classic_asked(void);

/* Attaches prog_fd at the file offsets of path, each with its cookie, as
 * kind; pid > 0 limits the probes to that process.
 * Returns the link fd, or -errno (-EOPNOTSUPP: the kernel has no
 * uprobe_multi; 524/ENOTSUPP: one of the offsets cannot be probed). */
int uprobe_multi__attach(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, size_t n, enum uprobe_multi_kind kind, pid_t pid);

/* The same with a reference counter for each probe (a USDT probe's
 * semaphore: the kernel raises it while the probe is attached), at its
 * offset in the file; 0 for none. */
int uprobe_multi__attach_counted(int prog_fd, const char *path, const uint64_t *offsets,
				 const uint64_t *ref_ctr_offsets, const uint64_t *cookies, size_t n,
				 enum uprobe_multi_kind kind, pid_t pid);

/* Like uprobe_multi__attach, but first finds the offsets the kernel refuses
 * (by bisection) and leaves them out: bad[i] is set for each. Returns the
 * link fd, or -errno when nothing could be attached. */
int uprobe_multi__attach_skipping(int prog_fd, const char *path, const uint64_t *offsets,
				  const uint64_t *cookies, size_t n, enum uprobe_multi_kind kind,
				  pid_t pid, bool *bad);

#endif
