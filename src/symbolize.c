// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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
	struct hashmap user_cache;   /* hash(binary, file offset) -> frame id */
	struct hashmap kernel_cache; /* address -> frame id */
};

struct symbolizer *symbolizer__new(struct profile *p, struct procs *ps)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->p = p;
	s->ps = ps;
	s->bins = symcache__new();
	if (!s->bins) {
		free(s);
		return NULL;
	}
	return s;
}

static int frame_at(struct symbolizer *s, const char *name, const char *module,
		    enum frame_kind kind, uint32_t *id)
{
	return profile__findnew_frame(s->p, name, module, kind, id);
}

static int unknown_frame(struct symbolizer *s, const char *module, uint64_t off,
			 enum frame_kind kind, uint32_t *id)
{
	char name[256];

	snprintf(name, sizeof(name), "%s+0x%" PRIx64, module, off);
	return frame_at(s, name, module, kind, id);
}

/* A symbol's frame, under its demangled name when it has one. */
static int symbol_frame(struct symbolizer *s, const char *sym, const char *module, uint32_t *id)
{
	char *name = demangle(sym);
	int err = frame_at(s, name ? name : sym, module, FRAME_USER, id);

	free(name);
	return err;
}

/* A file-backed address: symbol, or BINARY+0xOFFSET (link-time address when
 * the ELF was readable, else the file offset). */
static int file_frame(struct symbolizer *s, const struct map_entry *m, pid_t pid, uint64_t ip,
		      bool is_return, uint32_t *id)
{
	uint64_t file_off = ip - m->start + m->offset, look = file_off - is_return, vaddr, off;
	struct binary *b = symcache__findnew(s->bins, m, pid);
	uint64_t key, cached;
	const char *name;
	int err;

	if (!b)
		return -ENOMEM;
	key = hash_mix((uintptr_t)b ^ hash_mix(file_off * 2 + is_return));
	if (hashmap__get(&s->user_cache, key, &cached)) {
		*id = cached;
		return 0;
	}
	if (!b->syms || elf_symtab__vaddr(b->syms, look, &vaddr))
		err = unknown_frame(s, b->name, file_off, FRAME_USER, id);
	else if (!(name = elf_symtab__lookup(b->syms, vaddr, &off)))
		err = unknown_frame(s, b->name, vaddr + is_return, FRAME_USER, id);
	else
		err = symbol_frame(s, name, b->name, id);
	return err ? err : hashmap__set(&s->user_cache, key, *id);
}

int symbolizer__user(struct symbolizer *s, pid_t pid, uint64_t ip, bool is_return, uint32_t *id)
{
	const struct map_entry *m = procs__find(s->ps, pid, ip);

	if (!m || !m->path[0])
		return frame_at(s, "[unknown]", "", FRAME_USER, id);
	if (m->path[0] == '[') /* [vdso], [vsyscall], ... */
		return unknown_frame(s, m->path, ip - m->start, FRAME_USER, id);
	return file_frame(s, m, pid, ip, is_return, id);
}

static void load_kallsyms(struct symbolizer *s)
{
	s->kloaded = true;
	s->kerr = kallsyms__load("/proc/kallsyms", &s->ksyms);
}

int symbolizer__kernel(struct symbolizer *s, uint64_t ip, bool is_return, uint32_t *id)
{
	const char *name = NULL;
	uint64_t cached, off;
	int err;

	if (hashmap__get(&s->kernel_cache, ip * 2 + is_return, &cached)) {
		*id = cached;
		return 0;
	}
	if (!s->kloaded)
		load_kallsyms(s);
	if (s->ksyms)
		name = kallsyms__lookup(s->ksyms, ip - is_return, &off);
	err = name ? frame_at(s, name, "[kernel]", FRAME_KERNEL, id)
		   : unknown_frame(s, "[kernel]", ip, FRAME_KERNEL, id);
	return err ? err : hashmap__set(&s->kernel_cache, ip * 2 + is_return, *id);
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
	hashmap__free(&s->user_cache);
	hashmap__free(&s->kernel_cache);
	free(s);
}
