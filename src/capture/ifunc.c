// SPDX-License-Identifier: GPL-2.0
/* The file is anyone's: its resolver is only read (at most RESOLVER_MAX
 * bytes), and a candidate counts only where a function of the file starts. */
#include "ifunc.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "util/hashmap.h"
#include "disasm.h"
#include "ifunc_self.h"

#define RESOLVER_MAX   4096
#define CANDIDATES_MAX 64
/* IFUNCs compared for shared implementations: far above libc's 58, libm's 85 */
#define SHARERS_MAX 1024

struct result {
	enum ifunc_how how;
	struct ifunc_impl *v;
	size_t n;
	char *elsewhere;
};

/* A pointer the dynamic linker writes: a GOT slot and the code it gets. */
struct slot {
	uint64_t at, target;
};

struct ifuncs {
	int fd;
	const char *path;
	const struct elf_symtab *t;
	struct stat st;
	struct ifunc_self *self; /* NULL: not a file we loaded */
	bool self_tried;
	struct elf_symtab *dbg; /* with the debug file's symbols, when there is one */
	bool dbg_tried;
	Elf *elf; /* for the call-frame information and the relocations */
	bool elf_tried;
	Dwarf_CFI *cfi;
	bool cfi_tried;
	struct slot *slots; /* sorted by at */
	size_t nslots, slots_cap;
	bool slots_tried;
	struct disasm *d;	/* NULL: no disassembler */
	struct hashmap by_func; /* function index -> index in res */
	struct result *res;
	size_t nres;
};

int ifuncs__new(int fd, const char *path, const struct elf_symtab *t, struct ifuncs **out)
{
	struct ifuncs *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->fd = fd;
	r->path = path;
	r->t = t;
	if (fstat(fd, &r->st))
		r->self_tried = true; /* not comparable: never ours */
	if (disasm__new(&r->d))
		r->d = NULL;
	*out = r;
	return 0;
}

/* The symbols of the debug file too, for the names of implementations
 * that .dynsym leaves out (glibc's __memmove_avx_unaligned_erms). */
static const struct elf_symtab *debug_table(struct ifuncs *r)
{
	struct debuginfo_where w = { .path = r->path };
	enum debuginfo_from from = DEBUGINFO_NONE;

	if (!r->dbg_tried) {
		r->dbg_tried = true;
		if (!debuginfo__load(r->fd, &w, &r->dbg, &from) && from == DEBUGINFO_NONE) {
			elf_symtab__free(r->dbg);
			r->dbg = NULL;
		}
	}
	return r->dbg;
}

static Elf *elf_of(struct ifuncs *r)
{
	if (!r->elf_tried) {
		r->elf_tried = true;
		r->elf = elf_begin(r->fd, ELF_C_READ_MMAP, NULL);
		if (r->elf && elf_kind(r->elf) != ELF_K_ELF) {
			elf_end(r->elf);
			r->elf = NULL;
		}
	}
	return r->elf;
}

/* The size of the call-frame information entry that starts at vaddr. */
static uint64_t fde_size(struct ifuncs *r, uint64_t vaddr)
{
	Dwarf_Addr start, end;
	Dwarf_Frame *frame;
	uint64_t size = 0;

	if (!r->cfi_tried) {
		r->cfi_tried = true;
		r->cfi = elf_of(r) ? dwarf_getcfi_elf(r->elf) : NULL;
	}
	if (!r->cfi || dwarf_cfi_addrframe(r->cfi, vaddr, &frame))
		return 0;
	if (dwarf_frame_info(frame, &start, &end, NULL) >= 0 && start == vaddr && end > start)
		size = end - start;
	free(frame);
	return size;
}

/* The symbol that starts at vaddr in t, if any, into impl: its name and
 * size (up to the next symbol when it states none: then false). */
static bool sized_symbol_at(const struct elf_symtab *t, uint64_t vaddr, struct ifunc_impl *impl)
{
	struct elf_func f;
	size_t i;

	if (!t || elf_symtab__find(t, vaddr, &i) || elf_symtab__func(t, i, &f))
		return false;
	impl->name = f.name;
	impl->size = f.size;
	impl->sized = f.sized;
	return f.sized;
}

/* Fills impl for the code at vaddr; false when no function starts there:
 * no symbol, and no call-frame information entry. */
static bool describe(struct ifuncs *r, uint64_t vaddr, struct ifunc_impl *impl)
{
	uint64_t size;

	*impl = (struct ifunc_impl){ .vaddr = vaddr };
	if (elf_symtab__file_offset(r->t, vaddr, &impl->offset))
		return false;
	if (sized_symbol_at(r->t, vaddr, impl) || sized_symbol_at(debug_table(r), vaddr, impl))
		return true;
	size = fde_size(r, vaddr);
	if (size) {
		impl->size = size;
		impl->sized = true;
	}
	return impl->size > 0;
}

static int add_impl(struct result *res, const struct ifunc_impl *impl)
{
	struct ifunc_impl *v;

	for (size_t k = 0; k < res->n; k++)
		if (res->v[k].vaddr == impl->vaddr)
			return 0;
	v = reallocarray(res->v, res->n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	res->v = v;
	res->v[res->n++] = *impl;
	return 0;
}

/* What the dynamic linker writes at a relocation, when the file says: a
 * symbol of its own plus the addend, or the load address plus the addend. */
static bool reloc_target(Elf_Data *syms, const GElf_Rela *rel, uint64_t *target)
{
	GElf_Sym sym;

	switch (GELF_R_TYPE(rel->r_info)) {
	case R_X86_64_RELATIVE:
		*target = (uint64_t)rel->r_addend;
		return true;
	case R_X86_64_GLOB_DAT:
	case R_X86_64_JUMP_SLOT:
	case R_X86_64_64:
		if (!syms || GELF_R_SYM(rel->r_info) > INT32_MAX ||
		    !gelf_getsym(syms, (int)GELF_R_SYM(rel->r_info), &sym) ||
		    sym.st_shndx == SHN_UNDEF || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			return false;
		*target = sym.st_value + (uint64_t)rel->r_addend;
		return true;
	}
	return false;
}

static int add_slots(struct ifuncs *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(r->elf, sh->sh_link);
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	size_t n = d && sh->sh_entsize ? d->d_size / sh->sh_entsize : 0;
	GElf_Rela rel;
	uint64_t target;

	for (size_t i = 0; i < n && i <= INT32_MAX && gelf_getrela(d, (int)i, &rel); i++) {
		if (!reloc_target(syms, &rel, &target))
			continue;
		if (r->nslots == r->slots_cap) {
			size_t cap = r->slots_cap ? 2 * r->slots_cap : 64;
			struct slot *v = reallocarray(r->slots, cap, sizeof(*v));

			if (!v)
				return -ENOMEM;
			r->slots = v;
			r->slots_cap = cap;
		}
		r->slots[r->nslots++] = (struct slot){ rel.r_offset, target };
	}
	return 0;
}

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

static int load_slots(struct ifuncs *r)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	r->slots_tried = true;
	while (!err && elf_of(r) && (scn = elf_nextscn(r->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			err = add_slots(r, scn, &sh);
	if (r->nslots)
		qsort(r->slots, r->nslots, sizeof(*r->slots), slot_cmp);
	return err;
}

/* The code a pointer slot (of the GOT) gets, when the file says. */
static bool slot_target(struct ifuncs *r, uint64_t at, uint64_t *target)
{
	struct slot key = { at, 0 }, *s;

	if (!r->slots_tried && load_slots(r))
		return false;
	s = r->nslots ? bsearch(&key, r->slots, r->nslots, sizeof(key), slot_cmp) : NULL;
	if (s)
		*target = s->target;
	return s != NULL;
}

/* The pick of our own copy of the file, under any of the function's names
 * that it exports. */
static int resolve_self(struct ifuncs *r, size_t i, const struct elf_func *f, struct result *res)
{
	struct ifunc_impl impl;
	uint64_t off, vaddr;
	const char *name = f->name;
	int err = 0;

	if (!r->self_tried) {
		r->self_tried = true;
		err = ifunc_self__open(&r->st, &r->self);
	}
	for (size_t k = 0; !err && r->self && name; name = elf_symtab__alias(r->t, i, k++)) {
		err = ifunc_self__resolve(r->self, name, &off, &res->elsewhere);
		if (err == -EXDEV) {
			res->how = IFUNC_ELSEWHERE;
			return 0;
		}
		if (err || elf_symtab__vaddr(r->t, off, &vaddr)) {
			err = err == -ENOMEM ? err : 0;
			continue;
		}
		/* our copy's pick starts a function: the same code as the file's */
		if (vaddr == f->vaddr || !describe(r, vaddr, &impl))
			continue;
		res->how = IFUNC_CHOSEN;
		return add_impl(res, &impl);
	}
	return err;
}

/* The code address insn loads, if any: lea from %rip, a load from a GOT
 * slot (an exported implementation), or an immediate in a fixed-address
 * program. */
static bool loaded_address(struct ifuncs *r, const cs_insn *insn, bool fixed, uint64_t *addr)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *src = &x->operands[1];
	bool from_rip = src->type == X86_OP_MEM && src->mem.base == X86_REG_RIP &&
			src->mem.index == X86_REG_INVALID;
	uint64_t at = insn->address + insn->size + (uint64_t)src->mem.disp;

	if (x->op_count != 2 || x->operands[0].type != X86_OP_REG)
		return false;
	if (insn->id == X86_INS_LEA && from_rip) {
		*addr = at;
		return true;
	}
	if (insn->id == X86_INS_MOV && from_rip)
		return slot_target(r, at, addr);
	if ((insn->id == X86_INS_MOV || insn->id == X86_INS_MOVABS) && fixed &&
	    src->type == X86_OP_IMM) {
		*addr = (uint64_t)src->imm;
		return true;
	}
	return false;
}

static int scan_resolver(struct ifuncs *r, const struct elf_func *f, const uint8_t *code,
			 size_t len, struct result *res)
{
	bool fixed = elf_symtab__type(r->t) == ET_EXEC;
	const uint8_t *p = code;
	uint64_t pc = f->vaddr, addr;
	cs_insn *insn = disasm__insn_new(r->d);
	struct ifunc_impl impl;
	int err = insn ? 0 : -ENOMEM;

	while (!err && len && res->n < CANDIDATES_MAX && disasm__next(r->d, &p, &len, &pc, insn)) {
		if (!loaded_address(r, insn, fixed, &addr) ||
		    (addr >= f->vaddr && addr - f->vaddr < f->size) || !describe(r, addr, &impl))
			continue;
		err = add_impl(res, &impl);
	}
	disasm__insn_free(r->d, insn);
	if (res->n)
		res->how = IFUNC_CANDIDATES;
	return err;
}

/* Every implementation the resolver can pick. */
static int resolve_code(struct ifuncs *r, const struct elf_func *f, struct result *res)
{
	size_t len = f->size < RESOLVER_MAX ? f->size : RESOLVER_MAX;
	uint64_t off;
	uint8_t *code;
	ssize_t got;
	int err;

	if (!r->d || !len || elf_symtab__file_offset(r->t, f->vaddr, &off))
		return 0;
	code = malloc(len);
	if (!code)
		return -ENOMEM;
	got = pread(r->fd, code, len, (off_t)off);
	err = got > 0 ? scan_resolver(r, f, code, (size_t)got, res) : 0;
	free(code);
	return err;
}

static int resolve_new(struct ifuncs *r, size_t i, struct result *res)
{
	struct elf_func f;
	int err;

	*res = (struct result){ IFUNC_NOT_FOUND, NULL, 0, NULL };
	if (elf_symtab__func(r->t, i, &f) || !f.ifunc)
		return 0;
	err = resolve_self(r, i, &f, res);
	if (!err && res->how == IFUNC_NOT_FOUND)
		err = resolve_code(r, &f, res);
	return err;
}

static int lookup(struct ifuncs *r, size_t i, const struct result **out)
{
	struct result res, *v;
	uint64_t at;
	int err;

	if (hashmap__get(&r->by_func, i, &at)) {
		*out = &r->res[at];
		return 0;
	}
	err = resolve_new(r, i, &res);
	v = err ? NULL : reallocarray(r->res, r->nres + 1, sizeof(*v));
	if (v) {
		r->res = v;
		err = hashmap__set(&r->by_func, i, r->nres);
	}
	if (err || !v) {
		free(res.v);
		free(res.elsewhere);
		return err ? err : -ENOMEM;
	}
	r->res[r->nres] = res;
	*out = &r->res[r->nres++];
	return 0;
}

int ifuncs__resolve(struct ifuncs *r, size_t i, struct ifunc_resolution *out)
{
	const struct result *res;
	int err = lookup(r, i, &res);

	if (err)
		return err;
	*out = (struct ifunc_resolution){ res->how, res->v, res->n, res->elsewhere };
	return 0;
}

static int add_name(char **names, const char *name)
{
	char *s;

	if (asprintf(&s, "%s%s%s", *names ? *names : "", *names ? ", " : "", name) < 0)
		return -ENOMEM;
	free(*names);
	*names = s;
	return 0;
}

int ifuncs__sharers(struct ifuncs *r, size_t i, char **names)
{
	const struct result *mine, *other;
	size_t seen = 0, cnt = elf_symtab__count(r->t);
	struct elf_func f;
	uint64_t impl;
	int err = lookup(r, i, &mine);

	*names = NULL;
	if (err || mine->how != IFUNC_CHOSEN)
		return err;
	impl = mine->v[0].vaddr;
	for (size_t j = 0; !err && j < cnt && seen < SHARERS_MAX; j++) {
		if (j == i || elf_symtab__func(r->t, j, &f) || !f.ifunc)
			continue;
		seen++;
		err = lookup(r, j, &other);
		if (!err && other->how == IFUNC_CHOSEN && other->v[0].vaddr == impl)
			err = add_name(names, f.name);
	}
	if (err) {
		free(*names);
		*names = NULL;
	}
	return err;
}

void ifuncs__free(struct ifuncs *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nres; i++) {
		free(r->res[i].v);
		free(r->res[i].elsewhere);
	}
	free(r->res);
	hashmap__free(&r->by_func);
	if (r->cfi)
		dwarf_cfi_end(r->cfi);
	free(r->slots);
	if (r->elf)
		elf_end(r->elf);
	disasm__free(r->d);
	elf_symtab__free(r->dbg);
	ifunc_self__free(r->self);
	free(r);
}
