// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/array.h"
#include "mmap_events.h"

#define RING_PAGES 64 /* 256 KiB a CPU: a process start makes ~1 KiB of records */

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size; /* of data, a power of two */
};

struct mmap_events {
	struct procs *ps;
	mmap_events_keep keep;
	void *arg;
	struct ring *rings;
	int nrings;
	size_t page;
	struct mmap_events_stats st;
	void (*mapped)(pid_t pid, void *arg); /* during a drain: told of new code */
	void *mapped_arg;
	pid_t *exited; /* processes whose exit the last drain saw, unsampled */
	size_t nexited, exited_cap;
};

/* The fixed part of PERF_RECORD_MMAP2 (without build-id); the file name
 * follows, NUL-terminated and padded to 8 bytes. */
struct mmap2_record {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct fork_record {
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct comm_record {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct lost_record {
	struct perf_event_header h;
	uint64_t id, lost;
};

static int open_ring(struct ring *r, int cpu, size_t page)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.mmap = 1, /* executable mappings only (no mmap_data) */
		.mmap2 = 1,
		.task = 1, /* forks: a child that does not exec has its parent's maps */
		.comm = 1,
		.comm_exec = 1, /* ... until it execs */
		.watermark = 1,
		.wakeup_watermark = 1, /* nobody waits on it: drained on each poll */
	};
	void *base;

	r->fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	r->size = (uint64_t)RING_PAGES * page;
	base = mmap(NULL, page + r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	r->meta = base;
	r->data = (unsigned char *)base + page;
	return 0;
}

int mmap_events__open(struct mmap_events **out, struct procs *ps, mmap_events_keep keep, void *arg)
{
	struct mmap_events *m = calloc(1, sizeof(*m));
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	int err = 0, opened = 0;

	if (!m)
		return -ENOMEM;
	m->ps = ps;
	m->keep = keep;
	m->arg = arg;
	m->page = (size_t)sysconf(_SC_PAGESIZE);
	m->rings = calloc(ncpus > 0 ? ncpus : 1, sizeof(*m->rings));
	if (!m->rings) {
		free(m);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < ncpus; cpu++)
		m->rings[cpu].fd = -1;
	m->nrings = (int)ncpus;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		err = open_ring(&m->rings[cpu], cpu, m->page);
		if (err == -ENODEV) /* offline */
			continue;
		if (err)
			break;
		opened++;
	}
	if (err || !opened) {
		mmap_events__free(m);
		return err ? err : -ENODEV;
	}
	*out = m;
	return 0;
}

/* The kernel's name for a mapping of no file: "//anon" (a JIT's code), or
 * "//toolong" for a path too long to write. Kept as a binary's path, it
 * named JIT code "anon+0x..." wherever no snapshot held the mapping
 * (--unwind fp takes one at the start), and the perf map went unread. */
static bool no_file(const char *name)
{
	return !strncmp(name, "//", 2);
}

static void take_mmap2(struct mmap_events *m, const unsigned char *rec, size_t size)
{
	const struct mmap2_record *r = (const void *)rec;
	size_t name_max = size - sizeof(*r);
	struct map_entry e;

	if (size <= sizeof(*r) || (r->h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return;
	if (m->keep && !m->keep((pid_t)r->pid, m->arg))
		return;
	if (!memchr(r->filename, '\0', name_max) || r->filename[0] != '/')
		return; /* special ([vdso]): nothing to name it by */
	if (no_file(r->filename)) {
		if (m->mapped) /* new JIT code all the same: the unwinder's tables */
			m->mapped((pid_t)r->pid, m->mapped_arg);
		return;
	}
	e = (struct map_entry){
		.start = r->addr,
		.end = r->addr + r->len,
		.offset = r->pgoff,
		.inode = r->ino,
		.dev_major = r->maj,
		.dev_minor = r->min,
		.perms = "r-xp",
		.path = (char *)r->filename,
	};
	if (e.end <= e.start || procs__add_history(m->ps, (pid_t)r->pid, &e))
		return;
	m->st.mappings++;
	if (m->mapped)
		m->mapped((pid_t)r->pid, m->mapped_arg);
}

static void take_record(struct mmap_events *m, const unsigned char *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;

	if (h->type == PERF_RECORD_MMAP2) {
		take_mmap2(m, rec, size);
	} else if (h->type == PERF_RECORD_FORK && size >= sizeof(struct fork_record)) {
		const struct fork_record *f = (const void *)rec;

		if (f->pid != f->ppid && (!m->keep || m->keep((pid_t)f->pid, m->arg)))
			procs__set_parent(m->ps, (pid_t)f->pid, (pid_t)f->ppid); /* a process */
	} else if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) &&
		   size >= sizeof(struct comm_record)) {
		const struct comm_record *c = (const void *)rec;

		if (c->pid == c->tid && (!m->keep || m->keep((pid_t)c->pid, m->arg)))
			procs__set_parent(m->ps, (pid_t)c->pid, 0);
	} else if (h->type == PERF_RECORD_EXIT && size >= sizeof(struct fork_record)) {
		const struct fork_record *f = (const void *)rec;
		pid_t pid = (pid_t)f->pid;

		if (f->pid == f->tid && !procs__sampled(m->ps, pid))
			array__push((void **)&m->exited, &m->nexited, &m->exited_cap, &pid,
				    sizeof(pid));
	} else if (h->type == PERF_RECORD_LOST && size >= sizeof(struct lost_record))
		m->st.lost += ((const struct lost_record *)rec)->lost;
}

static void drain_ring(struct mmap_events *m, struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	unsigned char buf[sizeof(struct mmap2_record) + 4096 + 64];

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & (r->size - 1), first;

		if (head - tail < sizeof(h))
			break;
		/* a record may wrap around the end of the ring */
		first = r->size - off < sizeof(h) ? r->size - off : sizeof(h);
		memcpy(&h, r->data + off, first);
		memcpy((unsigned char *)&h + first, r->data, sizeof(h) - first);
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (h.size <= sizeof(buf)) {
			first = r->size - off < h.size ? r->size - off : h.size;
			memcpy(buf, r->data + off, first);
			memcpy(buf + first, r->data, h.size - first);
			take_record(m, buf, h.size);
		}
		tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* The mappings recorded of the processes that exited before the last
 * drain without a sample noted since: the samples' events they sent
 * before exiting have been read in between. */
static void forget_unsampled(struct mmap_events *m)
{
	for (size_t i = 0; i < m->nexited; i++)
		if (!procs__sampled(m->ps, m->exited[i]))
			m->st.forgotten += procs__drop_history(m->ps, m->exited[i]);
	m->nexited = 0;
}

void mmap_events__drain(struct mmap_events *m, void (*mapped)(pid_t pid, void *arg), void *arg)
{
	forget_unsampled(m);
	m->mapped = mapped;
	m->mapped_arg = arg;
	for (int i = 0; i < m->nrings; i++)
		if (m->rings[i].meta)
			drain_ring(m, &m->rings[i]);
	m->mapped = NULL;
}

void mmap_events__stats(const struct mmap_events *m, struct mmap_events_stats *st)
{
	*st = m->st;
}

void mmap_events__free(struct mmap_events *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nrings; i++) {
		if (m->rings[i].meta)
			munmap(m->rings[i].meta, m->page + m->rings[i].size);
		if (m->rings[i].fd >= 0)
			close(m->rings[i].fd);
	}
	free(m->rings);
	free(m->exited);
	free(m);
}
