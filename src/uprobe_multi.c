// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include <bpf/btf.h>

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

static bool enum_has(const struct btf *btf, const char *type, const char *value)
{
	__s32 id = btf__find_by_name_kind(btf, type, BTF_KIND_ENUM);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off), value))
			return true;
	return false;
}

/* Whether the kernel's BTF names the attach type, unless the environment
 * variable off is "1". When BTF cannot be read, the answer is unknown. */
static bool kernel_has(const char *attach_type, const char *off, bool unknown)
{
	const char *force = getenv(off);
	struct btf *btf;
	bool yes;

	if (force && !strcmp(force, "1"))
		return false;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return unknown;
	yes = enum_has(btf, "bpf_attach_type", attach_type);
	btf__free(btf);
	return yes;
}

bool uprobe_multi__supported(void)
{
	/* unknown: try, and report what the kernel says */
	return kernel_has("BPF_TRACE_UPROBE_MULTI", "FLAMEBPF_CLASSIC_UPROBES", true);
}

bool uprobe_multi__sessions_supported(void)
{
	return kernel_has("BPF_TRACE_UPROBE_SESSION", "FLAMEBPF_NO_UPROBE_SESSIONS", false);
}

int uprobe_multi__attach(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, size_t n, enum uprobe_multi_kind kind, pid_t pid)
{
	struct link_create_uprobe_multi attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
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
