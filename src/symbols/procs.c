// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "util/strpool.h"
#include "proc_root.h"
#include "proc_start.h"
#include "procs.h"

/* /proc/PID/status is about 1.5 KiB, more with many supplementary groups. */
#define STATUS_MAX (16 * 1024)
#define NSPID_MAX  32

struct proc {
	pid_t pid;
	bool refreshed;		 /* a lookup miss already took a fresh snapshot */
	bool known;		 /* uid, nspid and root were read */
	bool pm_read;		 /* procs__perfmap read the perf map afresh */
	bool sampled;		 /* procs__note_sampled() */
	bool pm_held;		 /* pm_fd is its perf map, opened at a snapshot */
	int pm_fd;		 /* ... read when the file is gone by the end */
	uid_t uid;		 /* effective: who may own its perf map, besides root */
	time_t start;		 /* when it started: an older perf map is not its */
	pid_t nspid;		 /* its pid in its own pid namespace */
	int root;		 /* its root when not ours (proc_root__get), else 0 */
	struct perfmap *pm;	 /* NULL when it has none */
	struct perfmap *jit;	 /* its JIT's own names (procs__set_jit_map), or NULL */
	struct proc_maps *snaps; /* oldest first */
	size_t nsnaps;
	pid_t parent;		/* it forked from parent and has not exec'd since: its maps */
	struct map_entry *hist; /* mappings as they were made (mmap_events.c), oldest first */
	size_t nhist, hist_cap;
};

/* A process's start is known to the second, from two clocks read apart:
 * a map written in its first seconds must not look older than it. */
#define START_SLACK 2

/* Bounds what one process can make us keep (a JIT mapping code forever). */
#define HISTORY_MAX 4096
/* And all processes together (a system-wide capture of a busy machine):
 * about 100 bytes each, their paths shared. */
#define HISTORY_TOTAL_MAX (256 * 1024)
/* How far up a chain of forks without exec a lookup goes. */
#define PARENTS_MAX 8

struct procs {
	struct proc *v;
	size_t n, cap;
	size_t nhist;	       /* history entries of all processes */
	struct strpool paths;  /* the history's paths, each kept once */
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

/* The numbers after key (a line start, "\nUid:"), at most max of them. */
static size_t status_nums(const char *buf, const char *key, unsigned long *v, size_t max)
{
	const char *p = strstr(buf, key);
	size_t n = 0;
	char *end;

	if (!p)
		return 0;
	p += strlen(key);
	while (n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		v[n++] = strtoul(p, &end, 10);
		p = end;
	}
	return n;
}

/* Reads /proc/PID/status into buf (STATUS_MAX bytes), NUL-terminated. */
static int read_status(pid_t pid, char *buf)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, STATUS_MAX - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	return 0;
}

/* A root directory of its own is kept, to reach its files after it exits;
 * 0 (ours, or gone since its status was read) does not replace one. */
static void set_root(struct proc *p, int root)
{
	if (root <= 0)
		return;
	if (p->root > 0)
		close(p->root);
	p->root = root;
}

/* Who it runs as and its pid as it knows itself (the last of NSpid). */
static int read_identity(struct proc *p)
{
	unsigned long uids[4], nspids[NSPID_MAX];
	char *buf = malloc(STATUS_MAX);
	int err = buf ? read_status(p->pid, buf) : -ENOMEM;
	size_t nn;

	if (!err && status_nums(buf, "\nUid:", uids, 4) < 2)
		err = -EINVAL;
	if (err) {
		free(buf);
		return err;
	}
	nn = status_nums(buf, "\nNSpid:", nspids, NSPID_MAX);
	free(buf);
	p->uid = (uid_t)uids[1];
	p->nspid = nn ? (pid_t)nspids[nn - 1] : p->pid;
	set_root(p, proc_root__get(p->pid));
	if (proc_start__wall(p->pid, &p->start))
		p->start = 0;
	else
		p->start -= START_SLACK;
	p->known = true;
	return 0;
}

static void perfmap_path(const struct proc *p, char *path, size_t len)
{
	snprintf(path, len, "/tmp/perf-%d.map", (int)(p->root > 0 ? p->nspid : p->pid));
}

/* Reads its perf map afresh, or else the file a snapshot opened (a JIT may
 * delete it at exit). */
static void read_perfmap(struct proc *p)
{
	struct perfmap *pm;
	char path[64];

	if (!p->known)
		return;
	perfmap_path(p, path, sizeof(path));
	if (perfmap__read(p->root, path, p->uid, p->start, &pm) &&
	    (!p->pm_held || perfmap__read_fd(p->pm_fd, &pm)))
		return;
	perfmap__free(p->pm);
	p->pm = pm;
}

/* Opens its perf map, if it has one, to read it at the end: parsed at
 * every snapshot, a map of hundreds of MB would cost that much each time
 * a JIT maps code. */
static void hold_perfmap(struct proc *p)
{
	char path[64];
	int fd;

	if (!p->known || p->pm_held)
		return;
	perfmap_path(p, path, sizeof(path));
	fd = perfmap__open(p->root, path, p->uid, p->start);
	if (fd < 0)
		return;
	p->pm_fd = fd;
	p->pm_held = true;
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
	/* an exec may have changed who it runs as */
	read_identity(p);
	hold_perfmap(p);
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

/* The newest mapping made at addr: a later one replaced the older. */
static const struct map_entry *find_in_history(const struct proc *p, uint64_t addr)
{
	for (size_t i = p->nhist; i-- > 0;)
		if (addr >= p->hist[i].start && addr < p->hist[i].end)
			return &p->hist[i];
	return NULL;
}

int procs__add_history(struct procs *ps, pid_t pid, const struct map_entry *e)
{
	struct proc *p = findnew(ps, pid);
	struct map_entry copy = *e;

	if (!p)
		return -ENOMEM;
	if (p->nhist == HISTORY_MAX || ps->nhist == HISTORY_TOTAL_MAX)
		return -ENOSPC;
	copy.path = (char *)strpool__get(&ps->paths, e->path);
	if (!copy.path ||
	    array__push((void **)&p->hist, &p->nhist, &p->hist_cap, &copy, sizeof(copy))) {
		strpool__put(&ps->paths, copy.path);
		return -ENOMEM;
	}
	ps->nhist++;
	return 0;
}

int procs__note_sampled(struct procs *ps, pid_t pid)
{
	struct proc *p = findnew(ps, pid);
	uint64_t i;

	if (!p)
		return -ENOMEM;
	p->sampled = true;
	/* a child that has not exec'd is named through its parents' maps */
	for (int k = 0; k < PARENTS_MAX && p->parent && hashmap__get(&ps->by_pid, p->parent, &i);
	     k++) {
		p = &ps->v[i];
		p->sampled = true;
	}
	return 0;
}

bool procs__sampled(const struct procs *ps, pid_t pid)
{
	uint64_t i;

	return hashmap__get(&ps->by_pid, pid, &i) && ps->v[i].sampled;
}

/* Frees p's recorded mappings. */
static size_t free_history(struct procs *ps, struct proc *p)
{
	size_t n = p->nhist;

	for (size_t j = 0; j < n; j++)
		strpool__put(&ps->paths, p->hist[j].path);
	free(p->hist);
	p->hist = NULL;
	p->nhist = p->hist_cap = 0;
	ps->nhist -= n;
	return n;
}

size_t procs__drop_history(struct procs *ps, pid_t pid)
{
	uint64_t i;

	return hashmap__get(&ps->by_pid, pid, &i) ? free_history(ps, &ps->v[i]) : 0;
}

int procs__set_parent(struct procs *ps, pid_t pid, pid_t parent)
{
	struct proc *p = findnew(ps, pid);

	if (!p)
		return -ENOMEM;
	p->parent = parent;
	/* sampled before its fork was known: its parents are needed now */
	return p->sampled ? procs__note_sampled(ps, pid) : 0;
}

/* What the process knows without reading /proc again. */
static const struct map_entry *find_known(const struct proc *p, uint64_t addr)
{
	const struct map_entry *e = find_in_snaps(p, addr);

	return e ? e : find_in_history(p, addr);
}

/* The mapping a child that did not exec inherited. */
static const struct map_entry *find_in_parents(struct procs *ps, const struct proc *p,
					       uint64_t addr)
{
	const struct map_entry *e = NULL;
	uint64_t i;

	for (int depth = 0; !e && p->parent && depth < PARENTS_MAX; depth++) {
		if (!hashmap__get(&ps->by_pid, p->parent, &i))
			return NULL;
		p = &ps->v[i];
		e = find_known(p, addr);
	}
	return e;
}

const struct map_entry *procs__find(struct procs *ps, pid_t pid, uint64_t addr)
{
	struct proc *p = findnew(ps, pid);
	const struct map_entry *e;

	if (!p)
		return NULL;
	e = find_known(p, addr);
	if (!e && p->parent && p->refreshed)
		e = find_in_parents(ps, p, addr);
	if (e || p->refreshed)
		return e;
	/* one fresh look per process: later misses are really unmapped */
	p->refreshed = true;
	if (add_snapshot(p))
		return find_in_parents(ps, p, addr);
	return find_in_snaps(p, addr);
}

const struct proc_maps *procs__latest(struct procs *ps, pid_t pid)
{
	uint64_t i;

	if (!hashmap__get(&ps->by_pid, pid, &i) || !ps->v[i].nsnaps)
		return NULL;
	return &ps->v[i].snaps[ps->v[i].nsnaps - 1];
}

int procs__root(const struct procs *ps, pid_t pid)
{
	uint64_t i;

	return hashmap__get(&ps->by_pid, pid, &i) ? ps->v[i].root : 0;
}

const struct perfmap *procs__perfmap(struct procs *ps, pid_t pid)
{
	struct proc *p = findnew(ps, pid);

	if (!p)
		return NULL;
	if (!p->pm_read) {
		p->pm_read = true;
		read_identity(p); /* gone: what its snapshot saw */
		read_perfmap(p);
	}
	return p->pm;
}

struct proc_maps procs__history(const struct procs *ps, pid_t pid)
{
	uint64_t i;

	if (!hashmap__get(&ps->by_pid, pid, &i))
		return (struct proc_maps){ NULL, 0 };
	return (struct proc_maps){ ps->v[i].hist, ps->v[i].nhist };
}

int procs__set_jit_map(struct procs *ps, pid_t pid, struct perfmap *m)
{
	struct proc *p = findnew(ps, pid);

	if (!p) {
		perfmap__free(m);
		return -ENOMEM;
	}
	perfmap__free(p->jit);
	p->jit = m;
	return 0;
}

const struct perfmap *procs__jit_map(const struct procs *ps, pid_t pid)
{
	uint64_t i;

	return hashmap__get(&ps->by_pid, pid, &i) ? ps->v[i].jit : NULL;
}

void procs__perfmap_changed(struct procs *ps, pid_t pid)
{
	uint64_t i;

	if (hashmap__get(&ps->by_pid, pid, &i))
		ps->v[i].pm_read = false;
}

size_t procs__size(const struct procs *ps)
{
	return ps->n;
}

pid_t procs__pid_at(const struct procs *ps, size_t i)
{
	return i < ps->n && ps->v[i].nsnaps ? ps->v[i].pid : 0;
}

size_t procs__count(const struct procs *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++)
		n += ps->v[i].nsnaps > 0;
	return n;
}

static void proc_free(struct procs *ps, struct proc *p)
{
	for (size_t j = 0; j < p->nsnaps; j++)
		proc_maps__free(&p->snaps[j]);
	free(p->snaps);
	free_history(ps, p);
	perfmap__free(p->pm);
	perfmap__free(p->jit);
	if (p->pm_held)
		close(p->pm_fd);
	if (p->root > 0)
		close(p->root);
}

size_t procs__evict(struct procs *ps, bool (*keep)(pid_t pid, void *arg), void *arg)
{
	size_t n = 0, gone;

	/* rebuilt: the hash map cannot delete; a pid it fails to take is
	 * found no more, and gets a new entry if it is seen again */
	hashmap__free(&ps->by_pid);
	for (size_t i = 0; i < ps->n; i++) {
		if (!keep(ps->v[i].pid, arg)) {
			proc_free(ps, &ps->v[i]);
			continue;
		}
		ps->v[n] = ps->v[i];
		hashmap__set(&ps->by_pid, ps->v[n].pid, n);
		n++;
	}
	gone = ps->n - n;
	ps->n = n;
	strpool__trim(&ps->paths); /* kept if out of memory: freed at the end */
	return gone;
}

size_t procs__trim(struct procs *ps)
{
	size_t dropped = 0;

	for (size_t i = 0; i < ps->n; i++) {
		struct proc *p = &ps->v[i];

		if (p->nsnaps < 2)
			continue;
		for (size_t j = 0; j + 1 < p->nsnaps; j++)
			proc_maps__free(&p->snaps[j]);
		p->snaps[0] = p->snaps[p->nsnaps - 1];
		dropped += p->nsnaps - 1;
		p->nsnaps = 1;
	}
	return dropped;
}

void procs__free(struct procs *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n; i++)
		proc_free(ps, &ps->v[i]);
	free(ps->v);
	hashmap__free(&ps->by_pid);
	strpool__free(&ps->paths);
	free(ps);
}
