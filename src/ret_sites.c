// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "ret_sites.h"

#define MAX_FUNC_BYTES (1 << 20)

struct disasm {
	csh cs;
};

int disasm__new(struct disasm **out)
{
	struct disasm *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		free(d);
		return -ENOTSUP;
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	*out = d;
	return 0;
}

void disasm__free(struct disasm *d)
{
	if (!d)
		return;
	cs_close(&d->cs);
	free(d);
}

static int add_site(struct ret_sites *rs, uint64_t off)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 4;
		uint64_t *v = realloc(rs->off, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rs->off = v;
		rs->cap = cap;
	}
	rs->off[rs->n++] = off;
	return 0;
}

/* A direct jmp out of [start, end) is a tail call: the function is done. */
static bool is_tail_jump(const cs_insn *insn, uint64_t start, uint64_t end)
{
	const cs_x86 *x = &insn->detail->x86;

	if (insn->id != X86_INS_JMP || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	return (uint64_t)x->operands[0].imm < start || (uint64_t)x->operands[0].imm >= end;
}

static bool is_indirect_jump(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	return insn->id == X86_INS_JMP && x->op_count == 1 && x->operands[0].type != X86_OP_IMM;
}

/* Classifies one instruction; returns 0 or -ENOMEM. */
static int visit(const cs_insn *insn, uint64_t vaddr, uint64_t size, uint64_t file_off,
		 struct ret_sites *out)
{
	uint64_t off = file_off + (insn->address - vaddr);

	if (insn->id == X86_INS_CALL || is_indirect_jump(insn))
		out->leaf = false;
	if (insn->id == X86_INS_RET || is_tail_jump(insn, vaddr, vaddr + size))
		return add_site(out, off);
	return 0;
}

static int walk(struct disasm *d, const uint8_t *code, uint64_t vaddr, uint64_t size,
		uint64_t file_off, struct ret_sites *out)
{
	const uint8_t *p = code;
	size_t left = size;
	uint64_t addr = vaddr;
	cs_insn *insn = cs_malloc(d->cs);
	int err = 0;

	if (!insn)
		return -ENOMEM;
	out->leaf = true;
	while (left && cs_disasm_iter(d->cs, &p, &left, &addr, insn))
		if ((err = visit(insn, vaddr, size, file_off, out)))
			break;
	/* padding or data after the last instruction stops the walk early */
	out->complete = !left;
	cs_free(insn, 1);
	return err;
}

int ret_sites__find(struct disasm *d, int fd, uint64_t file_off, uint64_t vaddr, uint64_t size,
		    struct ret_sites *out)
{
	uint8_t *code;
	ssize_t n;
	int err;

	if (!size || size > MAX_FUNC_BYTES)
		return -EFBIG;
	code = malloc(size);
	if (!code)
		return -ENOMEM;
	n = pread(fd, code, size, file_off);
	if (n != (ssize_t)size) {
		err = n < 0 ? -errno : -EIO;
		goto out;
	}
	err = walk(d, code, vaddr, size, file_off, out);
out:
	free(code);
	return err;
}

void ret_sites__free(struct ret_sites *rs)
{
	free(rs->off);
	memset(rs, 0, sizeof(*rs));
}

static bool bad_prefix(const cs_x86 *x)
{
	for (int i = 0; i < 4; i++) {
		switch (x->prefix[i]) {
		case 0xf0: /* lock */
		case 0x26: /* es */
		case 0x2e: /* cs */
		case 0x36: /* ss */
		case 0x3e: /* ds */
			return true;
		}
	}
	return false;
}

static bool is_nop5(const cs_insn *insn)
{
	return insn->id == X86_INS_NOP && insn->size == 5;
}

static enum entry_kind kind_of(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	if (bad_prefix(x) || insn->id == X86_INS_INT3 || insn->id == X86_INS_INT ||
	    insn->id == X86_INS_INTO || insn->id == X86_INS_INT1)
		return ENTRY_REFUSED;
	if (insn->id == X86_INS_PUSH || is_nop5(insn))
		return ENTRY_EMULATED;
	/* relative jumps and calls, jcxz and friends excepted */
	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM || insn->id == X86_INS_JCXZ ||
	    insn->id == X86_INS_JECXZ || insn->id == X86_INS_JRCXZ)
		return ENTRY_STEPPED;
	return insn->id == X86_INS_CALL || (insn->id >= X86_INS_JAE && insn->id <= X86_INS_JS)
		       ? ENTRY_EMULATED
		       : ENTRY_STEPPED;
}

enum entry_kind disasm__entry(struct disasm *d, int fd, uint64_t file_off, uint64_t *site)
{
	uint8_t code[32];
	const uint8_t *p = code;
	uint64_t addr = 0;
	enum entry_kind kind = ENTRY_STEPPED, next;
	ssize_t n = pread(fd, code, sizeof(code), file_off);
	size_t left = n > 0 ? n : 0;
	cs_insn *insn;

	*site = file_off;
	if (!left || !(insn = cs_malloc(d->cs)))
		return ENTRY_STEPPED;
	if (cs_disasm_iter(d->cs, &p, &left, &addr, insn)) {
		kind = kind_of(insn);
		if (insn->id == X86_INS_ENDBR64 && cs_disasm_iter(d->cs, &p, &left, &addr, insn) &&
		    (next = kind_of(insn)) == ENTRY_EMULATED) {
			*site = file_off + insn->address;
			kind = next;
		}
	}
	cs_free(insn, 1);
	return kind;
}

static bool has_section(Elf *elf, const char *const *names)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (size_t i = 0; names[i]; i++)
			if (!strcmp(name, names[i]))
				return true;
	}
	return false;
}

/* True when .dynsym names an _Unwind_ function: the unwinder itself
 * (libgcc_s) or code that calls it, which walks through its own frames. */
static bool has_unwind_symbol(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getsym(data, i, &sym))
				break;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strncmp(name, "_Unwind_", 8))
				return true;
		}
	}
	return false;
}

bool ret_sites__unwinds(int fd)
{
	static const char *const names[] = { ".gcc_except_table", ".gopclntab", NULL };
	Elf *elf;
	bool found;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return false;
	found = elf_kind(elf) == ELF_K_ELF && (has_section(elf, names) || has_unwind_symbol(elf));
	elf_end(elf);
	return found;
}
