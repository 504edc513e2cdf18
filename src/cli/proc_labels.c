// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process labels, looked up when a writer first asks for a pid. A
 * process that exited before then has none: what it had is not known.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_symtab.h"
#include "util/hashmap.h"
#include "proc_labels.h"

#define BUILD_ID_MAX 64
#define CGROUP_MAX   512
#define CONTAINER_ID 64

struct proc_entry {
	char build_id[2 * BUILD_ID_MAX + 1];
	char cgroup[CGROUP_MAX];
	char container[CONTAINER_ID + 1];
	struct proc_label labels[PROC_LABELS_MAX];
	size_t n;
};

struct proc_labels {
	struct proc_labeler labeler;
	struct hashmap idx; /* pid -> index in procs */
	struct proc_entry **procs;
	size_t n;
};

static void read_build_id(uint32_t pid, char *hex)
{
	uint8_t id[BUILD_ID_MAX];
	char path[64];
	size_t len = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!elf_symtab__read_build_id(fd, id, sizeof(id), &len))
		for (size_t i = 0; i < len; i++)
			sprintf(hex + 2 * i, "%02x", id[i]);
	close(fd);
}

/* The cgroup v2 path ("0::PATH"); "" under cgroup v1 or for a gone pid. */
static void read_cgroup(uint32_t pid, char *cg)
{
	char path[64], line[CGROUP_MAX + 8];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(cg, CGROUP_MAX, "%.*s", CGROUP_MAX - 1, line + 3);
		break;
	}
	fclose(f);
}

bool proc_labels__container(const char *cgroup, char id[65])
{
	const char *last = strrchr(cgroup, '/'), *p;
	size_t n;

	last = last ? last + 1 : cgroup;
	p = strrchr(last, '-');
	p = p ? p + 1 : last;
	for (n = 0; isxdigit((unsigned char)p[n]); n++)
		;
	if (n != CONTAINER_ID || (p[n] && strcmp(p + n, ".scope")))
		return false;
	memcpy(id, p, CONTAINER_ID);
	id[CONTAINER_ID] = '\0';
	return true;
}

static void entry_fill(struct proc_entry *e, uint32_t pid)
{
	read_build_id(pid, e->build_id);
	read_cgroup(pid, e->cgroup);
	if (e->build_id[0])
		e->labels[e->n++] = (struct proc_label){ "build_id", e->build_id };
	if (e->cgroup[0])
		e->labels[e->n++] = (struct proc_label){ "cgroup", e->cgroup };
	if (e->cgroup[0] && proc_labels__container(e->cgroup, e->container))
		e->labels[e->n++] = (struct proc_label){ "container", e->container };
}

static struct proc_entry *entry_findnew(struct proc_labels *pl, uint32_t pid)
{
	struct proc_entry **v, *e;
	uint64_t i;

	if (hashmap__get(&pl->idx, pid, &i))
		return pl->procs[i];
	v = realloc(pl->procs, (pl->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	pl->procs = v;
	e = calloc(1, sizeof(*e));
	if (!e || hashmap__set(&pl->idx, pid, pl->n)) {
		free(e);
		return NULL;
	}
	pl->procs[pl->n++] = e;
	entry_fill(e, pid);
	return e;
}

/* Out of memory: no labels, rather than no profile. */
static size_t get(void *arg, uint32_t pid, const struct proc_label **labels)
{
	struct proc_entry *e = entry_findnew(arg, pid);

	*labels = e ? e->labels : NULL;
	return e ? e->n : 0;
}

struct proc_labels *proc_labels__new(void)
{
	struct proc_labels *pl = calloc(1, sizeof(*pl));

	if (pl)
		pl->labeler = (struct proc_labeler){ .get = get, .arg = pl };
	return pl;
}

const struct proc_labeler *proc_labels__labeler(struct proc_labels *pl)
{
	return &pl->labeler;
}

void proc_labels__free(struct proc_labels *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->n; i++)
		free(pl->procs[i]);
	free(pl->procs);
	hashmap__free(&pl->idx);
	free(pl);
}
