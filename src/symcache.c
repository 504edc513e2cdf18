// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hashmap.h"
#include "mapped_file.h"
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

	if (b)
		b->lines_fd = -1;
	if (!b || !(b->path = mapped_file__path(m))) {
		free(b);
		return NULL;
	}
	slash = strrchr(b->path, '/');
	b->name = slash ? slash + 1 : b->path;
	w.path = b->path;
	w.root_pid = proc_root__of(pid);
	fd = mapped_file__open(b->path, m, pid, w.root_pid);
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
	uint64_t key = mapped_file__key(m);
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

/* The binary's own DWARF, else its debug file's. */
static int open_lines(const struct symcache *c, struct binary *b, const struct map_entry *m,
		      pid_t pid)
{
	struct debuginfo_where w = { .path = b->path, .root_pid = proc_root__of(pid),
				     .debug_root = c->debug_root };
	int fd = mapped_file__open(b->path, m, pid, w.root_pid), dfd;

	if (fd < 0)
		return fd;
	if (!srcline__open(fd, &b->lines)) {
		b->lines_fd = fd;
		return 0;
	}
	dfd = debuginfo__open_debug_file(fd, &w);
	close(fd);
	if (dfd < 0)
		return dfd;
	if (srcline__open(dfd, &b->lines)) {
		close(dfd);
		return -ENOENT;
	}
	b->lines_fd = dfd;
	return 0;
}

struct srcline *symcache__srcline(struct symcache *c, struct binary *b, const struct map_entry *m,
				  pid_t pid)
{
	if (!b->lines_tried) {
		b->lines_tried = true;
		open_lines(c, b, m, pid);
	}
	return b->lines;
}

void symcache__free(struct symcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		elf_symtab__free(c->v[i]->syms);
		srcline__free(c->v[i]->lines);
		if (c->v[i]->lines_fd >= 0)
			close(c->v[i]->lines_fd);
		free(c->v[i]->path);
		free(c->v[i]);
	}
	free(c->v);
	hashmap__free(&c->by_file);
	free(c);
}
