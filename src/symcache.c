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
#include "proc_root.h"
#include "symcache.h"

struct symcache {
	struct binary **v;
	size_t n;
	struct hashmap by_file; /* hash(dev, inode) -> index in v */
	const char *debug_root;
};

struct symcache *symcache__new(const char *debug_root)
{
	struct symcache *c = calloc(1, sizeof(struct symcache));

	if (c)
		c->debug_root = debug_root;
	return c;
}

static bool same_file(int fd, const struct map_entry *m)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_ino == m->inode && major(st.st_dev) == m->dev_major &&
	       minor(st.st_dev) == m->dev_minor;
}

/* Keeps the better of two opens: the right file, else any open one. */
static int pick(int fd, int alt, const struct map_entry *m)
{
	if (alt < 0)
		return fd;
	if (fd < 0 || (!same_file(fd, m) && same_file(alt, m))) {
		if (fd >= 0)
			close(fd);
		return alt;
	}
	close(alt);
	return fd;
}

/* The path first; if it is gone or now another file, the same path under
 * the process's root (in a container), then the process's own view of the
 * mapping (deleted or replaced since). */
static int open_mapped_file(const char *path, const struct map_entry *m, pid_t pid, pid_t root_pid)
{
	char alt[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fd = -errno;
	if (root_pid && (fd < 0 || !same_file(fd, m)))
		fd = pick(fd, proc_root__open(root_pid, path, O_RDONLY | O_CLOEXEC), m);
	if (fd >= 0 && same_file(fd, m))
		return fd;
	snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start,
		 m->end);
	return pick(fd, open(alt, O_RDONLY | O_CLOEXEC), m);
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

static struct binary *binary__load(const struct symcache *c, const struct map_entry *m, pid_t pid)
{
	struct binary *b = calloc(1, sizeof(*b));
	struct debuginfo_where w = { .debug_root = c->debug_root };
	const char *slash;
	int fd;

	if (!b || !(b->path = strip_deleted(m->path))) {
		free(b);
		return NULL;
	}
	slash = strrchr(b->path, '/');
	b->name = slash ? slash + 1 : b->path;
	w.path = b->path;
	w.root_pid = proc_root__of(pid);
	fd = open_mapped_file(b->path, m, pid, w.root_pid);
	if (fd < 0) {
		b->err = fd;
		return b;
	}
	b->err = debuginfo__load(fd, &w, &b->syms, &b->debug);
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
	b = binary__load(c, m, pid);
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
