// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/types.h>

#include "alloc.h"
#include "alloc_probes.h"
#include "funcs.h"
#include "uprobe_sites.h"

/* The names as -l prints them; each is then told by its symbol. */
#define ALLOC_REGEX                                                                                \
	"^(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign|valloc|pvalloc|"       \
	"mmap|munmap|operator new|operator delete|std::get_new_handler)"

_Static_assert(ALLOC_MAP_ANONYMOUS == MAP_ANONYMOUS, "bpf/alloc.h's MAP_ANONYMOUS is not libc's");

static const struct {
	const char *name;
	enum alloc_kind kind;
} c_funcs[] = {
	{ "malloc", ALLOC_MALLOC },
	{ "valloc", ALLOC_MALLOC },
	{ "pvalloc", ALLOC_MALLOC },
	{ "calloc", ALLOC_CALLOC },
	{ "realloc", ALLOC_REALLOC },
	{ "memalign", ALLOC_MEMALIGN },
	{ "aligned_alloc", ALLOC_MEMALIGN },
	{ "posix_memalign", ALLOC_POSIX_MEMALIGN },
	{ "free", ALLOC_FREE },
	/* glibc's mmap64 is mmap (one address: one probe), not every libc's */
	{ "mmap", ALLOC_MMAP },
	{ "mmap64", ALLOC_MMAP },
	{ "munmap", ALLOC_MUNMAP },
};

/* Every operator new takes the size first, every delete the pointer
 * (sized, nothrow, align_val_t variants alike): told by their mangled
 * names, _Znw/_Zna and _Zdl/_Zda. 0 for what the regex caught besides
 * (malloc_trim, ...). */
static enum alloc_kind kind_of(const struct func *f)
{
	const char *sym = f->sym ? f->sym : f->name;

	if (f->ifunc)
		return 0;
	if (!strncmp(sym, "_Znw", 4) || !strncmp(sym, "_Zna", 4))
		return ALLOC_MALLOC;
	if (!strncmp(sym, "_Zdl", 4) || !strncmp(sym, "_Zda", 4))
		return ALLOC_DELETE;
	for (size_t i = 0; i < sizeof(c_funcs) / sizeof(c_funcs[0]); i++)
		if (!strcmp(sym, c_funcs[i].name))
			return c_funcs[i].kind;
	return 0;
}

static int find(const struct binaries *bins, struct funcs *list)
{
	struct funcs_query q = {};
	regex_t re;
	int err;

	if (regcomp(&re, ALLOC_REGEX, REG_EXTENDED | REG_NOSUB))
		return -EINVAL;
	q.re = &re;
	err = funcs__match(list, bins, &q);
	regfree(&re);
	return err;
}

struct bin_set {
	uint64_t *off, *cookie;
	bool *bad;
	size_t n;
};

static int attach_set(struct alloc_probes *ap, struct bpf_program *prog, const char *path,
		      const struct bin_set *s, enum uprobe_multi_kind kind, pid_t pid)
{
	const struct uprobe_set set = { .path = path,
					.offsets = s->off,
					.cookies = s->cookie,
					.n = s->n,
					.kind = kind,
					.pid = pid };
	int err = uprobe_sites__attach(&ap->links, prog, &set, s->bad);

	for (size_t i = 0; !err && i < s->n; i++)
		ap->refused += s->bad[i];
	return err;
}

static void note_bin(struct alloc_probes *ap, const char *path, size_t n)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(ap->first);

	snprintf(ap->first + len, sizeof(ap->first) - len, "%s%s (%zu)", len ? ", " : "", base, n);
}

static void set_push(struct bin_set *s, uint64_t off, enum alloc_kind k)
{
	s->off[s->n] = off;
	s->cookie[s->n++] = k;
}

static bool is_cxx(const struct func *f)
{
	const char *sym = f->sym ? f->sym : f->name;

	return !strncmp(sym, "_Z", 2);
}

/* Whether binary b has operator new and delete of its own to probe: it
 * defines malloc itself (an allocator library) and is not libstdc++ (whose
 * std::get_new_handler a static program carries). libstdc++'s operator new
 * and delete call malloc and free, which are probed, and their frames are
 * in those stacks; and a return probe on an operator new that throws
 * bad_alloc would leave a return address no unwinder knows on the stack:
 * the exception would end the program (std::terminate). */
static bool own_new(const struct funcs *list, size_t b)
{
	bool malloc_here = false;

	for (size_t i = 0; i < list->n; i++) {
		const struct func *f = &list->v[i];
		const char *sym = f->sym ? f->sym : f->name;

		if (f->bin != b)
			continue;
		if (!strcmp(sym, "_ZSt15get_new_handlerv"))
			return false;
		malloc_here |= !is_cxx(f) && kind_of(f) == ALLOC_MALLOC;
	}
	return malloc_here;
}

/* An operator new that may throw bad_alloc (not a nothrow one): a return
 * probe on it would turn the exception into std::terminate. */
static bool may_throw(const struct func *f, enum alloc_kind k)
{
	const char *sym = f->sym ? f->sym : f->name;

	return is_cxx(f) && k == ALLOC_MALLOC && !strstr(sym, "nothrow_t");
}

/* The kind of list->v[i] probed in binary b (cxx: its operator new and
 * delete too, own_new(), but for the new that may throw), or 0. */
static enum alloc_kind probed_kind(const struct funcs *list, size_t i, size_t b, bool cxx)
{
	const struct func *f = &list->v[i];
	enum alloc_kind k;

	if (f->bin != b || (is_cxx(f) && !cxx))
		return 0;
	k = kind_of(f);
	return may_throw(f, k) ? 0 : k;
}

/* The kinds probed at their entry only. */
static bool frees(enum alloc_kind k)
{
	return k == ALLOC_FREE || k == ALLOC_DELETE || k == ALLOC_MUNMAP;
}

/* The functions of binary b of list: returns of those that allocate, then
 * entries of those and of the frees; an entry whose return the kernel
 * refused is left out (its call would stay open). */
static int attach_bin(struct alloc_probes *ap, const struct funcs *list, size_t b, pid_t pid,
		      struct bpf_program *entries, struct bpf_program *returns)
{
	struct bin_set all = {}, ret = {};
	size_t n = list->n + 1;
	bool cxx = own_new(list, b);
	int err = -ENOMEM;

	all.off = calloc(n, sizeof(uint64_t));
	all.cookie = calloc(n, sizeof(uint64_t));
	ret.off = calloc(n, sizeof(uint64_t));
	ret.cookie = calloc(n, sizeof(uint64_t));
	all.bad = calloc(n, sizeof(bool));
	ret.bad = calloc(n, sizeof(bool));
	if (!all.off || !all.cookie || !ret.off || !ret.cookie || !all.bad || !ret.bad)
		goto out;
	for (size_t i = 0; i < list->n; i++) {
		enum alloc_kind k = probed_kind(list, i, b, cxx);

		if (k && !frees(k))
			set_push(&ret, list->v[i].offset, k);
	}
	err = attach_set(ap, returns, list->bins.v[b].open_path, &ret, UPROBE_MULTI_RETURN, pid);
	for (size_t i = 0, r = 0; !err && i < list->n; i++) {
		enum alloc_kind k = probed_kind(list, i, b, cxx);

		if (k && (frees(k) || !ret.bad[r]))
			set_push(&all, list->v[i].offset, k);
		r += k && !frees(k);
	}
	if (!err)
		err = attach_set(ap, entries, list->bins.v[b].open_path, &all, UPROBE_MULTI_ENTRY,
				 pid);
	if (!err && all.n) {
		ap->nfuncs += all.n;
		ap->nbins++;
		note_bin(ap, list->bins.v[b].path, all.n);
	}
out:
	free(all.off);
	free(all.cookie);
	free(ret.off);
	free(ret.cookie);
	free(all.bad);
	free(ret.bad);
	return err;
}

static bool is_exe(const struct binaries *bins, const struct target_binary *b)
{
	return bins->n && bins->v[0].dev == b->dev && bins->v[0].ino == b->ino;
}

int alloc_probes__attach(struct alloc_probes *ap, const struct binaries *bins,
			 const struct alloc_target *t, struct bpf_program *entries,
			 struct bpf_program *returns)
{
	struct funcs list = {};
	int err = find(bins, &list);

	for (size_t b = 0; !err && b < list.bins.n; b++) {
		pid_t pid = t->exe_everywhere && is_exe(bins, &list.bins.v[b]) ? 0 : t->pid;

		err = attach_bin(ap, &list, b, pid, entries, returns);
	}
	if (!err && !ap->nfuncs)
		err = -ENOENT;
	funcs__free(&list);
	return err;
}

void alloc_probes__detach(struct alloc_probes *ap)
{
	uprobe_sites__close(&ap->links);
}
