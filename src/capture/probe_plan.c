// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_symtab.h"
#include "fragments.h"
#include "go_prologue.h"
#include "probe_plan.h"
#include "ret_sites.h"
#include "stack_walkers.h"

#define REFUSED_SHOWN (sizeof(((struct trace_attach_stats *)0)->refused_names) / sizeof(char *))

/* A site's cookie: the function, how the site returns (bpf/trace.h), and
 * for a jump to a register, the function's size. False when that size does
 * not fit. */
static bool site_cookie(uint64_t id, uint8_t kind, uint64_t size, uint64_t *cookie)
{
	*cookie = id | (uint64_t)kind << TRACE_SITE_KIND_SHIFT;
	if (kind < SITE_JMP_REG)
		return true;
	*cookie |= size << TRACE_SITE_SIZE_SHIFT;
	return size < TRACE_SITE_SIZE_MAX;
}

static int plan_add_sites(struct probe_plan *pl, const struct ret_sites *rs, uint64_t id,
			  uint64_t size, bool go_g)
{
	if (pl->nsites + rs->n > pl->sites_cap) {
		size_t cap = (pl->nsites + rs->n) * 2;
		uint64_t *o = realloc(pl->site_offsets, cap * sizeof(*o));
		uint64_t *i = o ? realloc(pl->site_cookies, cap * sizeof(*i)) : NULL;

		if (o)
			pl->site_offsets = o;
		if (!i)
			return -ENOMEM;
		pl->site_cookies = i;
		pl->sites_cap = cap;
	}
	for (size_t k = 0; k < rs->n; k++) {
		if (!site_cookie(id | (go_g ? TRACE_GO_G : 0), rs->kind[k], size,
				 &pl->site_cookies[pl->nsites]))
			continue;
		pl->site_offsets[pl->nsites++] = rs->off[k];
	}
	return 0;
}

/* What planning one binary needs. */
struct plan_ctx {
	const struct funcs *funcs;
	struct trace_attach_stats *at;
	struct disasm *d;
	int fd;
	unsigned int walkers;	 /* what walks the stacks of this binary's code */
	bool plain;		 /* uretprobes may catch any return in it */
	struct elf_symtab *syms; /* for fragments, read on first need */
	bool syms_read;
	const struct func *f; /* the function being planned */
	struct ret_sites rs;  /* ... its return sites */
	uint64_t entry;	      /* ... where its entry probe goes */
	bool past_check;      /* ... past Go's stack check */
	bool go_g;	      /* ... and its goroutine in r14 (TRACE_GO_G) */
};

/* Finds f's split-off parts (fragment_fn) by their names. */
static bool find_fragment(void *arg, uint64_t vaddr, struct code_range *frag)
{
	struct plan_ctx *c = arg;
	struct elf_func ef;
	uint64_t off;

	if (!c->syms_read) {
		c->syms_read = true;
		if (elf_symtab__load(c->fd, &c->syms))
			c->syms = NULL;
	}
	if (!c->syms || elf_symtab__func_at(c->syms, vaddr, &ef) ||
	    !fragment__of(ef.name, c->f->sym) || elf_symtab__file_offset(c->syms, ef.vaddr, &off))
		return false;
	*frag = (struct code_range){ ef.vaddr, ef.size, off };
	return true;
}

/* How a function's returns are caught. */
enum ret_how {
	RET_NONE,  /* not at all (its code could not be read): left out */
	RET_LEAF,  /* uretprobe: the code never leaves the function but by ret */
	RET_PLAIN, /* uretprobe: no process that runs it can walk its stack, and
		    * the function neither tail-calls nor uses its return address */
	RET_SITES, /* probes on its ret instructions and tail-call jumps, if any */
};

/* Decides from the code of c->f, disassembled into c->rs. */
static enum ret_how ret_how(struct plan_ctx *c, int err)
{
	const struct ret_sites *rs = &c->rs;
	/* A uretprobe's trampoline must be all that ever sees the slot: not
	 * code the function jumps to, nor the function itself (setjmp). */
	bool uret = !err && rs->complete && rs->n && !rs->tail && !rs->touches_ret;

	/* No return: it ends in exit() or a longjmp, or it is an entry point
	 * (_start), where the word a uretprobe would replace is argc. */
	if (!err && rs->complete && !rs->n)
		return RET_SITES;
	if (uret && rs->leaf && !(c->walkers & WALKER_GO))
		return RET_LEAF;
	if (uret && c->plain)
		return RET_PLAIN;
	return !err && rs->complete ? RET_SITES : RET_NONE;
}

void probe_plan__free(struct probe_plan *pl)
{
	free(pl->offsets);
	free(pl->ids);
	free(pl->site_offsets);
	free(pl->site_cookies);
	free(pl->uret);
	free(pl->plain_only);
	free(pl->go_g);
	free(pl->bad);
	memset(pl, 0, sizeof(*pl));
}

static int plan_alloc(struct probe_plan *pl, size_t n)
{
	pl->offsets = malloc((n + 1) * sizeof(*pl->offsets));
	pl->ids = malloc((n + 1) * sizeof(*pl->ids));
	pl->uret = calloc(n + 1, sizeof(*pl->uret));
	pl->plain_only = calloc(n + 1, sizeof(*pl->plain_only));
	pl->go_g = calloc(n + 1, sizeof(*pl->go_g));
	pl->bad = calloc(n + 1, sizeof(*pl->bad));
	return pl->offsets && pl->ids && pl->uret && pl->plain_only && pl->go_g && pl->bad
		       ? 0
		       : -ENOMEM;
}

void probe_plan__note_refused(struct trace_attach_stats *at, const char *name)
{
	if (at->refused < REFUSED_SHOWN)
		at->refused_names[at->refused] = name;
	at->refused++;
}

/* Adds function id, whose returns are caught as how says (its sites in
 * c->rs). */
static int plan_add(struct probe_plan *pl, const struct plan_ctx *c, uint64_t id, enum ret_how how)
{
	int err = how == RET_SITES ? plan_add_sites(pl, &c->rs, id, c->f->size, c->go_g) : 0;

	if (err)
		return err;
	pl->offsets[pl->n] = c->entry;
	pl->ids[pl->n] = id;
	pl->uret[pl->n] = how == RET_LEAF || how == RET_PLAIN;
	pl->go_g[pl->n] = c->go_g;
	pl->plain_only[pl->n++] = how == RET_PLAIN;
	return 0;
}

static void count_return(struct trace_attach_stats *at, enum ret_how how)
{
	at->by_uret_leaf += how == RET_LEAF;
	at->by_uret_plain += how == RET_PLAIN;
	at->by_ret_sites += how == RET_SITES;
	at->no_ret_sites += how == RET_NONE;
}

/* Whether function f is probed at all: not an IFUNC resolver (it runs
 * once, at load: nothing to time), not a .cold part (timed as part of its
 * function), not an entry the kernel refuses. Sets c->entry: in Go code,
 * past the stack check, which runs again after the stack grew. */
static bool probed(struct plan_ctx *c, const struct func *f, bool *stepped)
{
	uint64_t start = f->offset;
	enum entry_kind kind;

	c->go_g = false;
	if (f->ifunc) {
		c->at->ifuncs++;
		return false;
	}
	if (fragment__is(f->sym)) {
		c->at->fragments++;
		return false;
	}
	if (c->walkers & WALKER_GO)
		start = go_prologue__end(c->d, c->fd, f->offset, f->size, &c->go_g);
	c->past_check = start != f->offset;
	kind = disasm__entry(c->d, c->fd, start, &c->entry);
	if (kind == ENTRY_REFUSED)
		probe_plan__note_refused(c->at, f->name);
	*stepped = kind == ENTRY_STEPPED;
	return kind != ENTRY_REFUSED;
}

/* Plans one function; with safe, the fast way's exceptions there too. */
static int plan_func(struct plan_ctx *c, size_t i, struct probe_plan *pl, struct probe_plan *safe)
{
	struct code_range body;
	enum ret_how how;
	bool stepped;
	int err;

	c->f = &c->funcs->v[i];
	if (!probed(c, c->f, &stepped))
		return 0;
	body = (struct code_range){ c->f->vaddr, c->f->size, c->f->offset };
	memset(&c->rs, 0, sizeof(c->rs));
	err = ret_sites__find(c->d, c->fd, &body, find_fragment, c, &c->rs);
	if (err == -ENOMEM)
		goto out;
	how = ret_how(c, err);
	count_return(c->at, how);
	c->at->entries_stepped += how != RET_NONE && stepped;
	c->at->go_funcs += how != RET_NONE && (c->walkers & WALKER_GO);
	c->at->go_past_check += how != RET_NONE && c->past_check;
	c->at->go_g += how != RET_NONE && c->go_g;
	err = how == RET_NONE ? 0 : plan_add(pl, c, i, how);
	if (!err && how == RET_PLAIN && safe)
		err = plan_add(safe, c, i, RET_SITES);
out:
	ret_sites__free(&c->rs);
	return err;
}

int probe_plan__binary(const struct funcs *funcs, size_t first, size_t last, int fd, bool plain,
		       struct disasm *d, struct probe_plan *pl, struct probe_plan *safe,
		       struct trace_attach_stats *at)
{
	struct plan_ctx c = { .funcs = funcs, .at = at, .d = d, .fd = fd };
	int err = plan_alloc(pl, last - first);

	if (!err && safe)
		err = plan_alloc(safe, last - first);
	c.walkers = stack_walkers__of_file(fd);
	c.plain = plain && !c.walkers;
	for (size_t i = first; i < last && !err; i++)
		err = plan_func(&c, i, pl, safe);
	elf_symtab__free(c.syms);
	return err;
}
