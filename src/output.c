// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

static int make_tmp_path(const char *path, char **tmp)
{
	char *d = strdup(path), *b = strdup(path);
	int err = 0;

	if (!d || !b || asprintf(tmp, "%s/.%s.XXXXXX", dirname(d), basename(b)) < 0) {
		*tmp = NULL;
		err = -ENOMEM;
	}
	free(d);
	free(b);
	return err;
}

/* A device or a FIFO (-o /dev/null, -o >(cmd)) is written as it is. */
static int open_special(struct output *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		return -errno;
	}
	return 0;
}

int output__open(struct output *o, const char *path)
{
	struct stat st;
	mode_t mask;
	int fd, err;

	memset(o, 0, sizeof(*o));
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!lstat(path, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return open_special(o, path);
	o->path = strdup(path);
	if (!o->path)
		return -ENOMEM;
	err = make_tmp_path(path, &o->tmp);
	if (err)
		goto err_free;
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		err = -errno;
		goto err_free;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || !(o->f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		unlink(o->tmp);
		goto err_free;
	}
	return 0;
err_free:
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return err;
}

/* Files written under sudo belong to the user who ran sudo. */
static void chown_to_sudo_user(int fd)
{
	const char *uid = getenv("SUDO_UID"), *gid = getenv("SUDO_GID");
	char *end;
	long u, g;

	if (!uid || !gid || geteuid() != 0)
		return;
	u = strtol(uid, &end, 10);
	if (*end || u < 0)
		return;
	g = strtol(gid, &end, 10);
	if (*end || g < 0)
		return;
	if (fchown(fd, u, g))
		return; /* best effort: the file is still complete */
}

int output__commit(struct output *o)
{
	int err = 0;

	if (fflush(o->f) || ferror(o->f))
		err = errno ? -errno : -EIO;
	if (!o->path) {
		if (o->f != stdout && fclose(o->f) && !err)
			err = -errno;
		o->f = NULL;
		return err;
	}
	if (!err)
		chown_to_sudo_user(fileno(o->f));
	if (fclose(o->f) && !err)
		err = -errno;
	o->f = NULL;
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return err;
}

void output__abort(struct output *o)
{
	if (!o->path) {
		if (o->f && o->f != stdout)
			fclose(o->f);
		o->f = NULL;
		return;
	}
	if (o->f)
		fclose(o->f);
	unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}
