// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "task_iter.h"

int task_iter__run(struct bpf_program *prog, size_t rec, int (*fn)(const void *, void *), void *arg)
{
	struct bpf_link *link = bpf_program__attach_iter(prog, NULL);
	char buf[4096];
	size_t have = 0;
	ssize_t n;
	int fd, err = 0;

	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
		goto out_link;
	}
	while (!err && (n = read(fd, buf + have, sizeof(buf) - have)) > 0) {
		have += n;
		for (size_t off = 0; !err && rec && off + rec <= have; off += rec)
			err = fn(buf + off, arg);
		if (rec)
			memmove(buf, buf + have / rec * rec, have % rec);
		have = rec ? have % rec : 0;
	}
	if (!err && n < 0)
		err = -errno;
	close(fd);
out_link:
	bpf_link__destroy(link);
	return err;
}
