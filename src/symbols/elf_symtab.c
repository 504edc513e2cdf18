/* Function symbols, executable segments and build-id of one ELF file. The file
 * is whatever a profiled process mapped, owned by anyone, so it may be
 * malformed: all access goes through libelf's bounds-checked accessors, and a
 * structural error fails the load instead of yielding half a table.
 */
#include "elf_symtab.h"
#include "elf_file.h"
#include "elf_plt.h"
#include "elf_versions.h"
#include "go_pclntab.h"
#include "util/array.h"

#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SHA-1 ids are 20 bytes; --build-id=0x<hex> can be longer but rarely is. */
#define BUILD_ID_MAX 64
/* Bounds one loaded file: far above the largest real symbol tables. */
#define POOL_MAX (1UL << 31)

/* POOL_MAX (each name takes 2 bytes or more) keeps counts below 2^32. */
struct sym {
	uint64_t addr;
	uint64_t end;	    /* exclusive; holds st_size until the table is finished */
	size_t name;	    /* offset in the string pool */
	uint32_t alias;	    /* its first other name in aliases[] */
	uint32_t nalias;    /* how many other names share addr */
	uint32_t file_name; /* names left: where the file holds the name, else 0 */
	unsigned char bind;
	bool sized;
	bool ifunc;	 /* any of its names is an STT_GNU_IFUNC */
	bool ifunc_name; /* this one is */
};

_Static_assert(offsetof(struct sym, addr) == 0, "count_below() reads addr first");

struct seg {
	uint64_t off, filesz, vaddr, memsz;
};

struct range {
	uint64_t start, end;
};

/* A PLT stub, named "FUNCTION@plt"; one of an IFUNC of the file itself is
 * named after its resolver once the symbols are read. */
struct plt {
	uint64_t addr, end;
	size_t name; /* in the pool; NO_NAME until resolved */
	uint64_t resolver;
};

#define NO_NAME SIZE_MAX

_Static_assert(offsetof(struct plt, addr) == 0, "count_below() reads addr first");

struct elf_symtab {
	struct sym *syms;
	size_t nsyms, syms_cap;
	char *pool;
	size_t pool_len, pool_cap;
	size_t *aliases;    /* pool offsets of the names dedup_syms set aside */
	bool *alias_ifuncs; /* whether each is an STT_GNU_IFUNC */
	size_t naliases;
	struct seg *segs;
	size_t nsegs;
	struct range *secs; /* executable sections: where an unsized symbol ends */
	size_t nsecs;
	struct plt *plts; /* sorted by address */
	size_t nplts, plts_cap;
	uint16_t type; /* e_type: ET_EXEC, ET_DYN, ... */
	uint16_t machine;
	unsigned char elfclass;
	uint64_t entry, entry_end; /* the entry code when no symbol covers it */
	size_t symtab_funcs;	   /* functions taken from a .symtab */
	bool reading_file;	   /* the file's own sections are read (not a debug file's) */
	bool names_left;	   /* file_name names are not pooled (elf_symtab__load_as) */
	const char *image;	   /* names left: the file as libelf maps it, while read */
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;
};

/* Makes room for one more symbol. */
static int grow_syms(struct elf_symtab *t)
{
	size_t ncap;
	struct sym *v;

	if (t->nsyms < t->syms_cap)
		return 0;
	ncap = t->syms_cap ? t->syms_cap * 2 : 64;
	v = reallocarray(t->syms, ncap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->syms = v;
	t->syms_cap = ncap;
	return 0;
}

/* Adds the len bytes of s, then "@" and ver when ver is not NULL, as one
 * string. */
static int pool_add_ver(struct elf_symtab *t, const char *s, size_t len, const char *ver,
			size_t *off)
{
	size_t vlen = ver ? strlen(ver) + 1 : 0, need;
	char *np;

	if (len > POOL_MAX || vlen > POOL_MAX - len - 1)
		return -EFBIG;
	need = len + vlen + 1;
	if (need > POOL_MAX - t->pool_len)
		return -EFBIG;
	if (t->pool_len + need > t->pool_cap) {
		size_t ncap = t->pool_cap ? t->pool_cap : 4096;

		while (ncap < t->pool_len + need)
			ncap *= 2;
		np = realloc(t->pool, ncap);
		if (!np)
			return -ENOMEM;
		t->pool = np;
		t->pool_cap = ncap;
	}
	np = t->pool + t->pool_len;
	memcpy(np, s, len);
	if (ver) {
		np[len] = '@';
		memcpy(np + len + 1, ver, vlen - 1);
	}
	np[need - 1] = '\0';
	*off = t->pool_len;
	t->pool_len += need;
	return 0;
}

static int add_segment(struct elf_symtab *t, const GElf_Phdr *ph)
{
	struct seg *v = reallocarray(t->segs, t->nsegs + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->segs = v;
	t->segs[t->nsegs++] = (struct seg){
		.off = ph->p_offset,
		.filesz = ph->p_filesz,
		.vaddr = ph->p_vaddr,
		.memsz = ph->p_memsz,
	};
	return 0;
}

static bool is_build_id(const Elf_Data *d, const GElf_Nhdr *nh, size_t name_off)
{
	if (nh->n_type != NT_GNU_BUILD_ID || nh->n_namesz != sizeof(ELF_NOTE_GNU))
		return false;
	if (name_off > d->d_size || d->d_size - name_off < sizeof(ELF_NOTE_GNU))
		return false;
	return memcmp((const char *)d->d_buf + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) == 0;
}

/* Takes the first GNU build-id note in d, if any. */
static void scan_notes(struct elf_symtab *t, Elf_Data *d)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d || !d->d_buf)
		return;
	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > off) {
		if (is_build_id(d, &nh, name_off) && nh.n_descsz > 0 &&
		    nh.n_descsz <= BUILD_ID_MAX && desc_off <= d->d_size &&
		    d->d_size - desc_off >= nh.n_descsz) {
			memcpy(t->build_id, (const char *)d->d_buf + desc_off, nh.n_descsz);
			t->build_id_len = nh.n_descsz;
			return;
		}
		off = next;
	}
}

static void scan_note_segment(struct elf_symtab *t, Elf *elf, const GElf_Phdr *ph)
{
	Elf_Type type = ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR;

	if (t->build_id_len || ph->p_filesz == 0)
		return;
	/* NULL when the segment lies outside the file: simply no build-id. */
	scan_notes(t, elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz, type));
}

/* The build-id of a note segment; nonzero (stop) once found. */
static int note_phdr(void *arg, Elf *elf, const GElf_Phdr *ph)
{
	struct elf_symtab *t = arg;

	if (ph->p_type == PT_NOTE)
		scan_note_segment(t, elf, ph);
	return t->build_id_len != 0;
}

int elf_symtab__read_build_id(int fd, uint8_t *id, size_t max, size_t *len)
{
	struct elf_symtab t = { 0 };
	Elf *elf;
	int err;

	*len = 0;
	err = elf_file__open(fd, &elf);
	if (err)
		return err;
	elf_file__each_phdr(elf, note_phdr, &t);
	/* as load_sections() does: a note section where no segment had one */
	for (Elf_Scn *scn = NULL; !t.build_id_len && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			break;
		if (sh.sh_type == SHT_NOTE)
			scan_notes(&t, elf_getdata(scn, NULL));
	}
	elf_end(elf);
	if (!t.build_id_len || t.build_id_len > max)
		return -ENOENT;
	memcpy(id, t.build_id, t.build_id_len);
	*len = t.build_id_len;
	return 0;
}

/* The build-id of a note segment, and each executable segment. */
static int load_segment(void *arg, Elf *elf, const GElf_Phdr *ph)
{
	struct elf_symtab *t = arg;

	if (ph->p_type == PT_NOTE)
		scan_note_segment(t, elf, ph);
	if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
		return 0;
	return add_segment(t, ph);
}

static bool wanted_sym(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* Adds a symbol under the name users know it by: one of a non-default
 * version (ver) is "name@VERSION", as nm shows it; a .symtab name that
 * carries its default version ("memcpy@@GLIBC_2.14", as ld writes them)
 * loses it, as in .dynsym; a default version is the plain name. */
static int add_sym(struct elf_symtab *t, const GElf_Sym *s, const char *name, const char *ver,
		   uint64_t str_off)
{
	const char *dflt = ver ? NULL : strstr(name, "@@");
	struct sym *y;
	int err;

	if (dflt == name)
		return 0;
	err = grow_syms(t);
	if (err)
		return err;
	y = &t->syms[t->nsyms];
	/* left where the file holds it as it is (not with a version added
	 * or taken off), which the sort reads in the file as libelf maps it */
	y->file_name = str_off && !ver && !dflt && name == t->image + str_off + s->st_name
			       ? (uint32_t)(str_off + s->st_name)
			       : 0;
	y->name = 0;
	if (!y->file_name) {
		err = pool_add_ver(t, name, dflt ? (size_t)(dflt - name) : strlen(name), ver,
				   &y->name);
		if (err)
			return err;
	}
	y->addr = s->st_value;
	y->end = s->st_size;
	y->alias = 0;
	y->nalias = 0;
	y->bind = GELF_ST_BIND(s->st_info);
	y->sized = s->st_size != 0;
	y->ifunc = y->ifunc_name = GELF_ST_TYPE(s->st_info) == STT_GNU_IFUNC;
	t->nsyms++;
	return 0;
}

struct symsec {
	struct elf_symtab *t;
	const struct elf_versions *v; /* .dynsym's versions */
	bool symtab;		      /* a .symtab */
	uint64_t str_off;	      /* its strings' file offset, 0: names pooled */
};

static int load_sym(void *arg, size_t i, const GElf_Sym *s, const char *name)
{
	struct symsec *sec = arg;
	int err;

	if (!wanted_sym(s))
		return 0;
	err = add_sym(sec->t, s, name, elf_versions__hidden(sec->v, i), sec->str_off);
	sec->t->symtab_funcs += sec->symtab && !err;
	return err;
}

/* Where the file holds the strings of symbol section sh as they are (an
 * uncompressed string table), or 0. */
static uint64_t strings_offset(Elf *elf, const GElf_Shdr *sh)
{
	Elf_Scn *str = elf_getscn(elf, sh->sh_link);
	GElf_Shdr ss;

	if (!str || !gelf_getshdr(str, &ss) || ss.sh_type != SHT_STRTAB ||
	    (ss.sh_flags & SHF_COMPRESSED) || ss.sh_offset + ss.sh_size > UINT32_MAX)
		return 0;
	return ss.sh_offset;
}

/* Gives back the pages of the symbol section scn (header sh) and of its
 * strings, which the sort reads again only for the names of one address:
 * the kernel counts those read in our RSS while mapped, 17 MiB of node's. */
static void release_symsec(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Scn *strs = elf_getscn(elf, sh->sh_link);

	elf_file__release(elf, scn);
	if (strs)
		elf_file__release(elf, strs);
}

static int load_symsec(struct elf_symtab *t, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	struct elf_versions *v = NULL;
	struct symsec sec = { .t = t, .symtab = sh->sh_type == SHT_SYMTAB };
	int err = 0;

	if (t->reading_file && t->names_left)
		sec.str_off = strings_offset(elf, sh);

	if (sh->sh_type == SHT_DYNSYM)
		err = elf_versions__load(elf, elf_ndxscn(scn), &v);
	sec.v = v;
	if (!err)
		err = elf_file__each_sym(elf, scn, sh, load_sym, &sec);
	elf_versions__free(v);
	if (sec.str_off)
		release_symsec(elf, scn, sh);
	return err;
}

/* A function of Go's table: sized by the table, global as Go's are. */
static int add_go_func(void *arg, uint64_t entry, uint64_t end, const char *name, size_t len)
{
	struct elf_symtab *t = arg;
	struct sym *y;
	int err = grow_syms(t);

	if (err)
		return err;
	y = &t->syms[t->nsyms];
	err = pool_add_ver(t, name, len, NULL, &y->name);
	if (err)
		return err;
	*y = (struct sym){ .addr = entry,
			   .end = end - entry,
			   .name = y->name,
			   .bind = STB_GLOBAL,
			   .sized = true };
	t->nsyms++;
	return 0;
}

/* The names of a stripped Go binary, from the table its runtime keeps. A
 * table flamebpf cannot read leaves the file as stripped as it was. */
static int load_go_funcs(struct elf_symtab *t, Elf_Scn *go, uint64_t text)
{
	Elf_Data *d = elf_getdata(go, NULL);
	size_t n = t->nsyms, pool = t->pool_len;
	int err;

	if (!d || !d->d_buf)
		return 0;
	err = go_pclntab__funcs(d->d_buf, d->d_size, text, add_go_func, t);
	if (err == -ENOEXEC) {
		t->nsyms = n;
		t->pool_len = pool;
		return 0;
	}
	return err;
}

static int add_section(struct elf_symtab *t, const GElf_Shdr *sh)
{
	struct range *v;

	if (sh->sh_type != SHT_PROGBITS || !(sh->sh_flags & SHF_EXECINSTR) || !sh->sh_size ||
	    sh->sh_addr + sh->sh_size < sh->sh_addr)
		return 0;
	v = reallocarray(t->secs, t->nsecs + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->secs = v;
	t->secs[t->nsecs++] = (struct range){ sh->sh_addr, sh->sh_addr + sh->sh_size };
	return 0;
}

static int add_plt(void *arg, const struct elf_plt_stub *st)
{
	struct elf_symtab *t = arg;
	struct plt *p;
	int err;

	if (array__reserve((void **)&t->plts, &t->plts_cap, t->nplts + 1, sizeof(*p)))
		return -ENOMEM;
	p = &t->plts[t->nplts];
	*p = (struct plt){ st->vaddr, st->vaddr + st->size, NO_NAME, st->resolver };
	if (st->name) {
		err = pool_add_ver(t, st->name, strlen(st->name), "plt", &p->name);
		if (err)
			return err;
	}
	t->nplts++;
	return 0;
}

static int load_sections(struct elf_symtab *t, Elf *elf)
{
	Elf_Scn *scn = NULL, *go = NULL;
	uint64_t text = 0;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;
	int err;

	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type == SHT_NOTE && !t->build_id_len)
			scan_notes(t, elf_getdata(scn, NULL));
		name = shstrndx ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && sh.sh_type == SHT_PROGBITS && !strcmp(name, ".gopclntab"))
			go = scn;
		if (name && !strcmp(name, ".text"))
			text = sh.sh_addr;
		err = add_section(t, &sh);
		if (!err && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			err = load_symsec(t, elf, scn, &sh);
		if (err)
			return err;
	}
	err = elf_plt__each(elf, add_plt, t);
	if (err)
		return err;
	return go && !t->symtab_funcs ? load_go_funcs(t, go, text) : 0;
}

/* The name of s: in the pool, or while the table is read, in the file. */
static const char *sym_name(const struct elf_symtab *t, const struct sym *s)
{
	return s->file_name ? t->image + s->file_name : t->pool + s->name;
}

static int bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

/* Orders by address, then aliases at one address best first: a GLOBAL binding
 * over WEAK over LOCAL (the exported name is what users know), then fewer
 * leading underscores (memcpy over __memcpy), then the shorter name, then
 * byte order so that the choice never depends on the sort.
 */
static int sym_cmp(const void *a, const void *b, void *arg)
{
	const struct sym *x = a, *y = b;
	const struct elf_symtab *t = arg;
	const char *xn, *yn;
	size_t xu, yu, xl, yl;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (bind_rank(x->bind) != bind_rank(y->bind))
		return bind_rank(x->bind) - bind_rank(y->bind);
	xn = sym_name(t, x);
	yn = sym_name(t, y);
	xu = strspn(xn, "_");
	yu = strspn(yn, "_");
	if (xu != yu)
		return xu < yu ? -1 : 1;
	xl = strlen(xn);
	yl = strlen(yn);
	if (xl != yl)
		return xl < yl ? -1 : 1;
	return strcmp(xn, yn);
}

/* Whether name is not yet among the names of best (the first symbol of a
 * group, whose other names so far end at aliases[na]): .symtab and .dynsym
 * repeat most names. */
static bool new_name(const struct elf_symtab *t, const struct sym *best, size_t na, size_t name)
{
	size_t k;

	if (!strcmp(t->pool + best->name, t->pool + name))
		return false;
	for (k = best->alias; k < na; k++) {
		if (!strcmp(t->pool + t->aliases[k], t->pool + name))
			return false;
	}
	return true;
}

/* Keeps the best alias per address, with the largest size any alias states;
 * the other names go to aliases[], in order, for matching by name (not
 * when the names are left in the file: a symbolizer needs only the best). */
static int dedup_syms(struct elf_symtab *t)
{
	size_t i, n = 0, na = 0;

	if (!t->names_left) {
		t->aliases = calloc(t->nsyms, sizeof(*t->aliases));
		t->alias_ifuncs = calloc(t->nsyms, sizeof(*t->alias_ifuncs));
		if (!t->aliases || !t->alias_ifuncs)
			return -ENOMEM;
	}
	for (i = 0; i < t->nsyms; i++) {
		struct sym *best = n ? &t->syms[n - 1] : NULL, *s = &t->syms[i];

		if (!best || best->addr != s->addr) {
			t->syms[n] = *s;
			t->syms[n++].alias = (uint32_t)na;
			continue;
		}
		best->end = s->end > best->end ? s->end : best->end;
		best->sized |= s->sized;
		best->ifunc |= s->ifunc;
		if (!t->names_left && new_name(t, best, na, s->name)) {
			t->alias_ifuncs[na] = s->ifunc_name;
			t->aliases[na++] = s->name;
			best->nalias++;
		}
	}
	t->nsyms = n;
	t->naliases = na;
	return 0;
}

/* The end of the executable segment holding vaddr, or vaddr + 1. */
static uint64_t segment_end(const struct elf_symtab *t, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++) {
		const struct seg *s = &t->segs[i];
		uint64_t left;

		if (vaddr < s->vaddr || vaddr - s->vaddr >= s->memsz)
			continue;
		left = s->memsz - (vaddr - s->vaddr);
		return left > UINT64_MAX - vaddr ? UINT64_MAX : vaddr + left;
	}
	return vaddr + 1;
}

/* The end of the executable section holding vaddr, or UINT64_MAX. */
static uint64_t section_end(const struct elf_symtab *t, uint64_t vaddr)
{
	for (size_t i = 0; i < t->nsecs; i++) {
		if (vaddr >= t->secs[i].start && vaddr < t->secs[i].end)
			return t->secs[i].end;
	}
	return UINT64_MAX;
}

/* Turns sizes into ends: a sized symbol covers [addr, addr + size), an
 * unsized one runs to the next symbol (the last one to its segment's end),
 * but not past the end of its section: _init, unsized in .init, does not
 * cover the .plt after it. */
static void set_ends(struct elf_symtab *t)
{
	size_t i;

	for (i = 0; i < t->nsyms; i++) {
		struct sym *s = &t->syms[i];
		uint64_t size = s->end, sec_end;

		if (size) {
			s->end = size > UINT64_MAX - s->addr ? UINT64_MAX : s->addr + size;
			continue;
		}
		s->end = i + 1 < t->nsyms ? t->syms[i + 1].addr : segment_end(t, s->addr);
		sec_end = section_end(t, s->addr);
		if (sec_end < s->end)
			s->end = sec_end;
	}
}

/* How many of the n elements of v, sorted by an address that is their
 * first member (struct sym, struct plt), start at or below vaddr: the last
 * of them may contain it. */
static size_t count_below(const void *v, size_t n, size_t size, uint64_t vaddr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t addr;

		memcpy(&addr, (const char *)v + mid * size, sizeof(addr));
		if (addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The symbol at or below vaddr, or NULL. */
static const struct sym *sym_below(const struct elf_symtab *t, uint64_t vaddr)
{
	size_t n = count_below(t->syms, t->nsyms, sizeof(*t->syms), vaddr);

	return n ? &t->syms[n - 1] : NULL;
}

/* How far the entry code is taken to run: glibc's _start returns from
 * __libc_start_main at +0x26, ld.so's from _dl_start at +0x8; a function
 * after it starts no sooner than that, aligned. */
#define ENTRY_CODE_MAX 0x30

/* ld.so's .dynsym and stripped executables have no symbol for their entry
 * code, which is at the bottom of every stack of their process: it is
 * _start all the same, up to the next symbol. */
static void set_entry(struct elf_symtab *t)
{
	const struct sym *s = sym_below(t, t->entry);

	t->entry_end = t->entry;
	if (!t->entry || (t->type != ET_EXEC && t->type != ET_DYN) || (s && t->entry < s->end))
		return;
	t->entry_end = segment_end(t, t->entry);
	if (t->entry_end - t->entry > ENTRY_CODE_MAX)
		t->entry_end = t->entry + ENTRY_CODE_MAX;
	if (s && s + 1 < t->syms + t->nsyms && s[1].addr < t->entry_end)
		t->entry_end = s[1].addr;
	else if (!s && t->nsyms && t->syms[0].addr < t->entry_end)
		t->entry_end = t->syms[0].addr;
}

/* The name of the stub of an IFUNC of the file: its resolver's, as the
 * stub ends up in what the resolver returns. */
static int name_ifunc_plt(struct elf_symtab *t, struct plt *p)
{
	const struct sym *s = sym_below(t, p->resolver);
	char *name;
	int err;

	if (!s || s->addr != p->resolver)
		return 0;
	name = strdup(sym_name(t, s)); /* the pool may move as it grows */
	if (!name)
		return -ENOMEM;
	err = pool_add_ver(t, name, strlen(name), "plt", &p->name);
	free(name);
	return err;
}

static int cmp_plt(const void *a, const void *b)
{
	const struct plt *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/* Names the IFUNC stubs, drops those left unnamed, sorts the rest. */
static int finish_plts(struct elf_symtab *t)
{
	size_t i, n = 0;
	int err;

	for (i = 0; i < t->nplts; i++) {
		if (t->plts[i].name == NO_NAME) {
			err = name_ifunc_plt(t, &t->plts[i]);
			if (err)
				return err;
		}
		if (t->plts[i].name != NO_NAME)
			t->plts[n++] = t->plts[i];
	}
	t->nplts = n;
	if (n)
		qsort(t->plts, n, sizeof(*t->plts), cmp_plt);
	return 0;
}

/* Shrinks *v, of cap elements of size bytes each, to the n in use. */
static void shrink(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n < *cap && (p = realloc(*v, (n ? n : 1) * size))) {
		*v = p;
		*cap = n ? n : 1;
	}
}

/* Gives back what the pool and the arrays grew by beyond their use: up to
 * half of each, and a C++ library's names take tens of MiB. */
static void trim(struct elf_symtab *t)
{
	size_t cap = SIZE_MAX; /* the alias arrays' were the symbols' before dedup */

	shrink((void **)&t->pool, &t->pool_cap, t->pool_len, 1);
	shrink((void **)&t->syms, &t->syms_cap, t->nsyms, sizeof(*t->syms));
	if (t->aliases) {
		shrink((void **)&t->aliases, &cap, t->naliases, sizeof(*t->aliases));
		cap = SIZE_MAX;
		shrink((void **)&t->alias_ifuncs, &cap, t->naliases, sizeof(*t->alias_ifuncs));
	}
}

static int finish_syms(struct elf_symtab *t)
{
	int err;

	if (t->nsyms) {
		qsort_r(t->syms, t->nsyms, sizeof(*t->syms), sym_cmp, t);
		err = dedup_syms(t);
		if (err)
			return err;
		set_ends(t);
	}
	set_entry(t);
	err = finish_plts(t);
	if (!err)
		trim(t);
	return err;
}

/* The PLT stub covering vaddr, or NULL. */
static const struct plt *plt_at(const struct elf_symtab *t, uint64_t vaddr)
{
	size_t n = count_below(t->plts, t->nplts, sizeof(*t->plts), vaddr);

	return n && vaddr < t->plts[n - 1].end ? &t->plts[n - 1] : NULL;
}

static int load_elf(struct elf_symtab *t, Elf *elf)
{
	GElf_Ehdr eh;
	int err;

	if (!gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	t->type = eh.e_type;
	t->machine = eh.e_machine;
	t->entry = eh.e_entry;
	t->elfclass = (unsigned char)gelf_getclass(elf);
	err = elf_file__each_phdr(elf, load_segment, t);
	if (err)
		return err;
	return load_sections(t, elf);
}

/* Reads the file's own symbols: with names left in it, each symbol keeps
 * where the file holds its name, read in libelf's map until the table is
 * finished. */
static int read_elf(struct elf_symtab *t, Elf *elf)
{
	int err;

	/* names are left where they are in it: names_left checks each */
	if (t->names_left)
		t->image = elf_getident(elf, NULL);
	t->reading_file = true;
	err = load_elf(t, elf);
	t->reading_file = false;
	return err;
}

/* A debug file of another build would name the wrong functions. */
static int check_debug(const struct elf_symtab *t, Elf *elf)
{
	struct elf_symtab ids = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	if (eh.e_machine != t->machine || gelf_getclass(elf) != t->elfclass)
		return -ENOMSG;
	while ((scn = elf_nextscn(elf, scn)) && !ids.build_id_len) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE)
			scan_notes(&ids, elf_getdata(scn, NULL));
	}
	if (ids.build_id_len && t->build_id_len &&
	    (ids.build_id_len != t->build_id_len ||
	     memcmp(ids.build_id, t->build_id, ids.build_id_len)))
		return -ENOMSG;
	return 0;
}

/* Only .symtab: in a debug file made by objcopy --only-keep-debug, .dynsym
 * is an empty NOBITS placeholder. */
static int load_debug_syms(struct elf_symtab *t, Elf *elf)
{
	size_t before = t->nsyms;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		err = load_symsec(t, elf, scn, &sh);
		if (err)
			return err;
	}
	return t->nsyms > before ? 0 : -ENOMSG;
}

/* Read, not mapped: a debug file may sit in its owner's directory, and a
 * mapped file truncated under us would kill us with SIGBUS. */
static int read_debug(struct elf_symtab *t, const struct elf_debug_file *dbg)
{
	Elf *elf = dbg->fd >= 0 ? elf_begin(dbg->fd, ELF_C_READ, NULL)
				: elf_memory(dbg->image, dbg->size);
	int err;

	if (!elf)
		return -ENOEXEC;
	err = check_debug(t, elf);
	if (!err)
		err = load_debug_syms(t, elf);
	elf_end(elf);
	return err;
}

int elf_symtab__load(int fd, struct elf_symtab **out)
{
	return elf_symtab__load_with(fd, NULL, out);
}

int elf_symtab__load_with(int fd, const struct elf_debug_file *dbg, struct elf_symtab **out)
{
	return elf_symtab__load_as(fd, dbg, false, out);
}

/* Fills t from the file (and dbg), then lets go of it: t keeps no pointer
 * into libelf. */
static int load_table(struct elf_symtab *t, int fd, const struct elf_debug_file *dbg)
{
	Elf *elf;
	int err = elf_file__open(fd, &elf);

	if (err)
		return err;
	err = read_elf(t, elf);
	if (!err && dbg)
		err = read_debug(t, dbg);
	if (!err)
		err = finish_syms(t);
	t->image = NULL;
	elf_end(elf);
	return err;
}

int elf_symtab__load_as(int fd, const struct elf_debug_file *dbg, bool names_left,
			struct elf_symtab **out)
{
	struct elf_symtab *t;
	int err;

	*out = NULL;
	if (fd < 0)
		return -EBADF;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->names_left = names_left;
	err = load_table(t, fd, dbg);
	if (err) {
		elf_symtab__free(t);
		return err;
	}
	*out = t;
	return 0;
}

int elf_symtab__vaddr(const struct elf_symtab *t, uint64_t file_off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++) {
		const struct seg *s = &t->segs[i];

		if (file_off >= s->off && file_off - s->off < s->filesz) {
			*vaddr = s->vaddr + (file_off - s->off);
			return 0;
		}
	}
	return -ENOENT;
}

int elf_symtab__file_offset(const struct elf_symtab *t, uint64_t vaddr, uint64_t *off)
{
	size_t i;

	for (i = 0; i < t->nsegs; i++) {
		const struct seg *s = &t->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = s->off + (vaddr - s->vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

const char *elf_symtab__lookup(const struct elf_symtab *t, uint64_t vaddr, uint64_t *off)
{
	uint64_t in_file;

	return elf_symtab__lookup_ref(t, vaddr, off, &in_file);
}

const char *elf_symtab__lookup_ref(const struct elf_symtab *t, uint64_t vaddr, uint64_t *off,
				   uint64_t *in_file)
{
	const struct plt *p = plt_at(t, vaddr);
	const struct sym *s = sym_below(t, vaddr);

	*in_file = 0;
	if (p) {
		if (off)
			*off = vaddr - p->addr;
		return t->pool + p->name;
	}
	if (s && vaddr < s->end) {
		if (off)
			*off = vaddr - s->addr;
		if (t->names_left && s->file_name) {
			*in_file = s->file_name;
			return NULL;
		}
		return t->pool + s->name;
	}
	if (vaddr >= t->entry && vaddr < t->entry_end) {
		if (off)
			*off = vaddr - t->entry;
		return "_start";
	}
	return NULL;
}

const uint8_t *elf_symtab__build_id(const struct elf_symtab *t, size_t *len)
{
	*len = t->build_id_len;
	return t->build_id_len ? t->build_id : NULL;
}

size_t elf_symtab__count(const struct elf_symtab *t)
{
	return t->nsyms;
}

static void fill_func(const struct elf_symtab *t, const struct sym *s, struct elf_func *f)
{
	*f = (struct elf_func){
		.name = t->names_left && s->file_name ? NULL : t->pool + s->name,
		.vaddr = s->addr,
		.size = s->end - s->addr,
		.nalias = s->nalias,
		.sized = s->sized,
		.ifunc = s->ifunc,
	};
}

int elf_symtab__func(const struct elf_symtab *t, size_t i, struct elf_func *f)
{
	const struct sym *s;

	if (i >= t->nsyms)
		return -ENOENT;
	s = &t->syms[i];
	fill_func(t, s, f);
	return 0;
}

int elf_symtab__func_at(const struct elf_symtab *t, uint64_t vaddr, struct elf_func *f)
{
	const struct sym *s = sym_below(t, vaddr);

	if (!s || vaddr >= s->end)
		return -ENOENT;
	fill_func(t, s, f);
	return 0;
}

int elf_symtab__find(const struct elf_symtab *t, uint64_t vaddr, size_t *i)
{
	const struct sym *s = sym_below(t, vaddr);

	if (!s || s->addr != vaddr)
		return -ENOENT;
	*i = (size_t)(s - t->syms);
	return 0;
}

const char *elf_symtab__alias(const struct elf_symtab *t, size_t i, size_t k)
{
	if (i >= t->nsyms || k >= t->syms[i].nalias)
		return NULL;
	return t->pool + t->aliases[t->syms[i].alias + k];
}

bool elf_symtab__ifunc_name(const struct elf_symtab *t, size_t i, size_t k)
{
	if (i >= t->nsyms || k > t->syms[i].nalias)
		return false;
	return k ? t->alias_ifuncs[t->syms[i].alias + k - 1] : t->syms[i].ifunc_name;
}

bool elf_symtab__has_symtab(const struct elf_symtab *t)
{
	return t->symtab_funcs > 0;
}

uint16_t elf_symtab__type(const struct elf_symtab *t)
{
	return t->type;
}

/* Longest name read back from a file: C++ names reach kilobytes. */
#define FILE_NAME_MAX  (64 * 1024)
#define FILE_NAME_STEP 256

int elf_symtab__read_name(int fd, uint64_t in_file, char **out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *end = NULL, *nb;
	ssize_t got;

	*out = NULL;
	while (!end && len < FILE_NAME_MAX) {
		nb = realloc(buf, cap + FILE_NAME_STEP + 1);
		if (!nb) {
			free(buf);
			return -ENOMEM;
		}
		buf = nb;
		cap += FILE_NAME_STEP;
		got = pread(fd, buf + len, FILE_NAME_STEP, (off_t)(in_file + len));
		if (got <= 0) {
			free(buf);
			return got < 0 ? -errno : -EINVAL;
		}
		end = memchr(buf + len, '\0', (size_t)got);
		len += (size_t)got;
	}
	/* not a name: the file changed since its table was read */
	if (!end || end == buf || !strncmp(buf, "@@", 2)) {
		free(buf);
		return -EINVAL;
	}
	/* a .symtab name with its default version, which the table leaves off */
	end = strstr(buf, "@@");
	if (end)
		*end = '\0';
	*out = buf;
	return 0;
}

size_t elf_symtab__bytes(const struct elf_symtab *t)
{
	if (!t)
		return 0;
	return sizeof(*t) + t->syms_cap * sizeof(*t->syms) + t->pool_cap +
	       t->naliases * (sizeof(*t->aliases) + sizeof(*t->alias_ifuncs)) +
	       t->nsegs * sizeof(*t->segs) + t->nsecs * sizeof(*t->secs) +
	       t->plts_cap * sizeof(*t->plts);
}

void elf_symtab__free(struct elf_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->pool);
	free(t->aliases);
	free(t->alias_ifuncs);
	free(t->segs);
	free(t->secs);
	free(t->plts);
	free(t);
}
