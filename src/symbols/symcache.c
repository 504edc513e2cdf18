// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/hashmap.h"
#include "mapped_file.h"
#include "proc_root.h"
#include "symcache.h"
#include "vdso_image.h"

/* Binaries whose names stay in their files, each holding the file open
 * to read them: beyond, a table keeps its names (the fds a capture can
 * open are bounded too). */
#define NAMES_FDS_MAX 128

struct symcache {
	struct binary **v;
	size_t n;
	size_t names_fds;	    /* binaries holding names_fd */
	unsigned long age;	    /* symcache__age's count */
	struct hashmap by_file;	    /* hash(dev, inode) -> index in v */
	struct hashmap by_build_id; /* hash(build-id) -> index in v */
	const char *debug_root;
	struct binary *vdso; /* the kernel's vDSO (symcache__vdso), kept apart from v */
	uint64_t vdso_size;
	bool vdso_tried;
};

struct symcache *symcache__new(const char *debug_root)
{
	struct symcache *c = calloc(1, sizeof(struct symcache));

	if (c)
		c->debug_root = debug_root;
	return c;
}

/* The build-id of the file fd in hex (b->build_id's size), and its key;
 * false when it has none. */
static bool hex_build_id(int fd, char *hex, uint64_t *key)
{
	uint8_t id[64];
	size_t len;

	if (elf_symtab__read_build_id(fd, id, sizeof(id), &len))
		return false;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	*key = hash_bytes(id, len, 0x6275696c64ULL) | 1; /* 0 is no key */
	return true;
}

/* A binary read already with the build-id hex (another copy of the file:
 * another container, a replaced file), or NULL. */
static const struct binary *same_build(const struct symcache *c, const char *hex, uint64_t key)
{
	uint64_t i;

	if (!hashmap__get(&c->by_build_id, key, &i) || strcmp(c->v[i]->build_id, hex))
		return NULL;
	return c->v[i];
}

/* The binary at path (taken over), its symbols not read yet. */
static struct binary *binary__new(char *path)
{
	struct binary *b = calloc(1, sizeof(*b));
	const char *slash = strrchr(path, '/');

	if (!b) {
		free(path);
		return NULL;
	}
	b->lines_fd = -1;
	b->names_fd = -1;
	b->path = path;
	b->name = slash ? slash + 1 : b->path;
	return b;
}

/* Its symbols from fd (or why not), or those of other, the same build in
 * another file: b keeps its own path and name for its frames, and reads
 * the names from other's file (a copy with the same build-id may be
 * stripped, its layout another). The names stay in the file, which b keeps
 * open (fd is then b's), while fewer than NAMES_FDS_MAX do. */
static void binary__read(struct symcache *c, struct binary *b, struct debuginfo_where *w, int fd,
			 const struct binary *other)
{
	if (other) {
		b->syms = other->syms;
		b->err = other->err;
		b->debug = other->debug;
		b->borrowed = true;
		b->names = other; /* an owner: borrowers are not found by build-id */
		return;
	}
	w->path = b->path;
	w->names_left = c->names_fds < NAMES_FDS_MAX;
	b->err = fd < 0 ? fd : debuginfo__load(fd, w, &b->syms, &b->debug);
	if (b->err || !w->names_left)
		return;
	b->names_fd = fd;
	c->names_fds++;
}

static void binary__free(struct symcache *c, struct binary *b)
{
	if (!b->borrowed)
		elf_symtab__free(b->syms);
	srcline__free(b->lines);
	if (b->lines_fd >= 0)
		close(b->lines_fd);
	if (b->names_fd >= 0) {
		close(b->names_fd);
		c->names_fds--;
	}
	free(b->path);
	free(b);
}

static int add_binary(struct symcache *c, struct binary *b, uint64_t file_key, uint64_t id_key)
{
	struct binary **v = realloc(c->v, (c->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->v = v;
	if (hashmap__set(&c->by_file, file_key, c->n) ||
	    (id_key && b->build_id[0] && hashmap__set(&c->by_build_id, id_key, c->n)))
		return -ENOMEM;
	c->v[c->n++] = b;
	return 0;
}

struct binary *symcache__findnew(struct symcache *c, const struct map_entry *m, pid_t pid, int root)
{
	struct debuginfo_where w = { .debug_root = c->debug_root, .root = root };
	uint64_t key = mapped_file__key(m), id_key = 0, i;
	const struct binary *other = NULL;
	struct binary *b;
	char *path;
	int fd;

	if (hashmap__get(&c->by_file, key, &i)) {
		c->v[i]->used = c->age;
		return c->v[i];
	}
	path = mapped_file__path(m);
	b = path ? binary__new(path) : NULL;
	if (!b)
		return NULL;
	fd = mapped_file__open(b->path, m, pid, root);
	if (fd >= 0 && hex_build_id(fd, b->build_id, &id_key))
		other = same_build(c, b->build_id, id_key);
	binary__read(c, b, &w, fd, other);
	if (fd >= 0 && fd != b->names_fd)
		close(fd);
	b->file_key = key;
	b->id_key = other ? 0 : id_key;
	b->used = c->age;
	if (add_binary(c, b, key, b->id_key)) {
		binary__free(c, b);
		return NULL;
	}
	return b;
}

/* The binary's own DWARF, else its debug file's. */
static int open_lines(const struct symcache *c, struct binary *b, const struct map_entry *m,
		      pid_t pid, int root)
{
	struct debuginfo_where w = { .path = b->path, .root = root, .debug_root = c->debug_root };
	int fd = mapped_file__open(b->path, m, pid, root), dfd;

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
				  pid_t pid, int root)
{
	if (!b->lines_tried) {
		b->lines_tried = true;
		open_lines(c, b, m, pid, root);
	}
	return b->lines;
}

char *symcache__name(const struct binary *b, uint64_t in_file)
{
	const struct binary *at = b->names ? b->names : b;
	char *name;

	if (at->names_fd < 0 || elf_symtab__read_name(at->names_fd, in_file, &name))
		return NULL;
	return name;
}

void symcache__age(struct symcache *c)
{
	c->age++;
}

/* Keeps b if used in the last ages ages; a binary whose symbols another
 * kept one borrows (the same build-id) stays with it. */
static void mark_kept(const struct symcache *c, unsigned long ages, bool *keep)
{
	uint64_t owner;

	for (size_t i = 0; i < c->n; i++)
		keep[i] = c->age - c->v[i]->used < ages;
	for (size_t i = 0; i < c->n; i++) {
		const struct binary *b = c->v[i];

		if (!keep[i] || !b->borrowed)
			continue;
		for (owner = 0; owner < c->n; owner++)
			if (!c->v[owner]->borrowed && c->v[owner]->syms == b->syms)
				keep[owner] = true;
	}
}

/* The heap b's symbols hold, counted once: at the binary they were read for. */
static size_t own_bytes(const struct binary *b)
{
	return b->borrowed ? 0 : elf_symtab__bytes(b->syms);
}

/* When the binaries whose symbols are o's were last found: o's own age, or
 * that of a kept one borrowing them. */
static unsigned long group_used(const struct symcache *c, size_t o, const bool *keep)
{
	unsigned long used = c->v[o]->used;

	for (size_t i = 0; i < c->n; i++)
		if (keep[i] && c->v[i]->borrowed && c->v[i]->syms == c->v[o]->syms &&
		    c->v[i]->used > used)
			used = c->v[i]->used;
	return used;
}

/* Unkeeps o and those borrowing its symbols. */
static void unkeep_group(const struct symcache *c, size_t o, bool *keep)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i]->syms == c->v[o]->syms && (i == o || c->v[i]->borrowed))
			keep[i] = false;
}

/* Beyond budget bytes, the binaries found longest ago are let go too, with
 * those borrowing their symbols. */
static void keep_within(const struct symcache *c, size_t budget, bool *keep)
{
	size_t total = 0;

	for (size_t i = 0; i < c->n; i++)
		total += keep[i] ? own_bytes(c->v[i]) : 0;
	while (total > budget) {
		size_t oldest = SIZE_MAX;
		unsigned long best = ULONG_MAX, used;

		for (size_t i = 0; i < c->n; i++) {
			if (!keep[i] || c->v[i]->borrowed)
				continue;
			used = group_used(c, i, keep);
			if (used < best) {
				best = used;
				oldest = i;
			}
		}
		if (oldest == SIZE_MAX)
			return;
		total -= own_bytes(c->v[oldest]);
		unkeep_group(c, oldest, keep);
	}
}

size_t symcache__evict(struct symcache *c, unsigned long ages, size_t budget)
{
	bool *keep = calloc(c->n ? c->n : 1, sizeof(*keep));
	size_t n = 0, gone;

	if (!keep)
		return 0;
	mark_kept(c, ages, keep);
	keep_within(c, budget, keep);
	hashmap__free(&c->by_file);
	hashmap__free(&c->by_build_id);
	for (size_t i = 0; i < c->n; i++) {
		struct binary *b = c->v[i];

		if (!keep[i]) {
			binary__free(c, b);
			continue;
		}
		/* a binary the maps fail to take is read again when seen again */
		c->v[n] = b;
		hashmap__set(&c->by_file, b->file_key, n);
		if (b->id_key && b->build_id[0])
			hashmap__set(&c->by_build_id, b->id_key, n);
		n++;
	}
	free(keep);
	gone = c->n - n;
	c->n = n;
	return gone;
}

/* The image read into a binary of its own, never evicted: every process
 * maps it. */
static struct binary *read_vdso(struct symcache *c, uint64_t *size)
{
	struct debuginfo_where w = { .debug_root = c->debug_root };
	char *path = strdup("[vdso]");
	struct binary *b = path ? binary__new(path) : NULL;
	uint64_t key;
	int fd;

	if (!b)
		return NULL;
	fd = vdso_image__open(size);
	if (fd >= 0)
		hex_build_id(fd, b->build_id, &key);
	binary__read(c, b, &w, fd, NULL);
	if (fd >= 0 && fd != b->names_fd)
		close(fd);
	if (!b->syms) {
		binary__free(c, b);
		return NULL;
	}
	return b;
}

struct binary *symcache__vdso(struct symcache *c, uint64_t size)
{
	if (!c->vdso_tried) {
		c->vdso_tried = true;
		c->vdso = read_vdso(c, &c->vdso_size);
	}
	return c->vdso && size == c->vdso_size ? c->vdso : NULL;
}

void symcache__free(struct symcache *c)
{
	if (!c)
		return;
	if (c->vdso)
		binary__free(c, c->vdso);
	for (size_t i = 0; i < c->n; i++)
		binary__free(c, c->v[i]);
	free(c->v);
	hashmap__free(&c->by_file);
	hashmap__free(&c->by_build_id);
	free(c);
}
