// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "tracefs.h"

/* A mount point as mountinfo escapes it (a space is \040), unescaped. */
static void unescape(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && n + 1 < len; n++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			out[n] = (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
			s += 4;
		} else {
			out[n] = *s++;
		}
	}
	out[n] = '\0';
}

/* A mountinfo line's mount point and file system type: "36 35 0:12 /
 * /sys/kernel/tracing rw,... shared:17 - tracefs nodev rw". */
static bool mount_of(char *line, char **dir, char **type)
{
	char *save, *tok = strtok_r(line, " ", &save);

	for (int i = 0; tok && i < 4; i++)
		tok = strtok_r(NULL, " ", &save);
	*dir = tok;
	while (tok && strcmp(tok, "-"))
		tok = strtok_r(NULL, " ", &save);
	*type = tok ? strtok_r(NULL, " ", &save) : NULL;
	return *dir && *type;
}

int tracefs__find(FILE *mountinfo, char *root, size_t len)
{
	char line[4096], *dir, *type, debugfs[4096] = "";

	while (fgets(line, sizeof(line), mountinfo)) {
		if (!mount_of(line, &dir, &type))
			continue;
		if (!strcmp(type, "tracefs")) {
			unescape(dir, root, len);
			return 0;
		}
		if (!strcmp(type, "debugfs") && !*debugfs)
			unescape(dir, debugfs, sizeof(debugfs));
	}
	/* the kernel mounts tracefs there itself, at the first look (Linux 4.1+) */
	if (!*debugfs || (size_t)snprintf(root, len, "%s/tracing", debugfs) >= len)
		return -ENOENT;
	return access(root, F_OK) ? -ENOENT : 0;
}

int tracefs__root(char *root, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int err;

	if (!f)
		return -ENOENT;
	err = tracefs__find(f, root, len);
	fclose(f);
	return err;
}

int tracefs__event_file(const char *root, const char *spec, const char *file, char *buf, size_t len)
{
	const char *name = strchr(spec, ':');
	char path[4096];
	ssize_t n = 0;
	size_t have = 0;
	int fd;

	if (!name)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/%s", root, (int)(name - spec), spec,
		 name + 1, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* tracefs files come in pieces: read to the end */
	while (have + 1 < len && (n = read(fd, buf + have, len - 1 - have)) > 0)
		have += n;
	buf[have] = '\0';
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}
