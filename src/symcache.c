// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hashmap.h"
#include "symcache.h"

struct symcache {
	struct binary **v;
	size_t n;
	struct hashmap by_file; /* hash(dev, inode) -> index in v */
};

struct symcache *symcache__new(void)
{
	return calloc(1, sizeof(struct symcache));
}

static bool same_file(int fd, const struct map_entry *m)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_ino == m->inode && major(st.st_dev) == m->dev_major &&
	       minor(st.st_dev) == m->dev_minor;
}

/* The path first; if it is gone or now another file (deleted, replaced, in
 * another mount namespace), the process's own view of the mapping. */
static int open_mapped_file(const char *path, const struct map_entry *m, pid_t pid)
{
	char alt[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && same_file(fd, m))
		return fd;
	snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start,
		 m->end);
	int fd2 = open(alt, O_RDONLY | O_CLOEXEC);

	if (fd2 < 0)
		return fd >= 0 ? fd : -errno;
	if (fd >= 0)
		close(fd);
	return fd2;
}

static char *strip_deleted(const char *path)
{
	static const char suffix[] = " (deleted)";
	size_t len = strlen(path), sl = sizeof(suffix) - 1;

	if (len > sl && !strcmp(path + len - sl, suffix))
		len -= sl;
	return strndup(path, len);
}

static void set_build_id(struct binary *b)
{
	size_t len = 0;
	const uint8_t *id = b->syms ? elf_symtab__build_id(b->syms, &len) : NULL;

	for (size_t i = 0; id && i < len && 2 * i + 2 < sizeof(b->build_id); i++)
		snprintf(b->build_id + 2 * i, 3, "%02x", id[i]);
}

static struct binary *binary__load(const struct map_entry *m, pid_t pid)
{
	struct binary *b = calloc(1, sizeof(*b));
	const char *slash;
	int fd;

	if (!b || !(b->path = strip_deleted(m->path))) {
		free(b);
		return NULL;
	}
	slash = strrchr(b->path, '/');
	b->name = slash ? slash + 1 : b->path;
	fd = open_mapped_file(b->path, m, pid);
	if (fd < 0) {
		b->err = fd;
		return b;
	}
	b->err = elf_symtab__load(fd, &b->syms);
	close(fd);
	set_build_id(b);
	return b;
}

struct binary *symcache__findnew(struct symcache *c, const struct map_entry *m, pid_t pid)
{
	uint64_t key = hash_mix(m->inode ^ hash_mix(((uint64_t)m->dev_major << 32) | m->dev_minor));
	struct binary *b, **v;
	uint64_t i;

	if (hashmap__get(&c->by_file, key, &i))
		return c->v[i];
	b = binary__load(m, pid);
	if (!b)
		return NULL;
	v = realloc(c->v, (c->n + 1) * sizeof(*v));
	if (!v || hashmap__set(&c->by_file, key, c->n)) {
		c->v = v ? v : c->v;
		elf_symtab__free(b->syms);
		free(b->path);
		free(b);
		return NULL;
	}
	c->v = v;
	c->v[c->n++] = b;
	return b;
}

void symcache__free(struct symcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		elf_symtab__free(c->v[i]->syms);
		free(c->v[i]->path);
		free(c->v[i]);
	}
	free(c->v);
	hashmap__free(&c->by_file);
	free(c);
}
