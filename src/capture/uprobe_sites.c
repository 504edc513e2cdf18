// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "util/array.h"
#include "uprobe_sites.h"

struct uprobe_link {
	int fd;		     /* a uprobe_multi link */
	struct bpf_link *bl; /* or a classic uprobe's */
};

void uprobe_sites__prepare(const struct uprobe_sites *us, struct bpf_program *prog,
			   enum uprobe_multi_kind kind)
{
	if (us->multi)
		bpf_program__set_expected_attach_type(prog, kind == UPROBE_MULTI_SESSION
								    ? UPROBE_SESSION_ATTACH_TYPE
								    : UPROBE_MULTI_ATTACH_TYPE);
}

static int keep(struct uprobe_sites *us, int fd, struct bpf_link *bl)
{
	struct uprobe_link l = { fd, bl };

	if (!array__push((void **)&us->v, &us->n, &us->cap, &l, sizeof(l)))
		return 0;
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(bl);
	return -ENOMEM;
}

/* The first failure only: it is the one reported. */
static void note_failure(struct uprobe_sites *us, const struct uprobe_set *set, size_t i, bool one)
{
	if (us->failed.path[0])
		return;
	snprintf(us->failed.path, sizeof(us->failed.path), "%s", set->path);
	us->failed.offset = one ? set->offsets[i] : 0;
	us->failed.cookie = one ? set->cookies[i] : 0;
	us->failed.one = one;
}

/* Kernels before 6.6: one classic uprobe (perf_event uprobe PMU, no tracefs)
 * per offset, for every process (a perf event on one pid would see one
 * thread only; the BPF pid filter does the rest). Slow to attach and detach
 * by the thousand, but it works. */
static int attach_classic(struct uprobe_sites *us, struct bpf_program *prog,
			  const struct uprobe_set *set, bool *bad)
{
	size_t attached = 0, first_bad = 0;
	int first_err = 0, err;

	for (size_t i = 0; i < set->n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = set->cookies[i],
			    .ref_ctr_offset = set->ref_ctrs ? set->ref_ctrs[i] : 0,
			    .retprobe = set->kind == UPROBE_MULTI_RETURN);
		struct bpf_link *bl =
			bpf_program__attach_uprobe_opts(prog, -1, set->path, set->offsets[i], &uo);

		if (!bl && !first_err) {
			first_err = errno ? -errno : -EINVAL;
			first_bad = i;
		}
		if (!bl && !bad)
			break;
		if (!bl) {
			bad[i] = true;
			continue;
		}
		err = keep(us, -1, bl);
		if (err)
			return err;
		attached++;
	}
	if (first_err && (!bad || !attached))
		note_failure(us, set, first_bad, true);
	return bad && attached ? 0 : first_err;
}

static int attach_multi(struct uprobe_sites *us, struct bpf_program *prog,
			const struct uprobe_set *set, bool *bad)
{
	int prog_fd = bpf_program__fd(prog), fd;

	if (bad && set->ref_ctrs)
		return -EINVAL;
	fd = bad ? uprobe_multi__attach_skipping(prog_fd, set->path, set->offsets, set->cookies,
						 set->n, set->kind, set->pid, bad)
		 : uprobe_multi__attach_counted(prog_fd, set->path, set->offsets, set->ref_ctrs,
						set->cookies, set->n, set->kind, set->pid);
	if (fd < 0) {
		note_failure(us, set, 0, false);
		return fd;
	}
	return keep(us, fd, NULL);
}

int uprobe_sites__attach(struct uprobe_sites *us, struct bpf_program *prog,
			 const struct uprobe_set *set, bool *bad)
{
	if (bad)
		memset(bad, 0, set->n * sizeof(*bad));
	if (!set->n)
		return 0;
	if (!us->multi && set->kind == UPROBE_MULTI_SESSION)
		return -EOPNOTSUPP;
	return us->multi ? attach_multi(us, prog, set, bad) : attach_classic(us, prog, set, bad);
}

void uprobe_sites__close(struct uprobe_sites *us)
{
	while (us->n) {
		struct uprobe_link *l = &us->v[--us->n];

		if (l->fd >= 0)
			close(l->fd);
		bpf_link__destroy(l->bl);
	}
	free(us->v);
	us->v = NULL;
	us->cap = 0;
}
