/* PLT stubs from their code and the dynamic relocations. A stub is found by
 * what it does, not by where it sits: each entry's indirect jump, "jmp
 * *disp(%rip)" (ff 25), after an endbr64 and a bnd prefix where IBT builds
 * put them, names the GOT slot it loads; the relocation of that slot
 * (R_X86_64_JUMP_SLOT in .rela.plt, R_X86_64_GLOB_DAT for .plt.got) names
 * the function. The lazy-binding header (PLT0) and the second half of an
 * IBT .plt (push and jump to PLT0) have no such jump and are left out.
 */
#include "elf_plt.h"
#include "elf_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

#define ENTRY_MAX 32 /* bytes: real entries are 8 or 16 */

struct reloc {
	uint64_t slot; /* r_offset: the GOT slot */
	const char *name;
	uint64_t resolver; /* IRELATIVE: r_addend */
};

struct relocs {
	struct reloc *v;
	size_t n, cap;
};

static const char *section_name(Elf *elf, const GElf_Shdr *sh)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	return elf_strptr(elf, shstrndx, sh->sh_name);
}

/* The name of symbol i of the symbol table scn, or NULL. */
static const char *sym_name(Elf *elf, Elf_Scn *symscn, size_t i)
{
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	const char *name;

	if (!symscn || !gelf_getshdr(symscn, &sh) || i > INT32_MAX)
		return NULL;
	d = elf_getdata(symscn, NULL);
	if (!d || !gelf_getsym(d, (int)i, &s))
		return NULL;
	name = elf_strptr(elf, sh.sh_link, s.st_name);
	return name && *name ? name : NULL;
}

/* The relocation as a GOT slot of a function, or false for another kind. */
static bool slot_reloc(Elf *elf, Elf_Scn *symscn, const GElf_Rela *ra, struct reloc *r)
{
	uint64_t type = GELF_R_TYPE(ra->r_info);

	*r = (struct reloc){ .slot = ra->r_offset };
	if (type == R_X86_64_IRELATIVE) {
		r->resolver = (uint64_t)ra->r_addend;
		return true;
	}
	if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
		return false;
	r->name = sym_name(elf, symscn, GELF_R_SYM(ra->r_info));
	return r->name != NULL;
}

/* Relocations read between give-backs of their pages: .rela.dyn runs to
 * MiBs (libLLVM's 8), of which a few are slots. */
#define RELA_PER_RELEASE 4096

static int read_rela(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct relocs *rs)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct reloc r;
	GElf_Rela ra;
	int err;

	for (size_t i = 0; d && i < n && i <= INT32_MAX; i++) {
		if (i % RELA_PER_RELEASE == 0)
			elf_file__release(elf, scn);
		if (!gelf_getrela(d, (int)i, &ra))
			break;
		if (!slot_reloc(elf, symscn, &ra, &r))
			continue;
		err = array__push((void **)&rs->v, &rs->n, &rs->cap, &r, sizeof(r));
		if (err)
			return err;
	}
	elf_file__release(elf, scn);
	return 0;
}

static int cmp_reloc(const void *a, const void *b)
{
	const struct reloc *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return 0;
}

static const struct reloc *find_reloc(const struct relocs *rs, uint64_t slot)
{
	const struct reloc key = { .slot = slot };

	return rs->n ? bsearch(&key, rs->v, rs->n, sizeof(*rs->v), cmp_reloc) : NULL;
}

static bool is_endbr64(const uint8_t *b)
{
	return b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa;
}

/* The GOT slot an entry's "jmp *disp(%rip)" loads: at its start, after a
 * bnd prefix (f2), an endbr64, or both. */
static bool entry_slot(const uint8_t *b, size_t len, uint64_t vaddr, uint64_t *slot)
{
	size_t p = 0;
	int32_t disp;

	if (len >= 4 && is_endbr64(b))
		p = 4;
	if (p < len && b[p] == 0xf2)
		p++;
	if (len < p + 6 || b[p] != 0xff || b[p + 1] != 0x25)
		return false;
	memcpy(&disp, b + p + 2, sizeof(disp)); /* x86-64: little-endian */
	*slot = vaddr + p + 6 + (uint64_t)(int64_t)disp;
	return true;
}

/* The bytes of each entry: sh_entsize where the linker set a sane one. */
static uint64_t entry_size(const GElf_Shdr *sh, const char *name)
{
	if (sh->sh_entsize >= 8 && sh->sh_entsize <= ENTRY_MAX)
		return sh->sh_entsize;
	return strcmp(name, ".plt.got") == 0 ? 8 : 16;
}

static int each_stub(Elf_Scn *scn, const GElf_Shdr *sh, const char *name, const struct relocs *rs,
		     elf_plt_fn fn, void *arg)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	uint64_t esz = entry_size(sh, name), slot;
	const struct reloc *r;
	int ret;

	if (!d || !d->d_buf)
		return 0;
	for (uint64_t off = 0; off + esz <= d->d_size; off += esz) {
		struct elf_plt_stub st = { .vaddr = sh->sh_addr + off, .size = esz };

		if (!entry_slot((const uint8_t *)d->d_buf + off, esz, st.vaddr, &slot))
			continue;
		r = find_reloc(rs, slot);
		if (!r)
			continue;
		st.name = r->name;
		st.resolver = r->resolver;
		ret = fn(arg, &st);
		if (ret)
			return ret;
	}
	return 0;
}

static bool is_plt(const GElf_Shdr *sh, const char *name)
{
	return name && sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR) &&
	       (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got"));
}

static int read_relocs(Elf *elf, struct relocs *rs)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !(sh.sh_flags & SHF_ALLOC))
			continue;
		err = read_rela(elf, scn, &sh, rs);
		if (err)
			return err;
	}
	if (rs->n)
		qsort(rs->v, rs->n, sizeof(*rs->v), cmp_reloc);
	return 0;
}

int elf_plt__each(Elf *elf, elf_plt_fn fn, void *arg)
{
	struct relocs rs = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int ret;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
		return 0;
	ret = read_relocs(elf, &rs);
	while (!ret && rs.n && (scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && is_plt(&sh, section_name(elf, &sh)))
			ret = each_stub(scn, &sh, section_name(elf, &sh), &rs, fn, arg);
	}
	free(rs.v);
	return ret;
}
