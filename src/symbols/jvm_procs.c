// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "util/pid_registry.h"
#include "elf_object.h"
#include "jvm_procs.h"
#include "jvm_structs.h"
#include "mapped_file.h"
#include "proc_mem.h"
#include "runtime.h"
#include "unwind.h"

#define METHOD_NAME_MAX 1024
/* A JVM's tables read again, a few times a second, this many times at
 * most when they cannot be: a launcher that loads libjvm.so is seen
 * mapping it before the loader has relocated its data. */
#define LAYOUT_TRIES 20
/* Methods named per process at most: the words a stack carries are the
 * process's own (it may be hostile), each a name kept. */
#define METHODS_MAX 65536

struct jvm_proc {
	pid_t pid;
	uint64_t libjvm;    /* where its libjvm.so starts: a new one is read afresh */
	int layout_err;	    /* 0: layout read; else why it could not be */
	unsigned int tries; /* reads of the layout that failed */
	struct jvm_layout layout;
	bool found;	    /* its interpreter was */
	uint64_t call_stub; /* jvm_structs__call_stub() */
	struct hashmap idx; /* method address -> 1 + index in names, 0: not named */
	size_t nidx;	    /* its entries */
	char **names;
	size_t nnames, names_cap;
};

struct jvm_procs {
	struct pid_registry procs; /* of struct jvm_proc */
};

static void init_proc(void *entry, pid_t pid)
{
	*(struct jvm_proc *)entry = (struct jvm_proc){ .pid = pid, .layout_err = -ENOENT };
}

/* The methods named in entry's process: another's from now on. */
static void forget_names(void *entry)
{
	struct jvm_proc *e = entry;

	for (size_t i = 0; i < e->nnames; i++)
		free(e->names[i]);
	free(e->names);
	e->names = NULL;
	e->nnames = e->names_cap = e->nidx = 0;
	hashmap__free(&e->idx);
}

struct jvm_procs *jvm_procs__new(void)
{
	struct jvm_procs *jp = calloc(1, sizeof(struct jvm_procs));

	if (jp)
		pid_registry__init(&jp->procs, sizeof(struct jvm_proc), init_proc, forget_names);
	return jp;
}

/* pid's mapping of libjvm.so (the first), or NULL. */
static const struct map_entry *libjvm_mapping(struct procs *ps, pid_t pid)
{
	const struct proc_maps *m = procs__latest(ps, pid);
	const char *jvm;

	if (runtime__of(m, &jvm) != RUNTIME_JVM)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].path == jvm || !strcmp(m->v[i].path, jvm))
			return &m->v[i];
	return NULL;
}

/* The addresses in pid of the tables' symbols (jvm_symbol_names). */
static int locate_tables(const struct map_entry *m, pid_t pid, int root, uint64_t *sym)
{
	char *path = mapped_file__path(m);
	int fd = path ? mapped_file__open(path, m, pid, root) : -ENOMEM, err;
	uint64_t start;

	free(path);
	if (fd < 0)
		return fd;
	err = elf_object__find(fd, jvm_symbol_names, JVM_NSYMBOLS, sym);
	if (!err)
		err = elf_object__vaddr(fd, m->offset, &start);
	close(fd);
	for (int i = 0; !err && i < JVM_NSYMBOLS; i++)
		sym[i] = sym[i] ? m->start - start + sym[i] : 0;
	return err;
}

/* e's layout, read once for its libjvm.so at m: -EAGAIN while it cannot
 * be read and may be later (LAYOUT_TRIES). A libjvm.so elsewhere is
 * another JVM's, whose methods are not the ones named before. */
static int layout_of(struct jvm_proc *e, const struct map_entry *m, int root)
{
	struct proc_mem mem = { proc_mem__read, (void *)(intptr_t)e->pid };
	uint64_t sym[JVM_NSYMBOLS];
	int err;

	if (e->libjvm != m->start) {
		e->libjvm = m->start;
		e->layout_err = -EAGAIN;
		e->tries = 0;
		e->found = false;
		forget_names(e);
	}
	if (e->layout_err != -EAGAIN)
		return e->layout_err;
	/* a libjvm.so without the tables' symbols: not a HotSpot to read */
	err = locate_tables(m, e->pid, root, sym);
	if (err) {
		e->layout_err = err;
		return err;
	}
	err = jvm_structs__read(&mem, sym, &e->layout);
	if (err && ++e->tries < LAYOUT_TRIES)
		err = -EAGAIN;
	e->layout_err = err;
	return err;
}

int jvm_procs__detect(struct jvm_procs *jp, struct procs *ps, pid_t pid, uint64_t *lo, uint64_t *hi)
{
	struct proc_mem mem = { proc_mem__read, (void *)(intptr_t)pid };
	const struct map_entry *m = libjvm_mapping(ps, pid);
	struct jvm_proc *e = pid_registry__find(&jp->procs, pid);
	int err;

	if (!m) {
		if (e)
			e->found = false; /* exec'd into something else */
		return -ENOENT;
	}
	e = e ?: pid_registry__findnew(&jp->procs, pid);
	if (!e)
		return -ENOMEM;
	err = layout_of(e, m, procs__root(ps, pid));
	err = err ?: jvm_structs__interpreter(&mem, &e->layout, lo, hi);
	/* a read that failed now (it exits) takes back no name */
	if (!err) {
		e->found = true;
		e->call_stub = jvm_structs__call_stub(&mem, &e->layout);
	}
	return err;
}

/* Method method of e: named now unless it was before (or could not be). */
static int name_method(struct jvm_proc *e, uint64_t method)
{
	struct proc_mem mem = { proc_mem__read, (void *)(intptr_t)e->pid };
	char name[METHOD_NAME_MAX];
	uint64_t i;
	char *s = NULL;

	if (hashmap__get(&e->idx, method, &i) || e->nidx >= METHODS_MAX)
		return 0;
	if (!jvm_structs__method(&mem, &e->layout, method, name, sizeof(name))) {
		s = strdup(name);
		if (!s ||
		    array__push((void **)&e->names, &e->nnames, &e->names_cap, &s, sizeof(s))) {
			free(s);
			return -ENOMEM;
		}
	}
	e->nidx++;
	return hashmap__set(&e->idx, method, s ? e->nnames : 0);
}

bool jvm_procs__stack_pid(const uint64_t *ip, uint32_t nr, pid_t *pid)
{
	if (!nr || ip[nr - 1] >> 32 != UNWIND_JVM_PID >> 32)
		return false;
	*pid = (pid_t)(uint32_t)ip[nr - 1];
	return true;
}

int jvm_procs__read_stack(struct jvm_procs *jp, const uint64_t *ip, uint32_t nr)
{
	struct jvm_proc *e;
	pid_t pid;
	int err = 0;

	if (!jvm_procs__stack_pid(ip, nr, &pid))
		return 0;
	e = pid_registry__find(&jp->procs, pid);
	if (!e || !e->found)
		return 0;
	for (uint32_t i = 0; i + 1 < nr && !err; i++)
		if ((ip[i] & UNWIND_JVM_TAG_MASK) == UNWIND_JVM_METHOD)
			err = name_method(e, ip[i] & ~UNWIND_JVM_TAG_MASK);
	return err;
}

const char *jvm_procs__method(const struct jvm_procs *jp, pid_t pid, uint64_t word)
{
	const struct jvm_proc *e = pid_registry__find(&jp->procs, pid);
	uint64_t i;

	if (!e || !hashmap__get(&e->idx, word & ~UNWIND_JVM_TAG_MASK, &i) || !i)
		return NULL;
	return e->names[i - 1];
}

void jvm_procs__forget(struct jvm_procs *jp, pid_t pid)
{
	pid_registry__forget(&jp->procs, pid);
}

bool jvm_procs__is_call_stub(const struct jvm_procs *jp, pid_t pid, uint64_t ip)
{
	const struct jvm_proc *e = pid_registry__find(&jp->procs, pid);

	return e && e->call_stub && ip == e->call_stub;
}

void jvm_procs__free(struct jvm_procs *jp)
{
	if (!jp)
		return;
	pid_registry__free(&jp->procs);
	free(jp);
}
