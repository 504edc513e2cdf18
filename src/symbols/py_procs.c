// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "util/pid_registry.h"
#include "elf_object.h"
#include "mapped_file.h"
#include "proc_mem.h"
#include "py_debug_offsets.h"
#include "py_procs.h"

#define PY_NAME_MAX 1200

struct py_proc_entry {
	pid_t pid;
	uint64_t runtime; /* _PyRuntime in the process; 0: not Python */
	struct py_types types;
	struct py_layout layout;
	bool known;	    /* layout is its version's */
	struct hashmap idx; /* code object address -> 1 + its index in codes */
	struct py_code *codes;
	size_t ncodes, codes_cap;
};

struct py_procs {
	struct pid_registry procs; /* of struct py_proc_entry */
	char unknown[32];	   /* the first version without a layout */
	char known[32];		   /* the first with one */
};

static void init_entry(void *entry, pid_t pid)
{
	*(struct py_proc_entry *)entry = (struct py_proc_entry){ .pid = pid };
}

/* The code objects read of entry's process let go: none known of it. */
static void reset(void *entry)
{
	struct py_proc_entry *e = entry;

	for (size_t i = 0; i < e->ncodes; i++)
		py_code__free(&e->codes[i]);
	free(e->codes);
	hashmap__free(&e->idx);
	e->codes = NULL;
	e->ncodes = e->codes_cap = 0;
	e->runtime = 0;
	e->known = false;
}

struct py_procs *py_procs__new(void)
{
	struct py_procs *pp = calloc(1, sizeof(struct py_procs));

	if (pp)
		pid_registry__init(&pp->procs, sizeof(struct py_proc_entry), init_entry, reset);
	return pp;
}

/* The first mapping of pid's from the i-th on that looks like CPython's
 * runtime (a python3.N executable may be a launcher of libpython3.N.so),
 * its index in *i. */
static const struct map_entry *python_mapping(struct procs *ps, pid_t pid, size_t *i,
					      unsigned int *major, unsigned int *minor)
{
	const struct proc_maps *m = procs__latest(ps, pid);

	for (; m && *i < m->n; (*i)++)
		if (m->v[*i].path[0] == '/' &&
		    py_layout__version_of_file(m->v[*i].path, major, minor))
			return &m->v[*i];
	return NULL;
}

/* _PyRuntime's address in pid, its version from Py_Version (3.11+; else
 * the file name's) and its types (0 where the file does not name them).
 * The file is opened as pid sees it (root: its own in a container,
 * procs__root). */
static int locate_runtime(const struct map_entry *m, pid_t pid, int root, uint64_t *runtime,
			  struct py_types *types, unsigned int *major, unsigned int *minor)
{
	static const char *const names[] = { "_PyRuntime", "Py_Version", "PyCode_Type",
					     "PyUnicode_Type" };
	uint64_t at[4], start;
	uint32_t version;
	char *path = mapped_file__path(m);
	int fd = path ? mapped_file__open(path, m, pid, root) : -ENOMEM, err;

	free(path);
	if (fd < 0)
		return fd;
	err = elf_object__find(fd, names, 4, at);
	if (!err)
		err = elf_object__vaddr(fd, m->offset, &start);
	close(fd);
	if (err || !at[0])
		return err ? err : -ENOENT;
	*runtime = m->start - start + at[0];
	types->code = at[2] ? m->start - start + at[2] : 0;
	types->str = at[3] ? m->start - start + at[3] : 0;
	if (at[1] && !proc_mem__read((void *)(intptr_t)pid, m->start - start + at[1], &version,
				     sizeof(version))) {
		*major = version >> 24;
		*minor = (version >> 16) & 0xff;
	}
	return 0;
}

/* The runtime of the first mapping that has one. */
static int find_runtime(struct procs *ps, pid_t pid, uint64_t *runtime, struct py_types *types,
			unsigned int *major, unsigned int *minor)
{
	const struct map_entry *m;
	int err = -ENOENT;

	for (size_t i = 0; err && (m = python_mapping(ps, pid, &i, major, minor)); i++)
		err = locate_runtime(m, pid, procs__root(ps, pid), runtime, types, major, minor);
	return err;
}

/* pid's layout: the one its runtime publishes (3.13+), else the table's
 * for its version. -EPROTONOSUPPORT when neither is known, with the
 * version in l. */
static int layout_of(pid_t pid, uint64_t runtime, unsigned int major, unsigned int minor,
		     struct py_layout *l)
{
	uint8_t buf[PY_DEBUG_OFFSETS_SIZE];
	const struct py_layout *t;
	int err = -ENOENT;

	if (!proc_mem__read((void *)(intptr_t)pid, runtime, buf, sizeof(buf)))
		err = py_debug_offsets__layout(buf, sizeof(buf), l);
	if (err != -ENOENT)
		return err;
	t = py_layout__find(major, minor);
	if (t) {
		*l = *t;
		return 0;
	}
	l->major = major;
	l->minor = minor;
	return -EPROTONOSUPPORT;
}

int py_procs__detect(struct py_procs *pp, struct procs *ps, pid_t pid, struct py_proc *out)
{
	unsigned int major, minor;
	struct py_proc_entry *e;
	struct py_types types = { 0 };
	uint64_t runtime = 0;
	int err = find_runtime(ps, pid, &runtime, &types, &major, &minor);

	if (err)
		return err;
	e = pid_registry__findnew(&pp->procs, pid);
	if (!e)
		return -ENOMEM;
	/* the same image looked at again (new mappings): its code objects
	 * stay known */
	if (e->runtime != runtime || !e->known)
		reset(e);
	err = layout_of(pid, runtime, major, minor, &e->layout);
	if (err) {
		if (!pp->unknown[0])
			snprintf(pp->unknown, sizeof(pp->unknown), "python%u.%u", e->layout.major,
				 e->layout.minor);
		return err;
	}
	e->known = true;
	if (!pp->known[0])
		snprintf(pp->known, sizeof(pp->known), "python%u.%u", e->layout.major,
			 e->layout.minor);
	e->runtime = runtime;
	e->types = types;
	out->runtime = runtime;
	out->o = e->layout.walk;
	return 0;
}

/* The code object at addr of e's process: read now unless known. NULL when
 * it cannot be read (the process is gone) or memory ran out. */
static const struct py_code *code_of(struct py_proc_entry *e, uint64_t addr, bool read)
{
	struct proc_mem mem = { proc_mem__read, (void *)(intptr_t)e->pid };
	struct py_code c;
	uint64_t i;

	if (hashmap__get(&e->idx, addr, &i))
		return &e->codes[i - 1];
	if (!read || !e->known || py_code__read(&mem, &e->layout, &e->types, addr, &c))
		return NULL;
	if (array__push((void **)&e->codes, &e->ncodes, &e->codes_cap, &c, sizeof(c)) ||
	    hashmap__set(&e->idx, addr, e->ncodes)) {
		py_code__free(&c);
		return NULL;
	}
	return &e->codes[e->ncodes - 1];
}

/* The code object read from addr, read again if the address now holds
 * another: a function's code freed (start-up's, an import's) and its
 * memory taken by a new one would otherwise keep the old one's name. The
 * record of a new stack is where this is checked, while the process lives:
 * stacks named from the old one before get the new name too. */
static void refresh_code(struct py_proc_entry *e, uint64_t addr)
{
	struct proc_mem mem = { proc_mem__read, (void *)(intptr_t)e->pid };
	struct py_code c;
	uint64_t i, ident;

	if (!hashmap__get(&e->idx, addr, &i)) {
		code_of(e, addr, true);
		return;
	}
	if (!e->known || py_code__ident(&mem, &e->layout, &e->types, addr, &ident) ||
	    ident == e->codes[i - 1].ident || py_code__read(&mem, &e->layout, &e->types, addr, &c))
		return;
	py_code__free(&e->codes[i - 1]);
	e->codes[i - 1] = c;
}

int py_procs__read_record(struct py_procs *pp, const uint64_t *ip, uint32_t nr)
{
	struct py_proc_entry *e = nr ? pid_registry__find(&pp->procs, (pid_t)ip[0]) : NULL;

	for (uint32_t i = 1; e && i + 1 < nr; i += 2)
		refresh_code(e, ip[i]);
	return 0;
}

/* A Python frame as the outputs show it: its file as the binary (the path
 * as perf's DSO, its base name as the module). */
static struct frame py_frame(const char *name, const struct py_code *c)
{
	const char *file = c ? c->file : "[python]", *base = strrchr(file, '/');

	return (struct frame){ .name = name,
			       .module = base && base[1] ? base + 1 : file,
			       .kind = FRAME_USER,
			       .dso = file,
			       .build_id = "" };
}

/* The profile frame of one Python frame: its code object at code, its
 * instruction (and flags) in word. */
static int frame_of(struct py_proc_entry *e, struct profile *p, uint64_t code, uint64_t word,
		    uint32_t *id)
{
	const struct py_code *c = code_of(e, code, true);
	char name[PY_NAME_MAX];
	struct frame f;

	if (c)
		py_code__frame_name(c, (int32_t)(uint32_t)word, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "[python code 0x%llx]", (unsigned long long)code);
	f = py_frame(name, c);
	return profile__findnew_frame_at(p, &f, id);
}

int py_procs__frames(struct py_procs *pp, struct profile *p, struct hashmap *made,
		     const uint64_t *ip, uint32_t nr, uint32_t *ids, bool *entry, size_t cap)
{
	struct py_proc_entry *e = nr ? pid_registry__find(&pp->procs, (pid_t)ip[0]) : NULL;
	size_t n = (nr - 1) / 2;
	int err = 0;

	if (!e || n > cap)
		n = e ? cap : 0;
	/* the record is innermost first */
	for (size_t k = 0; k < n && !err; k++) {
		uint32_t at = 1 + 2 * (uint32_t)(n - 1 - k);
		uint64_t key = hash_mix(hash_mix(ip[0] ^ hash_mix(ip[at])) ^ ip[at + 1]), id;

		entry[k] = ip[at + 1] & PY_FRAME_ENTRY;
		if (hashmap__get(made, key, &id)) {
			ids[k] = (uint32_t)id;
			continue;
		}
		err = frame_of(e, p, ip[at], ip[at + 1], &ids[k]);
		if (!err)
			err = hashmap__set(made, key, ids[k]);
	}
	return err ? err : (int)n;
}

void py_procs__forget(struct py_procs *pp, pid_t pid)
{
	pid_registry__forget(&pp->procs, pid);
}

bool py_procs__is_python(const struct py_procs *pp, pid_t pid)
{
	const struct py_proc_entry *e = pid_registry__find(&pp->procs, pid);

	return e && e->known;
}

size_t py_procs__count(const struct py_procs *pp, char *name, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < pid_registry__count(&pp->procs); i++) {
		const struct py_proc_entry *e = pid_registry__at(&pp->procs, i);

		n += e->known;
	}
	snprintf(name, len, "%s", pp->known);
	return n;
}

const char *py_procs__unknown(const struct py_procs *pp)
{
	return pp->unknown[0] ? pp->unknown : NULL;
}

void py_procs__free(struct py_procs *pp)
{
	if (!pp)
		return;
	pid_registry__free(&pp->procs);
	free(pp);
}
