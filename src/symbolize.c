// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "hashmap.h"
#include "kallsyms.h"
#include "symbolize.h"
#include "symcache.h"

struct symbolizer {
	struct profile *p;
	struct procs *ps;
	struct symcache *bins;
	struct kallsyms *ksyms;
	int kerr; /* kallsyms could not be loaded */
	bool kloaded;
	bool no_demangle;
	struct hashmap user_names, user_offs;	  /* hash(binary, file offset, is_return) */
	struct hashmap kernel_names, kernel_offs; /* address * 2 + is_return */
};

static struct symbolizer_opts defaults;

void symbolizer__set_defaults(const struct symbolizer_opts *o)
{
	defaults = *o;
}

struct symbolizer *symbolizer__new(struct profile *p, struct procs *ps)
{
	return symbolizer__new_opts(p, ps, &defaults);
}

struct symbolizer *symbolizer__new_opts(struct profile *p, struct procs *ps,
					const struct symbolizer_opts *o)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->p = p;
	s->ps = ps;
	s->no_demangle = o->no_demangle;
	s->bins = symcache__new(o->debug_root);
	if (!s->bins) {
		free(s);
		return NULL;
	}
	return s;
}

/* The symbol lookup of one (binary, file offset) or kernel address, cached;
 * each address still gets its own frame, since perf and pprof show them. */
struct resolved {
	const char *name; /* interned */
	uint64_t sym_off;
};

static int intern_name(struct symbolizer *s, const char *name, uint64_t sym_off, struct resolved *r)
{
	r->name = profile__intern(s->p, name);
	r->sym_off = sym_off;
	return r->name ? 0 : -ENOMEM;
}

static int unknown_name(struct symbolizer *s, const char *module, uint64_t off, struct resolved *r)
{
	char name[256];

	snprintf(name, sizeof(name), "%s+0x%" PRIx64, module, off);
	return intern_name(s, name, 0, r);
}

/* A symbol, under its demangled name when it has one. */
static int symbol_name(struct symbolizer *s, const char *sym, uint64_t off, struct resolved *r)
{
	char *name = s->no_demangle ? NULL : demangle(sym);
	int err = intern_name(s, name ? name : sym, off, r);

	free(name);
	return err;
}

static int resolve_file(struct symbolizer *s, const struct binary *b, uint64_t file_off,
			bool is_return, struct resolved *r)
{
	uint64_t look = file_off - is_return, vaddr, off;
	const char *name;

	if (!b->syms || elf_symtab__vaddr(b->syms, look, &vaddr))
		return unknown_name(s, b->name, file_off, r);
	name = elf_symtab__lookup(b->syms, vaddr, &off);
	if (!name)
		return unknown_name(s, b->name, vaddr + is_return, r);
	return symbol_name(s, name, off + is_return, r);
}

/* Names live in the profile, so the cache holds their pointers. */
static int cached_resolve(struct hashmap *names, struct hashmap *offs, uint64_t key,
			  struct resolved *r)
{
	uint64_t name, off;

	if (!hashmap__get(names, key, &name) || !hashmap__get(offs, key, &off))
		return 0;
	r->name = (const char *)(uintptr_t)name;
	r->sym_off = off;
	return 1;
}

static int cache_resolved(struct hashmap *names, struct hashmap *offs, uint64_t key,
			  const struct resolved *r)
{
	int err = hashmap__set(names, key, (uintptr_t)r->name);

	return err ? err : hashmap__set(offs, key, r->sym_off);
}

/* A file-backed address: symbol, or BINARY+0xOFFSET (link-time address when
 * the ELF was readable, else the file offset). */
static int file_frame(struct symbolizer *s, const struct map_entry *m, pid_t pid, uint64_t ip,
		      bool is_return, uint32_t *id)
{
	uint64_t file_off = ip - m->start + m->offset, key;
	struct binary *b = symcache__findnew(s->bins, m, pid);
	struct resolved r;
	int err = 0;

	if (!b)
		return -ENOMEM;
	key = hash_mix((uintptr_t)b ^ hash_mix(file_off * 2 + is_return));
	if (!cached_resolve(&s->user_names, &s->user_offs, key, &r)) {
		err = resolve_file(s, b, file_off, is_return, &r);
		if (!err)
			err = cache_resolved(&s->user_names, &s->user_offs, key, &r);
	}
	if (err)
		return err;
	return profile__findnew_frame_at(
		s->p,
		&(struct frame){ r.name, b->name, FRAME_USER, ip, r.sym_off, b->path, b->build_id },
		id);
}

/* Where a JIT puts code: anonymous memory, named ("[anon:...]") or not, or a
 * memfd it maps twice (writable and executable). */
static bool jit_memory(const struct map_entry *m)
{
	return !m || !m->path[0] || !strncmp(m->path, "[anon", 5) ||
	       !strncmp(m->path, "/memfd:", 7);
}

/* A name from the process's perf map; 1 when it has none for ip. */
static int perfmap_frame(struct symbolizer *s, pid_t pid, uint64_t ip, bool is_return, uint32_t *id)
{
	const struct perfmap *pm = procs__perfmap(s->ps, pid);
	uint64_t off = 0;
	const char *name = pm ? perfmap__lookup(pm, ip - is_return, &off) : NULL;
	char module[32], dso[48];
	struct resolved r;
	int err;

	if (!name)
		return 1;
	err = symbol_name(s, name, off + is_return, &r);
	if (err)
		return err;
	/* as perf shows them: the map file is the DSO */
	snprintf(module, sizeof(module), "perf-%d.map", (int)pid);
	snprintf(dso, sizeof(dso), "/tmp/%s", module);
	return profile__findnew_frame_at(
		s->p, &(struct frame){ r.name, module, FRAME_USER, ip, r.sym_off, dso, "" }, id);
}

int symbolizer__user(struct symbolizer *s, pid_t pid, uint64_t ip, bool is_return, uint32_t *id)
{
	const struct map_entry *m = procs__find(s->ps, pid, ip);
	struct resolved r;
	int err;

	if (jit_memory(m)) {
		err = perfmap_frame(s, pid, ip, is_return, id);
		if (err <= 0)
			return err;
	}
	if (!m || !m->path[0])
		return profile__findnew_frame_at(
			s->p,
			&(struct frame){ .name = "[unknown]", .addr = ip, .dso = "[unknown]" }, id);
	if (m->path[0] != '[')
		return file_frame(s, m, pid, ip, is_return, id);
	/* [vdso], [vsyscall], ... */
	err = unknown_name(s, m->path, ip - m->start, &r);
	return err ? err
		   : profile__findnew_frame_at(
			     s->p,
			     &(struct frame){ r.name, m->path, FRAME_USER, ip, 0, m->path, "" },
			     id);
}

static void load_kallsyms(struct symbolizer *s)
{
	s->kloaded = true;
	s->kerr = kallsyms__load("/proc/kallsyms", &s->ksyms);
}

int symbolizer__kernel(struct symbolizer *s, uint64_t ip, bool is_return, uint32_t *id)
{
	const char *name = NULL;
	uint64_t off = 0;
	struct resolved r;
	int err = 0;

	if (!cached_resolve(&s->kernel_names, &s->kernel_offs, ip * 2 + is_return, &r)) {
		if (!s->kloaded)
			load_kallsyms(s);
		if (s->ksyms)
			name = kallsyms__lookup(s->ksyms, ip - is_return, &off);
		err = name ? intern_name(s, name, off + is_return, &r)
			   : unknown_name(s, "[kernel]", ip, &r);
		if (!err)
			err = cache_resolved(&s->kernel_names, &s->kernel_offs, ip * 2 + is_return,
					     &r);
	}
	if (err)
		return err;
	return profile__findnew_frame_at(s->p,
					 &(struct frame){ r.name, "[kernel]", FRAME_KERNEL, ip,
							  r.sym_off, "[kernel.kallsyms]", "" },
					 id);
}

int symbolizer__kernel_err(const struct symbolizer *s)
{
	return s->kerr;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	symcache__free(s->bins);
	kallsyms__free(s->ksyms);
	hashmap__free(&s->user_names);
	hashmap__free(&s->user_offs);
	hashmap__free(&s->kernel_names);
	hashmap__free(&s->kernel_offs);
	free(s);
}
