// SPDX-License-Identifier: GPL-2.0
/* The file is anyone's: every read goes through libelf's bounds-checked
 * accessors, and a walk of the version definitions ends at the end of its
 * section whatever their links say. */
#include "elf_versions.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#define VERSYM_INDEX  0x7fff
#define VERSYM_HIDDEN 0x8000

struct elf_versions {
	Elf_Data *versym;   /* .gnu.version: one index per symbol */
	const char **names; /* by version index; NULL for none or the file's own */
	size_t nnames;
};

/* The versym and verdef sections that belong to symbol table dynsym. */
static void find_sections(Elf *elf, size_t dynsym, Elf_Scn **versym, Elf_Scn **verdef,
			  GElf_Shdr *verdef_sh)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*versym = *verdef = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return;
		if (sh.sh_type == SHT_GNU_versym && sh.sh_link == dynsym)
			*versym = scn;
		if (sh.sh_type == SHT_GNU_verdef) {
			*verdef = scn;
			*verdef_sh = sh;
		}
	}
}

static int set_name(struct elf_versions *v, size_t ndx, const char *name)
{
	if (ndx >= v->nnames) {
		const char **n = reallocarray(v->names, ndx + 1, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = v->nnames; i <= ndx; i++)
			n[i] = NULL;
		v->names = n;
		v->nnames = ndx + 1;
	}
	v->names[ndx] = name;
	return 0;
}

/* Takes the name of each version definition but the file's own (its
 * first auxiliary entry names it). */
static int read_verdefs(struct elf_versions *v, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0;
	GElf_Verdef vd;
	GElf_Verdaux va;
	int err = 0;

	while (!err && d && off < d->d_size && off <= INT_MAX && gelf_getverdef(d, (int)off, &vd)) {
		size_t aux = off + vd.vd_aux;
		const char *name;

		if (!(vd.vd_flags & VER_FLG_BASE) && vd.vd_cnt && aux <= INT_MAX &&
		    gelf_getverdaux(d, (int)aux, &va) &&
		    (name = elf_strptr(elf, sh->sh_link, va.vda_name)))
			err = set_name(v, vd.vd_ndx & VERSYM_INDEX, name);
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
	return err;
}

int elf_versions__load(Elf *elf, size_t dynsym, struct elf_versions **out)
{
	Elf_Scn *versym, *verdef;
	GElf_Shdr verdef_sh = { 0 };
	struct elf_versions *v;
	int err;

	*out = NULL;
	find_sections(elf, dynsym, &versym, &verdef, &verdef_sh);
	if (!versym || !verdef)
		return 0;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->versym = elf_getdata(versym, NULL);
	err = read_verdefs(v, elf, verdef, &verdef_sh);
	if (err || !v->versym || !v->nnames) {
		elf_versions__free(v);
		return err;
	}
	*out = v;
	return 0;
}

const char *elf_versions__hidden(const struct elf_versions *v, size_t i)
{
	GElf_Versym vs;
	size_t ndx;

	if (!v || i > INT_MAX || !gelf_getversym(v->versym, (int)i, &vs))
		return NULL;
	ndx = vs & VERSYM_INDEX;
	if (!(vs & VERSYM_HIDDEN) || ndx >= v->nnames)
		return NULL;
	return v->names[ndx];
}

void elf_versions__free(struct elf_versions *v)
{
	if (!v)
		return;
	free(v->names);
	free(v);
}
