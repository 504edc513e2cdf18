// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_start.h"

/* starttime, the 22nd field of /proc/PID/stat: clock ticks after boot.
 * The fields are counted after the command's closing parenthesis (the
 * command may hold spaces and parentheses itself). */
static int start_ticks(pid_t pid, unsigned long long *ticks)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* state is the 3rd field, starttime the 22nd */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", ticks) != 1)
		return -EINVAL;
	return 0;
}

int proc_start__wall(pid_t pid, time_t *out)
{
	struct timespec boot, wall;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	int err = start_ticks(pid, &ticks);

	if (err)
		return err;
	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) || clock_gettime(CLOCK_REALTIME, &wall))
		return -EINVAL;
	/* the wall clock now, less how long ago (on the boot clock) it began */
	*out = wall.tv_sec - (boot.tv_sec - (time_t)(ticks / (unsigned long long)hz));
	return 0;
}
