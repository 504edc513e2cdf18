// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"
#include "usdt.h"
#include "usdt_notes.h"

struct reader {
	Elf *elf;
	struct usdt_probes *out;
	uint64_t base; /* .stapsdt.base's address; 0 when the binary has none */
};

/* The file offset of a link-time address, through the PT_LOAD holding it;
 * 0 when none does. */
static uint64_t file_offset(Elf *elf, uint64_t addr)
{
	size_t n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && addr >= ph.p_vaddr &&
		    addr - ph.p_vaddr < ph.p_filesz)
			return addr - ph.p_vaddr + ph.p_offset;
	return 0;
}

static int add_probe(const struct usdt_note *n, void *arg)
{
	struct reader *r = arg;
	/* prelink moved the sections: the notes kept the old addresses */
	uint64_t shift = r->base && n->base ? r->base - n->base : 0;
	struct usdt_probe p = {
		.addr = n->pc + shift,
		.sema_addr = n->sema ? n->sema + shift : 0,
	};

	p.offset = file_offset(r->elf, p.addr);
	p.sema_offset = p.sema_addr ? file_offset(r->elf, p.sema_addr) : 0;
	if (!p.offset)
		return 0; /* outside the file's code: nothing to probe */
	p.provider = strdup(n->provider);
	p.name = strdup(n->name);
	p.args = strdup(n->args);
	if (!p.provider || !p.name || !p.args ||
	    array__push((void **)&r->out->v, &r->out->n, &r->out->cap, &p, sizeof(p))) {
		free(p.provider);
		free(p.name);
		free(p.args);
		return -ENOMEM;
	}
	return 0;
}

/* .stapsdt.base's address, and the notes section into *notes. */
static int find_sections(struct reader *r, Elf_Data **notes)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	*notes = NULL;
	if (elf_getshdrstrndx(r->elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(r->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		name = elf_strptr(r->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".stapsdt.base"))
			r->base = sh.sh_addr;
		else if (!strcmp(name, ".note.stapsdt") && sh.sh_type == SHT_NOTE)
			*notes = elf_getdata(scn, NULL);
	}
	return 0;
}

int usdt__read(const char *path, struct usdt_probes *out)
{
	struct reader r = { .out = out };
	Elf_Data *notes;
	int fd, err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = r.elf && elf_kind(r.elf) == ELF_K_ELF ? find_sections(&r, &notes) : -ENOEXEC;
	if (!err && notes && notes->d_buf)
		err = usdt_notes__parse(notes->d_buf, notes->d_size, add_probe, &r);
	if (r.elf)
		elf_end(r.elf);
	close(fd);
	return err;
}

void usdt__free(struct usdt_probes *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].provider);
		free(p->v[i].name);
		free(p->v[i].args);
	}
	free(p->v);
	*p = (struct usdt_probes){ 0 };
}
