// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "procs.h"

struct proc {
	pid_t pid;
	bool refreshed;		 /* a lookup miss already took a fresh snapshot */
	struct proc_maps *snaps; /* oldest first */
	size_t nsnaps;
};

struct procs {
	struct proc *v;
	size_t n, cap;
	struct hashmap by_pid; /* pid -> index in v */
};

struct procs *procs__new(void)
{
	return calloc(1, sizeof(struct procs));
}

static struct proc *findnew(struct procs *ps, pid_t pid)
{
	uint64_t i;

	if (hashmap__get(&ps->by_pid, pid, &i))
		return &ps->v[i];
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		struct proc *v = realloc(ps->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		ps->v = v;
		ps->cap = cap;
	}
	if (hashmap__set(&ps->by_pid, pid, ps->n))
		return NULL;
	memset(&ps->v[ps->n], 0, sizeof(ps->v[ps->n]));
	ps->v[ps->n].pid = pid;
	return &ps->v[ps->n++];
}

static int add_snapshot(struct proc *p)
{
	struct proc_maps m, *snaps;
	int err = proc_maps__read(p->pid, &m);

	if (err)
		return err;
	snaps = realloc(p->snaps, (p->nsnaps + 1) * sizeof(*snaps));
	if (!snaps) {
		proc_maps__free(&m);
		return -ENOMEM;
	}
	p->snaps = snaps;
	p->snaps[p->nsnaps++] = m;
	return 0;
}

int procs__snapshot(struct procs *ps, pid_t pid)
{
	struct proc *p = findnew(ps, pid);

	return p ? add_snapshot(p) : -ENOMEM;
}

static const struct map_entry *find_in_snaps(const struct proc *p, uint64_t addr)
{
	for (size_t i = p->nsnaps; i-- > 0;) {
		const struct map_entry *e = proc_maps__find(&p->snaps[i], addr);

		if (e)
			return e;
	}
	return NULL;
}

const struct map_entry *procs__find(struct procs *ps, pid_t pid, uint64_t addr)
{
	struct proc *p = findnew(ps, pid);
	const struct map_entry *e;

	if (!p)
		return NULL;
	e = find_in_snaps(p, addr);
	if (e || p->refreshed)
		return e;
	/* one fresh look per process: later misses are really unmapped */
	p->refreshed = true;
	if (add_snapshot(p))
		return NULL;
	return find_in_snaps(p, addr);
}

size_t procs__count(const struct procs *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++)
		n += ps->v[i].nsnaps > 0;
	return n;
}

void procs__free(struct procs *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n; i++) {
		for (size_t j = 0; j < ps->v[i].nsnaps; j++)
			proc_maps__free(&ps->v[i].snaps[j]);
		free(ps->v[i].snaps);
	}
	free(ps->v);
	hashmap__free(&ps->by_pid);
	free(ps);
}
