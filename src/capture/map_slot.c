// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "map_slot.h"

int map_slot__make(struct bpf_map *m, int inner_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = bpf_map__map_flags(m),
		    .inner_map_fd = inner_fd >= 0 ? (__u32)inner_fd : 0);
	int fd = bpf_map_create(bpf_map__type(m), bpf_map__name(m), bpf_map__key_size(m),
				bpf_map__value_size(m), bpf_map__max_entries(m), &opts);
	int err;

	if (fd < 0)
		return -errno;
	if (bpf_map__reuse_fd(m, fd)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static void *fill(void *arg)
{
	struct map_slot *ms = arg;
	__u32 zero = 0;

	if (bpf_map_update_elem(ms->outer_fd, &zero, &ms->inner_fd, BPF_ANY))
		ms->err = -errno;
	return NULL;
}

int map_slot__start(struct map_slot *ms, struct bpf_map *outer, int inner_fd)
{
	*ms = (struct map_slot){ .outer_fd = -1, .inner_fd = inner_fd };
	ms->outer_fd = map_slot__make(outer, inner_fd);
	if (ms->outer_fd < 0) {
		ms->err = ms->outer_fd;
		return ms->err;
	}
	ms->running = !pthread_create(&ms->thread, NULL, fill, ms);
	if (!ms->running)
		fill(ms);
	return ms->err;
}

int map_slot__finish(struct map_slot *ms)
{
	if (ms->running) {
		pthread_join(ms->thread, NULL);
		ms->running = false;
	}
	return ms->err;
}
