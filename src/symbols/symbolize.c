// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "demangle.h"
#include "kallsyms.h"
#include "symbolize.h"
#include "symcache.h"

struct symbolizer {
	struct profile *p;
	struct procs *ps;
	struct symcache *bins;
	bool own_bins; /* not the source's (symbolizer__new_with) */
	struct kallsyms *ksyms;
	int kerr; /* kallsyms could not be loaded */
	bool kloaded;
	bool klent;	 /* ksyms is the caller's (symbolizer__lend_kallsyms) */
	uint64_t *kwant; /* ksyms holds these addresses' symbols alone, sorted */
	size_t nkwant;
	bool no_demangle;
	bool inline_frames, file_line;	      /* --inline, --file-line: DWARF wanted */
	struct hashmap user_names, user_offs; /* hash(binary, file offset, is_return) */
	struct hashmap user_sets;	      /* the same -> index in sets, when DWARF is wanted */
	struct resolved_set *sets;
	size_t nsets, sets_cap;
	/* the frames of an address of a process, as profile ids: a run in runs,
	 * (start << 8 | count), by hash(pid, address, is_return) */
	struct hashmap user_frames;
	uint32_t *runs;
	size_t nruns, runs_cap;
	struct hashmap kernel_frames; /* address * 2 + is_return -> profile frame id */
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

static struct symbolizer *new_symbolizer(struct profile *p, struct procs *ps,
					 const struct symbolizer_opts *o, struct symcache *bins)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->p = p;
	s->ps = ps;
	s->no_demangle = o->no_demangle;
	s->inline_frames = o->inline_frames;
	s->file_line = o->file_line;
	s->own_bins = !bins;
	s->bins = bins ? bins : symcache__new(o->debug_root);
	if (!s->bins) {
		free(s);
		return NULL;
	}
	return s;
}

struct symbolizer *symbolizer__new_opts(struct profile *p, struct procs *ps,
					const struct symbolizer_opts *o)
{
	return new_symbolizer(p, ps, o, NULL);
}

struct symbolizer *symbolizer__new_with(struct profile *p, struct procs *ps, struct symcache *bins)
{
	return new_symbolizer(p, ps, &defaults, bins);
}

struct symcache *symbolizer__new_cache(void)
{
	return symcache__new(defaults.debug_root);
}

void symbolizer__preload(struct symcache *bins, struct procs *ps, pid_t pid)
{
	int root = procs__root(ps, pid);
	const struct proc_maps *maps = root > 0 ? procs__latest(ps, pid) : NULL;

	for (size_t i = 0; maps && i < maps->n; i++) {
		const struct map_entry *m = &maps->v[i];

		if (m->path[0] == '/' && m->perms[2] == 'x')
			symcache__findnew(bins, m, pid, root);
	}
}

/* The symbol lookup of one (binary, file offset) or kernel address, cached;
 * each address still gets its own frame, since perf and pprof show them. */
struct resolved {
	const char *name; /* interned */
	uint64_t sym_off;
};

/* What one address resolves to with DWARF: the function, then those
 * inlined into it there, outermost first. */
struct resolved_set {
	uint32_t n;
	struct resolved r[SYMBOLIZE_MAX_FRAMES];
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

/* The x86-64 sigreturn trampoline: mov $15 (rt_sigreturn), %rax; syscall. */
static const uint8_t SIGRETURN[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

/* Whether b's code at file offset off is the sigreturn trampoline, where a
 * signal handler returns to: glibc's __restore_rt, a local symbol a
 * stripped C library names not. */
static bool is_sigreturn(const struct binary *b, uint64_t off)
{
	uint8_t code[sizeof(SIGRETURN)];
	int fd = open(b->path, O_RDONLY | O_CLOEXEC);
	bool yes = fd >= 0 && pread(fd, code, sizeof(code), (off_t)off) == (ssize_t)sizeof(code) &&
		   !memcmp(code, SIGRETURN, sizeof(code));

	if (fd >= 0)
		close(fd);
	return yes;
}

/* Code of b at vaddr (file offset off) that no symbol covers. The vDSO's
 * is the static helpers of its clock functions (kvm-clock's read, say):
 * one frame, "[vdso]", rather than one per address under the function
 * that called it; the sigreturn trampoline is named as glibc names it,
 * the frame under a signal handler; any other keeps its address in its
 * name. */
static int unnamed_code(struct symbolizer *s, const struct binary *b, uint64_t vaddr, uint64_t off,
			struct resolved *r)
{
	if (!strcmp(b->path, "[vdso]"))
		return intern_name(s, b->path, vaddr, r);
	if (is_sigreturn(b, off))
		return intern_name(s, "__restore_rt", 0, r);
	return unknown_name(s, b->name, vaddr, r);
}

static int resolve_file(struct symbolizer *s, const struct binary *b, uint64_t file_off,
			bool is_return, struct resolved *r)
{
	uint64_t look = file_off - is_return, vaddr, off, in_file;
	const char *name;
	char *read = NULL;
	int err;

	if (!b->syms || elf_symtab__vaddr(b->syms, look, &vaddr))
		return unknown_name(s, b->name, file_off, r);
	name = elf_symtab__lookup_ref(b->syms, vaddr, &off, &in_file);
	if (!name && in_file)
		name = read = symcache__name(b, in_file);
	if (!name)
		return unnamed_code(s, b, vaddr + is_return, file_off, r);
	err = symbol_name(s, name, off + is_return, r);
	free(read);
	return err;
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

/* name, with " (FILE:LINE)" when --file-line and the line is known. */
static int line_name(struct symbolizer *s, const char *name, const struct srcline_frame *f,
		     uint64_t off, struct resolved *r)
{
	char buf[1024];

	if (!s->file_line || !f->file)
		return intern_name(s, name, off, r);
	snprintf(buf, sizeof(buf), "%s (%s:%d)", name, f->file, f->line);
	return intern_name(s, buf, off, r);
}

/* The symbol of the address, then, from the DWARF, its line and the
 * functions inlined there. */
static int resolve_lines(struct symbolizer *s, struct binary *b, const struct map_entry *m,
			 pid_t pid, uint64_t file_off, bool is_return, struct resolved_set *set)
{
	struct srcline_frame fr[SYMBOLIZE_MAX_FRAMES];
	struct srcline *lines;
	uint64_t vaddr;
	size_t n;
	int err = resolve_file(s, b, file_off, is_return, &set->r[0]);

	set->n = 1;
	if (err || !b->syms || elf_symtab__vaddr(b->syms, file_off - is_return, &vaddr) ||
	    !(lines = symcache__srcline(s->bins, b, m, pid, procs__root(s->ps, pid))))
		return err;
	n = srcline__lookup(lines, vaddr, fr, s->inline_frames ? SYMBOLIZE_MAX_FRAMES : 1);
	if (!n)
		return 0;
	err = line_name(s, set->r[0].name, &fr[0], set->r[0].sym_off, &set->r[0]);
	for (size_t i = 1; i < n && !err; i++) {
		char *dm = s->no_demangle ? NULL : demangle(fr[i].func);

		err = line_name(s, dm ? dm : fr[i].func, &fr[i], 0, &set->r[set->n++]);
		free(dm);
	}
	return err;
}

/* The resolved set of (binary, file offset), computed once. */
static int cached_set(struct symbolizer *s, struct binary *b, const struct map_entry *m, pid_t pid,
		      uint64_t file_off, bool is_return, uint64_t key,
		      const struct resolved_set **set)
{
	uint64_t i;
	int err;

	if (!hashmap__get(&s->user_sets, key, &i)) {
		if (array__reserve((void **)&s->sets, &s->sets_cap, s->nsets + 1, sizeof(*s->sets)))
			return -ENOMEM;
		i = s->nsets;
		err = resolve_lines(s, b, m, pid, file_off, is_return, &s->sets[i]);
		if (err || hashmap__set(&s->user_sets, key, i))
			return err ? err : -ENOMEM;
		s->nsets++;
	}
	*set = &s->sets[i];
	return 0;
}

/* The symbol alone, computed once. */
static int cached_symbol(struct symbolizer *s, struct binary *b, uint64_t file_off, bool is_return,
			 uint64_t key, struct resolved_set *set)
{
	int err = 0;

	set->n = 1;
	if (!cached_resolve(&s->user_names, &s->user_offs, key, &set->r[0])) {
		err = resolve_file(s, b, file_off, is_return, &set->r[0]);
		if (!err)
			err = cache_resolved(&s->user_names, &s->user_offs, key, &set->r[0]);
	}
	return err;
}

/* The frames of a file-backed address, as file_frames makes them. */
static int make_frames(struct symbolizer *s, const struct map_entry *m, struct binary *b, pid_t pid,
		       uint64_t ip, uint64_t file_off, bool is_return, uint64_t key, uint32_t *ids)
{
	const struct resolved_set *set;
	struct resolved_set one;
	int err;

	if (s->inline_frames || s->file_line) {
		err = cached_set(s, b, m, pid, file_off, is_return, key, &set);
	} else {
		err = cached_symbol(s, b, file_off, is_return, key, &one);
		set = &one;
	}
	if (err) /* set is not one then */
		return err;
	for (size_t i = 0; i < set->n && !err; i++)
		err = profile__findnew_frame_at(s->p,
						&(struct frame){ set->r[i].name, b->name,
								 FRAME_USER, ip, set->r[i].sym_off,
								 b->path, b->build_id },
						&ids[i]);
	return err ? err : (int)set->n;
}

/* A file-backed address: symbol, or BINARY+0xOFFSET (link-time address when
 * the ELF was readable, else the file offset); with DWARF wanted, its line
 * and inlined functions. Returns the number of frames or -errno. */
static int file_frames(struct symbolizer *s, const struct map_entry *m, pid_t pid, uint64_t ip,
		       bool is_return, uint32_t *ids)
{
	uint64_t file_off = ip - m->start + m->offset;
	struct binary *b = m->path[0] == '/'
				   ? symcache__findnew(s->bins, m, pid, procs__root(s->ps, pid))
				   : symcache__vdso(s->bins, m->end - m->start);

	if (!b)
		return -ENOMEM;
	return make_frames(s, m, b, pid, ip, file_off, is_return,
			   hash_mix((uintptr_t)b ^ hash_mix(file_off * 2 + is_return)), ids);
}

/* file_frames, made once per address of a process: the stacks of a
 * system-wide profile repeat them by the million. */
static int cached_file_frames(struct symbolizer *s, const struct map_entry *m, pid_t pid,
			      uint64_t ip, bool is_return, uint32_t *ids, size_t max)
{
	uint64_t key = hash_mix(((uint64_t)(uint32_t)pid << 32 | is_return) ^ hash_mix(ip)), run;
	uint32_t made[SYMBOLIZE_MAX_FRAMES];
	int n;

	if (!hashmap__get(&s->user_frames, key, &run)) {
		n = file_frames(s, m, pid, ip, is_return, made);
		if (n < 0)
			return n;
		run = (uint64_t)s->nruns << 8 | (uint32_t)n;
		for (int i = 0; i < n; i++)
			if (array__push((void **)&s->runs, &s->nruns, &s->runs_cap, &made[i],
					sizeof(made[i])))
				return -ENOMEM;
		if (hashmap__set(&s->user_frames, key, run))
			return -ENOMEM;
	}
	n = (run & 0xff) < max ? (int)(run & 0xff) : (int)max;
	memcpy(ids, &s->runs[run >> 8], n * sizeof(*ids));
	return n;
}

/* The kernel's vDSO, the image flamebpf maps too. */
static bool is_vdso(struct symbolizer *s, const struct map_entry *m)
{
	return !strcmp(m->path, "[vdso]") && symcache__vdso(s->bins, m->end - m->start);
}

/* Where a JIT puts code: anonymous memory, named ("[anon:...]") or not, or a
 * memfd it maps twice (writable and executable). */
static bool jit_memory(const struct map_entry *m)
{
	return !m || !m->path[0] || !strncmp(m->path, "[anon", 5) ||
	       !strncmp(m->path, "/memfd:", 7);
}

/* A name from the process's perf map, else from what its JIT keeps in its
 * memory (beam_jit.h); 1 when it has none for ip. */
static int perfmap_frame(struct symbolizer *s, pid_t pid, uint64_t ip, bool is_return, uint32_t *id)
{
	const struct perfmap *pm = procs__perfmap(s->ps, pid), *jit = NULL;
	uint64_t off = 0;
	const char *name = pm ? perfmap__lookup(pm, ip - is_return, &off) : NULL;
	char module[32], dso[48];
	struct resolved r;
	int err;

	if (!pm && (jit = procs__jit_map(s->ps, pid)))
		name = perfmap__lookup(jit, ip - is_return, &off);
	if (!name)
		return 1;
	err = symbol_name(s, name, off + is_return, &r);
	if (err)
		return err;
	/* as perf shows them: the map file is the DSO */
	snprintf(module, sizeof(module), "perf-%d.map", (int)pid);
	snprintf(dso, sizeof(dso), "/tmp/%s", module);
	if (jit)
		strcpy(module, strcpy(dso, "[jit]"));
	return profile__findnew_frame_at(
		s->p, &(struct frame){ r.name, module, FRAME_USER, ip, r.sym_off, dso, "" }, id);
}

int symbolizer__user(struct symbolizer *s, pid_t pid, uint64_t ip, bool is_return, uint32_t *id)
{
	int n = symbolizer__user_frames(s, pid, ip, is_return, id, 1);

	return n < 0 ? n : 0;
}

int symbolizer__user_frames(struct symbolizer *s, pid_t pid, uint64_t ip, bool is_return,
			    uint32_t *ids, size_t max)
{
	const struct map_entry *m = procs__find(s->ps, pid, ip);
	struct resolved r;
	int err;

	if (!max)
		return 0;
	if (jit_memory(m)) {
		err = perfmap_frame(s, pid, ip, is_return, ids);
		if (err <= 0)
			return err < 0 ? err : 1;
	}
	if (m && (m->path[0] == '/' || is_vdso(s, m)))
		return cached_file_frames(s, m, pid, ip, is_return, ids, max);
	if (!m || !m->path[0])
		err = profile__findnew_frame_at(
			s->p,
			&(struct frame){ .name = "[unknown]", .addr = ip, .dso = "[unknown]" },
			ids);
	else /* [vdso], [vsyscall], ... */
		err = unknown_name(s, m->path, ip - m->start, &r)
			      ?: profile__findnew_frame_at(s->p,
							   &(struct frame){ r.name, m->path,
									    FRAME_USER, ip, 0,
									    m->path, "" },
							   ids);
	return err ? err : 1;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int symbolizer__kernel_addrs(struct symbolizer *s, const uint64_t *addrs, size_t n)
{
	uint64_t *v;
	size_t m = 0;

	if (s->kloaded || !n)
		return 0;
	v = reallocarray(NULL, n, 2 * sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* a return address is looked up one byte back */
	for (size_t i = 0; i < n; i++) {
		v[2 * i] = addrs[i];
		v[2 * i + 1] = addrs[i] - 1;
	}
	qsort(v, 2 * n, sizeof(*v), u64_cmp);
	for (size_t i = 0; i < 2 * n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	free(s->kwant);
	s->kwant = v;
	s->nkwant = m;
	return 0;
}

/* The kernel's symbols, read at the first kernel address: those of the
 * wanted addresses alone when addr is one of them, else all of them. */
static const struct kallsyms *kernel_syms(struct symbolizer *s, uint64_t addr)
{
	if (s->kwant && !bsearch(&addr, s->kwant, s->nkwant, sizeof(addr), u64_cmp)) {
		free(s->kwant);
		s->kwant = NULL;
		if (s->kloaded) {
			kallsyms__free(s->ksyms);
			s->ksyms = NULL;
			s->kloaded = false;
		}
	}
	if (!s->kloaded) {
		s->kloaded = true;
		s->kerr = s->kwant ? kallsyms__load_for("/proc/kallsyms", s->kwant, s->nkwant,
							&s->ksyms)
				   : kallsyms__load("/proc/kallsyms", &s->ksyms);
	}
	return s->ksyms;
}

int symbolizer__kernel(struct symbolizer *s, uint64_t ip, bool is_return, uint32_t *id)
{
	const struct kallsyms *ks;
	const char *name = NULL;
	uint64_t off = 0, frame;
	struct resolved r;
	int err;

	if (hashmap__get(&s->kernel_frames, ip * 2 + is_return, &frame)) {
		*id = (uint32_t)frame;
		return 0;
	}
	ks = kernel_syms(s, ip - is_return);
	if (ks)
		name = kallsyms__lookup(ks, ip - is_return, &off);
	err = name ? intern_name(s, name, off + is_return, &r)
		   : unknown_name(s, "[kernel]", ip, &r);
	if (!err)
		err = profile__findnew_frame_at(s->p,
						&(struct frame){ r.name, "[kernel]", FRAME_KERNEL,
								 ip, r.sym_off, "[kernel.kallsyms]",
								 "" },
						id);
	return err ?: hashmap__set(&s->kernel_frames, ip * 2 + is_return, *id);
}

const char *symbolizer__kernel_name(struct symbolizer *s, uint64_t ip, bool is_return)
{
	const struct kallsyms *ks = kernel_syms(s, ip - is_return);
	uint64_t off;

	return ks ? kallsyms__lookup(ks, ip - is_return, &off) : NULL;
}

void symbolizer__lend_kallsyms(struct symbolizer *s, struct kallsyms *ks)
{
	if (!s->kloaded && ks) {
		free(s->kwant);
		s->kwant = NULL;
		s->ksyms = ks;
		s->kloaded = s->klent = true;
	}
}

int symbolizer__kernel_err(const struct symbolizer *s)
{
	return s->kerr;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	if (s->own_bins)
		symcache__free(s->bins);
	if (!s->klent)
		kallsyms__free(s->ksyms);
	free(s->kwant);
	hashmap__free(&s->user_names);
	hashmap__free(&s->user_offs);
	hashmap__free(&s->user_sets);
	hashmap__free(&s->user_frames);
	free(s->runs);
	free(s->sets);
	hashmap__free(&s->kernel_frames);
	free(s);
}
