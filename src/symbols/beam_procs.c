// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/pid_registry.h"
#include "beam_jit.h"
#include "beam_procs.h"
#include "proc_mem.h"
#include "runtime.h"

struct beam_node {
	pid_t pid;
	uint64_t descriptor; /* __jit_debug_descriptor in the process */
	uint64_t stamp;	     /* the list's state when last read (beam_jit__read) */
	bool gone;	     /* it could not be read: it exited */
};

struct beam_procs {
	struct pid_registry nodes; /* of struct beam_node */
	beam_procs_fn changed;
	void *ctx;
};

static void init_node(void *entry, pid_t pid)
{
	*(struct beam_node *)entry = (struct beam_node){ .pid = pid };
}

struct beam_procs *beam_procs__new(beam_procs_fn changed, void *ctx)
{
	struct beam_procs *bp = calloc(1, sizeof(struct beam_procs));

	if (bp) {
		pid_registry__init(&bp->nodes, sizeof(struct beam_node), init_node, NULL);
		bp->changed = changed;
		bp->ctx = ctx;
	}
	return bp;
}

/* The first mapping of beam.smp in pid's newest snapshot. */
static const struct map_entry *beam_mapping(struct procs *ps, pid_t pid)
{
	const struct proc_maps *m = procs__latest(ps, pid);
	const char *jvm;

	for (size_t i = 0; m && i < m->n; i++) {
		struct proc_maps one = { &m->v[i], 1 };

		if (m->v[i].path[0] == '/' && runtime__of(&one, &jvm) == RUNTIME_BEAM)
			return &m->v[i];
	}
	return NULL;
}

/* The JIT's code as far as the mappings that hold it reach: a module
 * loaded after this read lies there too, most often. */
static void widen_to_mappings(struct procs *ps, pid_t pid, struct beam_jit_info *info)
{
	const struct proc_maps *m = procs__latest(ps, pid);
	const struct map_entry *lo, *hi;

	if (!m || !info->code_hi)
		return;
	lo = proc_maps__find(m, info->code_lo);
	hi = proc_maps__find(m, info->code_hi - 1);
	if (lo)
		info->code_lo = lo->start;
	if (hi)
		info->code_hi = hi->end;
}

/* Its names read again when its JIT changed them since. */
static void refresh_node(const struct beam_procs *bp, struct beam_node *b, struct procs *ps)
{
	struct proc_mem mem = { proc_mem__read, (void *)(intptr_t)b->pid };
	struct beam_jit_info info;
	struct perfmap *m;
	int err;

	if (b->gone)
		return;
	err = beam_jit__read(&mem, b->descriptor, &b->stamp, procs__jit_map(ps, b->pid), &m, &info);
	/* gone only when the process is: a node starting up may not have
	 * its descriptor readable or filled in yet (tried again later) */
	if ((err == -EFAULT || err == -EPROTO) && kill(b->pid, 0) && errno == ESRCH)
		b->gone = true;
	if (err || procs__set_jit_map(ps, b->pid, m))
		return;
	widen_to_mappings(ps, b->pid, &info);
	if (bp->changed)
		bp->changed(bp->ctx, b->pid, &info);
}

int beam_procs__detect(struct beam_procs *bp, struct procs *ps, pid_t pid)
{
	const struct map_entry *m = beam_mapping(ps, pid);
	struct beam_node *b;
	uint64_t descriptor;
	int err;

	if (!m)
		return -ENOENT;
	err = beam_jit__locate(procs__root(ps, pid), m, &descriptor);
	if (err)
		return err;
	b = pid_registry__findnew(&bp->nodes, pid);
	if (!b)
		return -ENOMEM;
	/* the same image seen again (a new mapping): the stamp says whether
	 * its names changed */
	if (b->descriptor != descriptor)
		*b = (struct beam_node){ .pid = pid, .descriptor = descriptor };
	b->gone = false;
	refresh_node(bp, b, ps);
	return 0;
}

/* How often a read of all is tried again while the JIT changes its list
 * under it (a torn read leaves the stamp 0). */
#define REREAD_TRIES 3

void beam_procs__refresh(struct beam_procs *bp, struct procs *ps, bool all)
{
	for (size_t i = 0; i < pid_registry__count(&bp->nodes); i++) {
		struct beam_node *b = pid_registry__at(&bp->nodes, i);

		b->stamp = all ? 0 : b->stamp;
		refresh_node(bp, b, ps);
		for (int k = 1; all && k < REREAD_TRIES && !b->gone && !b->stamp; k++)
			refresh_node(bp, b, ps);
	}
}

size_t beam_procs__count(const struct beam_procs *bp)
{
	return pid_registry__count(&bp->nodes);
}

void beam_procs__free(struct beam_procs *bp)
{
	if (!bp)
		return;
	pid_registry__free(&bp->nodes);
	free(bp);
}
