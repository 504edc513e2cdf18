// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "kernel_btf.h"
#include "uprobe_multi.h"

#define UPROBE_MULTI_RETURN_FLAG 1 /* BPF_F_UPROBE_MULTI_RETURN */

/* The head of bpf_attr.link_create as Linux 6.6 lays it out for
 * uprobe_multi (older uapi headers do not have it). */
struct link_create_uprobe_multi {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__u64 path;
	__u64 offsets;
	__u64 ref_ctr_offsets;
	__u64 cookies;
	__u32 cnt;
	__u32 uflags;
	__u32 pid;
	__u32 pad;
};

static bool forced_off(const char *var)
{
	const char *v = getenv(var);

	return v && !strcmp(v, "1");
}

bool uprobe_multi__classic_asked(void)
{
	return forced_off("FLAMEBPF_CLASSIC_UPROBES");
}

void uprobe_multi__features(bool *multi, bool *sessions)
{
	static const char *const types[] = { "BPF_TRACE_UPROBE_MULTI", "BPF_TRACE_UPROBE_SESSION" };
	int has[2];

	/* unreadable BTF: try uprobe_multi, and report what the kernel says */
	if (kernel_btf__enum_has(KERNEL_BTF_PATH, "bpf_attach_type", types, 2, has)) {
		has[0] = 1;
		has[1] = 0;
	}
	*multi = has[0] && !uprobe_multi__classic_asked();
	*sessions = *multi && has[1] && !forced_off("FLAMEBPF_NO_UPROBE_SESSIONS");
}

int uprobe_multi__attach(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, size_t n, enum uprobe_multi_kind kind, pid_t pid)
{
	return uprobe_multi__attach_counted(prog_fd, path, offsets, NULL, cookies, n, kind, pid);
}

int uprobe_multi__attach_counted(int prog_fd, const char *path, const uint64_t *offsets,
				 const uint64_t *ref_ctr_offsets, const uint64_t *cookies, size_t n,
				 enum uprobe_multi_kind kind, pid_t pid)
{
	struct link_create_uprobe_multi attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.ref_ctr_offsets = (uintptr_t)ref_ctr_offsets;
	attr.prog_fd = prog_fd;
	attr.attach_type = kind == UPROBE_MULTI_SESSION ? UPROBE_SESSION_ATTACH_TYPE
							: UPROBE_MULTI_ATTACH_TYPE;
	attr.path = (uintptr_t)path;
	attr.offsets = (uintptr_t)offsets;
	attr.cookies = (uintptr_t)cookies;
	attr.cnt = n;
	attr.uflags = kind == UPROBE_MULTI_RETURN ? UPROBE_MULTI_RETURN_FLAG : 0;
	attr.pid = pid > 0 ? pid : 0;
	fd = syscall(SYS_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

/* Marks in bad[] the offsets in [lo, hi) the kernel refuses. */
static void find_bad(int prog_fd, const char *path, const uint64_t *offsets,
		     const uint64_t *cookies, size_t lo, size_t hi, enum uprobe_multi_kind ret,
		     pid_t pid, bool *bad)
{
	int fd;

	if (lo >= hi)
		return;
	fd = uprobe_multi__attach(prog_fd, path, offsets + lo, cookies + lo, hi - lo, ret, pid);
	if (fd >= 0) {
		close(fd);
		return;
	}
	if (hi - lo == 1) {
		bad[lo] = true;
		return;
	}
	find_bad(prog_fd, path, offsets, cookies, lo, lo + (hi - lo) / 2, ret, pid, bad);
	find_bad(prog_fd, path, offsets, cookies, lo + (hi - lo) / 2, hi, ret, pid, bad);
}

int uprobe_multi__attach_skipping(int prog_fd, const char *path, const uint64_t *offsets,
				  const uint64_t *cookies, size_t n, enum uprobe_multi_kind ret,
				  pid_t pid, bool *bad)
{
	uint64_t *good_off, *good_cookie;
	size_t ngood = 0;
	int fd = uprobe_multi__attach(prog_fd, path, offsets, cookies, n, ret, pid);

	memset(bad, 0, n * sizeof(*bad));
	/* only a refused offset is worth a search: other errors are final */
	if (fd >= 0 || (fd != -524 && fd != -EINVAL && fd != -EPERM) || n == 1)
		return fd;
	find_bad(prog_fd, path, offsets, cookies, 0, n, ret, pid, bad);
	good_off = malloc(n * sizeof(*good_off));
	good_cookie = malloc(n * sizeof(*good_cookie));
	if (!good_off || !good_cookie) {
		fd = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (bad[i])
			continue;
		good_off[ngood] = offsets[i];
		good_cookie[ngood++] = cookies[i];
	}
	fd = ngood ? uprobe_multi__attach(prog_fd, path, good_off, good_cookie, ngood, ret, pid)
		   : -ENOENT;
out:
	free(good_off);
	free(good_cookie);
	return fd;
}
