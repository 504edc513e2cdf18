// SPDX-License-Identifier: GPL-2.0
/* A list of distinct binaries, and adding to it by path. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary_list.h"

ssize_t binaries__find(const struct binaries *b, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		if (b->v[i].dev == dev && b->v[i].ino == ino)
			return (ssize_t)i;
	}
	return -1;
}

int binaries__add(struct binaries *b, const struct target_binary *e)
{
	struct target_binary c = { .dev = e->dev, .ino = e->ino }, *v;

	if (binaries__find(b, e->dev, e->ino) >= 0)
		return 0;
	v = reallocarray(b->v, b->n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->v = v;
	c.path = strdup(e->path);
	c.open_path = strdup(e->open_path);
	if (!c.path || !c.open_path) {
		free(c.path);
		free(c.open_path);
		return -ENOMEM;
	}
	b->v[b->n++] = c;
	return 0;
}

void binaries__free(struct binaries *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		free(b->v[i].path);
		free(b->v[i].open_path);
	}
	free(b->v);
	*b = (struct binaries){ 0 };
}

/* Checks that path is a regular ELF file. Returns 0, -ENOENT, -EISDIR,
 * -ENOEXEC (another kind of file), or -errno. */
static int elf_file(const char *path, struct stat *st)
{
	char magic[SELFMAG];
	ssize_t n;
	int fd;

	if (stat(path, st))
		return -errno;
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (!S_ISREG(st->st_mode))
		return -ENOEXEC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, magic, sizeof(magic), 0);
	close(fd);
	return n == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG) ? 0 : -ENOEXEC;
}

int binaries__add_path(struct binaries *b, const char *path)
{
	struct target_binary e = { 0 };
	struct stat st;
	int err = elf_file(path, &st);

	if (err)
		return err;
	e.path = realpath(path, NULL);
	if (!e.path)
		return -errno;
	e.open_path = e.path;
	e.dev = st.st_dev;
	e.ino = st.st_ino;
	err = binaries__add(b, &e);
	free(e.path);
	return err;
}
