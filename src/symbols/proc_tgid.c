// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>

#include "proc_tgid.h"

int proc_tgid__of(pid_t tid, pid_t *tgid)
{
	char path[64], line[256];
	int err = -EINVAL;
	FILE *f;

	/* /proc/TID is there for any thread, though /proc lists processes only */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (err && fgets(line, sizeof(line), f)) {
		int v;

		if (sscanf(line, "Tgid: %d", &v) == 1 && v > 0) {
			*tgid = v;
			err = 0;
		}
	}
	fclose(f);
	return err;
}
