// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

#define MAX_LINKS  8  /* symbolic links followed from the name given */
#define NAME_TRIES 32 /* random names tried for the finished file */

/* stdio keeps only that a write failed: the first error's errno is kept in
 * the output. A short write is an error to stdio, so this writes it all. */
static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
	struct output *o = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(o->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!o->err)
				o->err = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Takes FD: the stream writes to it, and it is closed at the end. */
static int open_stream(struct output *o, int fd)
{
	cookie_io_functions_t io = { .write = stream_write };

	o->fd = fd;
	o->f = fopencookie(o, "w", io);
	return o->f ? 0 : -errno;
}

static int dir_of(const char *path, char **dir)
{
	char *copy = strdup(path);

	*dir = copy ? strdup(dirname(copy)) : NULL;
	free(copy);
	return *dir ? 0 : -ENOMEM;
}

/* The descriptor a name stands for, as a shell's redirections read them
 * (-o -, /dev/stdout, /dev/fd/N): written to as it is, at its offset; -1
 * for any other name. */
static int descriptor_of(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	char *end;
	long n;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t len = strlen(dirs[i]);

		if (strncmp(path, dirs[i], len) || path[len] < '0' || path[len] > '9')
			continue;
		errno = 0;
		n = strtol(path + len, &end, 10);
		if (!*end && !errno && n <= INT_MAX)
			return (int)n;
	}
	return -1;
}

static int open_descriptor(struct output *o, int fd)
{
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	int err;

	if (dup < 0)
		return -errno;
	err = open_stream(o, dup);
	if (err)
		close(dup);
	return err;
}

/*
 * Anyone may put a name into a world-writable directory such as /tmp, and a
 * link there could point at any file: like the kernel's protected_symlinks,
 * only our own links there and the directory owner's are followed.
 */
static int check_planted(const char *path, const struct stat *st)
{
	struct stat d;
	char *dir;
	int err = dir_of(path, &dir);

	if (err)
		return err;
	if (stat(dir, &d))
		err = -errno;
	else if ((d.st_mode & S_IWOTH) && st->st_uid != geteuid() && st->st_uid != d.st_uid)
		err = -ELOOP;
	free(dir);
	return err;
}

/* A device or a FIFO (-o /dev/null, a named pipe) is written as it is. */
static int open_special(struct output *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = open_stream(o, fd);
	if (err)
		close(fd);
	return err;
}

/* Where the file system has no O_TMPFILE: ".NAME.XXXXXX" beside NAME. */
static int open_named_tmp(struct output *o, mode_t mode)
{
	char *d = strdup(o->path), *b = strdup(o->path);
	int fd = -1, err = 0;

	if (!d || !b || asprintf(&o->tmp, "%s/.%s.XXXXXX", dirname(d), basename(b)) < 0) {
		o->tmp = NULL;
		err = -ENOMEM;
	}
	if (!err && (fd = mkostemp(o->tmp, O_CLOEXEC)) < 0)
		err = -errno;
	if (!err && fchmod(fd, mode))
		err = -errno;
	if (err && fd >= 0) {
		close(fd);
		unlink(o->tmp);
	}
	free(d);
	free(b);
	return err ? err : fd;
}

/* O_TMPFILE's errors that say the file system (EOPNOTSUPP) or the kernel
 * (EISDIR, EINVAL) has none. */
static bool no_tmpfile(int err)
{
	return err == EOPNOTSUPP || err == EISDIR || err == EINVAL;
}

/* Where O_TMPFILE failed in a directory that exists. A missing name is then
 * one that the file system refuses to make (procfs answers ENOENT): the
 * file cannot be made there at all, which O_TMPFILE said first. */
static int open_without_tmpfile(struct output *o, mode_t mode)
{
	int fd = open_named_tmp(o, mode);

	return fd == -ENOENT ? -EOPNOTSUPP : fd;
}

/* A file without a name (O_TMPFILE) in the directory of PATH, named when it
 * is complete: a run killed before that leaves nothing behind. */
static int open_tmp(struct output *o, const char *path)
{
	mode_t mask = umask(0);
	char *dir = NULL;
	int fd, err;

	umask(mask);
	o->path = strdup(path);
	err = o->path ? dir_of(path, &dir) : -ENOMEM;
	if (err)
		return err;
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0 && no_tmpfile(errno))
		fd = open_without_tmpfile(o, 0666 & ~mask);
	else if (fd < 0)
		fd = -errno;
	free(dir);
	if (fd < 0)
		return fd;
	err = open_stream(o, fd);
	if (err) {
		close(fd);
		if (o->tmp)
			unlink(o->tmp);
	}
	return err;
}

/* What a link at PATH points to, as a path from here. */
static int link_target(const char *path, char **out)
{
	char buf[PATH_MAX], *dir;
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	int err;

	*out = NULL;
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (buf[0] == '/')
		return (*out = strdup(buf)) ? 0 : -ENOMEM;
	err = dir_of(path, &dir);
	if (!err && asprintf(out, "%s/%s", dir, buf) < 0) {
		*out = NULL;
		err = -ENOMEM;
	}
	free(dir);
	return err;
}

static int open_path(struct output *o, const char *path, int links)
{
	int fd = descriptor_of(path), err;
	char *next = NULL;
	struct stat st;

	if (fd >= 0)
		return open_descriptor(o, fd);
	if (lstat(path, &st))
		return errno == ENOENT ? open_tmp(o, path) : -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISREG(st.st_mode))
		return open_tmp(o, path);
	if (!S_ISLNK(st.st_mode))
		return open_special(o, path);
	/* the file the link points to is replaced, never the link itself */
	if (links == MAX_LINKS)
		return -EMLINK;
	err = check_planted(path, &st);
	if (!err)
		err = link_target(path, &next);
	if (!err)
		err = open_path(o, next, links + 1);
	free(next);
	return err;
}

static void reset(struct output *o)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

int output__open(struct output *o, const char *path)
{
	int err;

	reset(o);
	err = open_path(o, path, 0);
	if (err) {
		free(o->tmp);
		free(o->path);
		reset(o);
	}
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

/* Gives the O_TMPFILE file a random name ".NAME.XXXXXX" beside NAME. */
static int name_tmp(struct output *o)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char proc[64], *d = strdup(o->path), *b = strdup(o->path);
	const char *dir = d ? dirname(d) : NULL, *base = b ? basename(b) : NULL;
	int err = dir && base ? -EEXIST : -ENOMEM;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	for (int i = 0; i < NAME_TRIES && err == -EEXIST; i++) {
		unsigned char r[6];

		if (getrandom(r, sizeof(r), 0) != sizeof(r) ||
		    asprintf(&o->tmp, "%s/.%s.%c%c%c%c%c%c", dir, base, chars[r[0] % 62],
			     chars[r[1] % 62], chars[r[2] % 62], chars[r[3] % 62], chars[r[4] % 62],
			     chars[r[5] % 62]) < 0) {
			o->tmp = NULL;
			err = -ENOMEM;
			break;
		}
		err = linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) ? -errno : 0;
		/* without /proc: by the descriptor itself (needs CAP_DAC_READ_SEARCH) */
		if (err == -ENOENT)
			err = linkat(o->fd, "", AT_FDCWD, o->tmp, AT_EMPTY_PATH) ? -errno : 0;
		if (err) {
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	free(d);
	free(b);
	return err;
}

int output__commit(struct output *o)
{
	int fd = o->fd, err = 0;

	if (fflush(o->f) || ferror(o->f))
		err = o->err ? o->err : -EIO;
	if (!err && o->path)
		chown_to_sudo_user(fd);
	/* on disk before it takes the old file's name: a crash after the
	 * rename must not leave an empty file where the old one was */
	if (!err && o->path && fsync(fd))
		err = -errno;
	if (!err && o->path && !o->tmp)
		err = name_tmp(o);
	o->fd = -1; /* nothing more reaches the file */
	fclose(o->f);
	if (close(fd) && !err)
		err = -errno;
	if (!err && o->path && rename(o->tmp, o->path))
		err = -errno;
	if (err && o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	reset(o);
	return err;
}

int output__error(const struct output *o)
{
	return o->err;
}

const char *output__strerror(int err)
{
	if (err == -ELOOP)
		return "a symbolic link that another user made in a world-writable directory "
		       "(refused: it could point at any file)";
	if (err == -EOPNOTSUPP) /* output__open's: the file is replaced, never written over */
		return "Operation not supported: its directory takes no new files (the output "
		       "is written to a new file there, then renamed)";
	if (err == -E2BIG) /* the one writer that has a size limit */
		return "the events span more than a day: too long for --heatmap";
	return strerror(-err);
}

void output__abort(struct output *o)
{
	int fd = o->fd;

	if (!o->f)
		return;
	o->fd = -1; /* what is still buffered is dropped */
	fclose(o->f);
	close(fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	reset(o);
}
