// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disasm.h"
#include "py_sites.h"
#include "ret_sites.h"
#include "symbols/elf_object.h"
#include "symbols/elf_symtab.h"

#define EVAL_FUNC     "_PyEval_EvalFrameDefault"
#define NTARGETS      256
#define MAX_EXEC      16
#define MAX_FRAGS     8
#define HANDLER_BYTES 256
#define SWEEP_MAX     (1 << 20)

/* The handlers probed, per version, with their opcode numbers (3.11,
 * 3.12: Include/opcode.h; 3.13: Include/opcode_ids.h). The INSTRUMENTED_
 * forms run while sys.monitoring or a tracer (settrace, setprofile,
 * cProfile, coverage) watches the code. */
struct py_op {
	const char *name;
	unsigned int op;
	bool exit;
};

static const struct py_op ops311[] = {
	{ "RESUME", 151 },
	{ "RESUME_QUICK", 150 },
	{ "RETURN_VALUE", 83, true },
	{ "YIELD_VALUE", 86, true },
};

static const struct py_op ops312[] = {
	{ "RESUME", 151 },
	{ "INSTRUMENTED_RESUME", 240 },
	{ "RETURN_VALUE", 83, true },
	{ "RETURN_CONST", 121, true },
	{ "YIELD_VALUE", 150, true },
	{ "INSTRUMENTED_RETURN_VALUE", 242, true },
	{ "INSTRUMENTED_RETURN_CONST", 247, true },
	{ "INSTRUMENTED_YIELD_VALUE", 243, true },
};

static const struct py_op ops313[] = {
	{ "RESUME", 149 },
	{ "RESUME_CHECK", 207 },
	{ "INSTRUMENTED_RESUME", 236 },
	{ "RETURN_VALUE", 36, true },
	{ "RETURN_CONST", 103, true },
	{ "YIELD_VALUE", 118, true },
	{ "INSTRUMENTED_RETURN_VALUE", 239, true },
	{ "INSTRUMENTED_RETURN_CONST", 240, true },
	{ "INSTRUMENTED_YIELD_VALUE", 241, true },
};

static const struct {
	unsigned int minor;
	const struct py_op *ops;
	size_t n;
} versions[] = {
	{ 11, ops311, sizeof(ops311) / sizeof(ops311[0]) },
	{ 12, ops312, sizeof(ops312) / sizeof(ops312[0]) },
	{ 13, ops313, sizeof(ops313) / sizeof(ops313[0]) },
};

struct range {
	uint64_t start, end;
};

/* An R_X86_64_RELATIVE relocation: the word at where holds base + value. */
struct relative {
	uint64_t where, value;
};

struct handler {
	const char *name;
	unsigned int op;
	uint64_t start, site; /* link-time addresses */
	uint64_t site_off;
	int reg;
	uint8_t cond; /* entry_cond's */
};

/* What the search reads of the file. */
struct image {
	int fd;
	Elf *elf;
	struct elf_symtab *syms;
	struct range exec[MAX_EXEC];
	size_t nexec;
	struct relative *rel;
	size_t nrel;
	struct range body; /* the evaluation function */
	uint64_t targets[NTARGETS];
	struct disasm *d;
	char *why;
	size_t len;
};

__attribute__((format(printf, 3, 4))) static int fail(struct image *im, int err, const char *fmt,
						      ...)
{
	va_list ap;

	if (im->len) {
		va_start(ap, fmt);
		vsnprintf(im->why, im->len, fmt, ap);
		va_end(ap);
	}
	return err;
}

static bool in_range(const struct range *r, uint64_t a)
{
	return a >= r->start && a < r->end;
}

static bool in_exec(const struct image *im, uint64_t a)
{
	for (size_t i = 0; i < im->nexec; i++)
		if (in_range(&im->exec[i], a))
			return true;
	return false;
}

static int open_image(struct image *im)
{
	GElf_Ehdr eh;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(im, -ENOENT, "libelf is unusable");
	im->elf = elf_begin(im->fd, ELF_C_READ_MMAP, NULL);
	if (!im->elf || elf_kind(im->elf) != ELF_K_ELF || !gelf_getehdr(im->elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return fail(im, -ENOENT, "not an x86-64 ELF file");
	return 0;
}

static int find_body(struct image *im)
{
	static const char *const names[] = { EVAL_FUNC };
	uint64_t vaddr;
	struct elf_func f;
	size_t i;
	int err;

	if (elf_object__find(im->fd, names, 1, &vaddr))
		return fail(im, -ENOENT, "no symbol " EVAL_FUNC);
	err = elf_symtab__load(im->fd, &im->syms);
	if (err)
		return fail(im, err, "cannot read the symbols: %s", strerror(-err));
	if (elf_symtab__find(im->syms, vaddr, &i) || elf_symtab__func(im->syms, i, &f) || !f.size)
		return fail(im, -ENOENT, EVAL_FUNC " has no size");
	im->body = (struct range){ vaddr, vaddr + f.size };
	return 0;
}

static int load_exec(struct image *im)
{
	GElf_Shdr sh;

	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(im->elf, scn));) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		if (im->nexec == MAX_EXEC)
			return fail(im, -ENOENT, "more than %d executable sections", MAX_EXEC);
		im->exec[im->nexec++] = (struct range){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	}
	return 0;
}

static int relative_cmp(const void *a, const void *b)
{
	const struct relative *x = a, *y = b;

	return x->where < y->where ? -1 : x->where > y->where;
}

static int add_relatives(struct image *im, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct relative *v = realloc(im->rel, (im->nrel + n) * sizeof(*v));
	GElf_Rela r;

	if (!v)
		return fail(im, -ENOMEM, "out of memory");
	im->rel = v;
	for (size_t i = 0; data && i < n; i++)
		if (gelf_getrela(data, (int)i, &r) && GELF_R_TYPE(r.r_info) == R_X86_64_RELATIVE)
			im->rel[im->nrel++] = (struct relative){ r.r_offset, (uint64_t)r.r_addend };
	return 0;
}

/* A position-independent file may leave a pointer's word 0 and put its value
 * in the addend of a relocation instead. */
static int load_relatives(struct image *im)
{
	GElf_Shdr sh;
	int err;

	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(im->elf, scn));)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && (sh.sh_flags & SHF_ALLOC) &&
		    (err = add_relatives(im, scn, &sh)))
			return err;
	if (im->nrel)
		qsort(im->rel, im->nrel, sizeof(*im->rel), relative_cmp);
	return 0;
}

/* The link-time value of the pointer at vaddr whose word in the file is raw. */
static uint64_t pointer_at(const struct image *im, uint64_t vaddr, uint64_t raw)
{
	struct relative key = { vaddr, 0 }, *r;

	if (raw || !im->nrel)
		return raw;
	r = bsearch(&key, im->rel, im->nrel, sizeof(key), relative_cmp);
	return r ? r->value : 0;
}

/* A candidate table: 256 words that all point to code. */
struct table_scan {
	uint64_t best_addr;
	size_t best_inside;
};

static uint64_t word_of(const struct image *im, const Elf_Data *data, uint64_t addr, size_t off)
{
	uint64_t raw;

	memcpy(&raw, (const char *)data->d_buf + off, sizeof(raw));
	return pointer_at(im, addr + off, raw);
}

static void scan_section(const struct image *im, Elf_Data *data, uint64_t addr,
			 struct table_scan *ts)
{
	size_t run = 0, inside = 0, first = (8 - addr % 8) % 8;
	uint64_t w;

	for (size_t off = first; off + 8 <= data->d_size; off += 8) {
		w = word_of(im, data, addr, off);
		run = in_exec(im, w) ? run + 1 : 0;
		inside += in_range(&im->body, w);
		if (off >= first + NTARGETS * 8)
			inside -= in_range(&im->body, word_of(im, data, addr, off - NTARGETS * 8));
		if (run >= NTARGETS && inside > ts->best_inside) {
			ts->best_inside = inside;
			ts->best_addr = addr + off + 8 - NTARGETS * 8;
		}
	}
}

static int read_table(struct image *im, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t at)
{
	Elf_Data *data = elf_getdata(scn, NULL);

	if (!data || at < sh->sh_addr || at - sh->sh_addr + NTARGETS * 8 > data->d_size)
		return fail(im, -ENOENT, "cannot read the opcode table");
	for (size_t i = 0; i < NTARGETS; i++)
		im->targets[i] = word_of(im, data, sh->sh_addr, at - sh->sh_addr + i * 8);
	return 0;
}

static bool is_data_section(const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_ALLOC) &&
	       !(sh->sh_flags & SHF_EXECINSTR) && sh->sh_size >= NTARGETS * 8;
}

/* opcode_targets[256]: 256 pointers to code, most of them into the function
 * (the rest: the unknown-opcode handler, or code gcc moved to a .cold
 * part). The words around it may point to code too: the window with the
 * most into the function wins. */
static int find_table(struct image *im)
{
	struct table_scan ts = { 0, 0 };
	Elf_Scn *scn = NULL, *best = NULL;
	GElf_Shdr sh, best_sh;
	Elf_Data *data;

	while ((scn = elf_nextscn(im->elf, scn))) {
		size_t before = ts.best_inside;

		if (!gelf_getshdr(scn, &sh) || !is_data_section(&sh) ||
		    !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		scan_section(im, data, sh.sh_addr, &ts);
		if (ts.best_inside > before) {
			best = scn;
			best_sh = sh;
		}
	}
	if (!best || ts.best_inside < NTARGETS / 2)
		return fail(im, -ENOENT, "no opcode table (built without computed gotos?)");
	return read_table(im, best, &best_sh, ts.best_addr);
}

/* The most common target: the handler of undefined opcodes. */
static uint64_t unknown_handler(const struct image *im)
{
	size_t best = 0, n;
	uint64_t u = 0;

	for (size_t i = 0; i < NTARGETS; i++) {
		n = 0;
		for (size_t k = 0; k < NTARGETS; k++)
			n += im->targets[k] == im->targets[i];
		if (n > best) {
			best = n;
			u = im->targets[i];
		}
	}
	return u;
}

/* The 64-bit register x86 number a (sub)register is part of, or -1. */
static int reg_of(x86_reg r)
{
	static const x86_reg parts[16][4] = {
		{ X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
		{ X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
		{ X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
		{ X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
		{ X86_REG_ESP, X86_REG_SP, X86_REG_SPL },
		{ X86_REG_EBP, X86_REG_BP, X86_REG_BPL },
		{ X86_REG_ESI, X86_REG_SI, X86_REG_SIL },
		{ X86_REG_EDI, X86_REG_DI, X86_REG_DIL },
		{ X86_REG_R8D, X86_REG_R8W, X86_REG_R8B },
		{ X86_REG_R9D, X86_REG_R9W, X86_REG_R9B },
		{ X86_REG_R10D, X86_REG_R10W, X86_REG_R10B },
		{ X86_REG_R11D, X86_REG_R11W, X86_REG_R11B },
		{ X86_REG_R12D, X86_REG_R12W, X86_REG_R12B },
		{ X86_REG_R13D, X86_REG_R13W, X86_REG_R13B },
		{ X86_REG_R14D, X86_REG_R14W, X86_REG_R14B },
		{ X86_REG_R15D, X86_REG_R15W, X86_REG_R15B },
	};
	int n = disasm__reg_number(r);

	for (int i = 0; n < 0 && r != X86_REG_INVALID && i < 16; i++)
		for (int k = 0; k < 4; k++)
			if (parts[i][k] == r)
				return i;
	return n;
}

static bool writes_reg(struct disasm *d, const cs_insn *insn, int reg)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;

	if (!disasm__regs(d, insn, rd, &nrd, wr, &nwr))
		return true;
	for (uint8_t i = 0; i < nwr; i++)
		if (reg_of(wr[i]) == reg)
			return true;
	return false;
}

/* frame->prev_instr (3.11, 3.12) or frame->instr_ptr (3.13) = ...: the
 * frame's register, or -1. */
static int instr_store_base(const cs_insn *insn, uint32_t frame_instr)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *m = &x->operands[0];

	if (insn->id != X86_INS_MOV || x->op_count != 2 || m->type != X86_OP_MEM || m->size != 8 ||
	    m->mem.disp != (int64_t)frame_instr || m->mem.index != X86_REG_INVALID ||
	    m->mem.segment != X86_REG_INVALID)
		return -1;
	return disasm__reg_number(m->mem.base);
}

static bool is_branch(const cs_insn *insn)
{
	return disasm__in_group(insn, CS_GRP_JUMP) || disasm__in_group(insn, CS_GRP_CALL);
}

/* mov %src, %dst between 64-bit registers: src's number, dst in *dst; or -1. */
static int reg_copy(const cs_insn *insn, int *dst)
{
	const cs_x86 *x = &insn->detail->x86;

	if (insn->id != X86_INS_MOV || x->op_count != 2 || x->operands[0].type != X86_OP_REG ||
	    x->operands[1].type != X86_OP_REG || x->operands[0].size != 8)
		return -1;
	*dst = disasm__reg_number(x->operands[0].reg);
	return *dst < 0 ? -1 : disasm__reg_number(x->operands[1].reg);
}

/* The registers that hold the frame after insn, given those before. */
static uint32_t track_frame(struct disasm *d, const cs_insn *insn, uint32_t holds)
{
	int dst, src = reg_copy(insn, &dst);

	if (src >= 0)
		return src < 32 && (holds >> src & 1) ? holds | 1U << dst : holds & ~(1U << dst);
	for (int r = 0; r < 16; r++)
		if ((holds >> r & 1) && writes_reg(d, insn, r))
			holds &= ~(1U << r);
	return holds;
}

/* The register of holds to probe: first its, else the lowest. */
static int frame_reg(uint32_t holds, int first)
{
	if (holds >> first & 1)
		return first;
	for (int r = 0; r < 16; r++)
		if (holds >> r & 1)
			return r;
	return -1;
}

/* Walks h's straight-line code up to its first branch, following the frame
 * from the register the store of its instruction pointer uses through the
 * copies made of it. A handler that moves on to the caller's frame before
 * its first branch (3.13's YIELD_VALUE) is probed at its start instead,
 * where the store's register holds the frame if nothing wrote it before:
 * that probe is single-stepped, as is an indirect jump (DISPATCH's). */
static int walk_handler(struct image *im, struct handler *h, const uint8_t *code, size_t left,
			uint32_t frame_instr, cs_insn *insn)
{
	struct disasm *d = im->d;
	const uint8_t *p = code;
	uint64_t addr = h->start, lost = 0;
	uint32_t holds = 0, written = 0;
	int first = -1;

	while (disasm__next(d, &p, &left, &addr, insn)) {
		if (is_branch(insn)) {
			if (first < 0)
				return fail(
					im, -EINVAL,
					"%s at %#lx: no store of the frame's instruction pointer "
					"before its first branch",
					h->name, h->start);
			if (!holds && (written >> first & 1))
				return fail(im, -EINVAL,
					    "%s at %#lx: the frame's register changes at %#lx",
					    h->name, h->start, lost);
			h->reg = holds ? frame_reg(holds, first) : first;
			h->site = holds ? insn->address : h->start;
			return 0;
		}
		if (disasm__in_group(insn, CS_GRP_RET) || disasm__in_group(insn, CS_GRP_INT))
			break;
		if (first >= 0) {
			uint32_t was = holds;

			holds = track_frame(d, insn, holds);
			lost = holds || !was ? lost : insn->address;
		} else if ((first = instr_store_base(insn, frame_instr)) >= 0) {
			holds = 1U << first;
		} else {
			written |= ~track_frame(d, insn, 0xffff) & 0xffff;
		}
	}
	return fail(im, -EINVAL, "%s at %#lx: no branch in its first %d bytes", h->name, h->start,
		    HANDLER_BYTES);
}

static int find_site(struct image *im, struct handler *h, uint32_t frame_instr)
{
	uint8_t code[HANDLER_BYTES];
	uint64_t off;
	ssize_t n;
	cs_insn *insn;
	int err;

	if (elf_symtab__file_offset(im->syms, h->start, &off))
		return fail(im, -EINVAL, "%s at %#lx: not in the file", h->name, h->start);
	n = pread(im->fd, code, sizeof(code), (off_t)off);
	if (n <= 0)
		return fail(im, n < 0 ? -errno : -EIO, "%s at %#lx: cannot read its code", h->name,
			    h->start);
	insn = disasm__insn_new(im->d);
	if (!insn)
		return fail(im, -ENOMEM, "out of memory");
	err = walk_handler(im, h, code, (size_t)n, frame_instr, insn);
	disasm__insn_free(im->d, insn);
	if (!err)
		err = elf_symtab__file_offset(im->syms, h->site, &h->site_off) ? -EINVAL : 0;
	return err;
}

/* The code around t that no symbol covers: from the end of the function
 * below it to the start of the one above, inside its section. */
static struct range gap_around(const struct image *im, uint64_t t)
{
	struct range g = { t, t + 1 };
	struct elf_func f;

	for (size_t i = 0; i < im->nexec; i++)
		if (in_range(&im->exec[i], t))
			g = im->exec[i];
	for (size_t i = 0; !elf_symtab__func(im->syms, i, &f); i++) {
		if (f.vaddr + f.size <= t && f.vaddr + f.size > g.start)
			g.start = f.vaddr + f.size;
		if (f.vaddr > t && f.vaddr < g.end)
			g.end = f.vaddr;
	}
	return g;
}

/* The code to check for jumps into the handlers: the function, and the
 * parts gcc split off it that the table points into: their symbol's bytes
 * ("f.cold"), or in a stripped file the gap between symbols around them
 * (which may hold the split-off parts of other functions too). */
static size_t code_ranges(const struct image *im, struct range *r)
{
	struct elf_func f;
	size_t n = 1;

	r[0] = im->body;
	for (size_t i = 0; i < NTARGETS && n < 1 + MAX_FRAGS; i++) {
		uint64_t t = im->targets[i];
		bool seen = false;

		for (size_t k = 0; k < n; k++)
			seen |= in_range(&r[k], t);
		if (seen)
			continue;
		if (elf_symtab__func_at(im->syms, t, &f))
			r[n] = gap_around(im, t);
		else
			r[n] = (struct range){ f.vaddr, f.vaddr + f.size };
		if (r[n].end - r[n].start > SWEEP_MAX)
			r[n].end = r[n].start + SWEEP_MAX;
		n++;
	}
	return n;
}

/* A direct jump from `from` to `to` lands in a handler before its site:
 * refused, unless it is the jcc at another handler's site, which then
 * counts only when it falls through. */
static int check_target(struct image *im, struct handler *h, size_t nh, const cs_insn *insn,
			uint64_t to)
{
	int cc = disasm__jcc_cc(insn);

	for (size_t i = 0; i < nh; i++) {
		if (to <= h[i].start || to > h[i].site)
			continue;
		for (size_t k = 0; cc >= 0 && k < nh; k++)
			if (k != i && h[k].site == insn->address) {
				h[k].cond = PY_SITE_FALLS_THROUGH | (uint8_t)cc;
				return 0;
			}
		return fail(im, -EINVAL,
			    "%s at %#lx: a jump at %#lx lands at %#lx, before its probe at %#lx",
			    h[i].name, h[i].start, insn->address, to, h[i].site);
	}
	return 0;
}

/* Linear sweep; undecodable bytes are skipped one at a time. */
static int sweep(struct image *im, const struct range *r, const uint8_t *code, struct handler *h,
		 size_t nh, cs_insn *insn)
{
	const uint8_t *p = code;
	size_t left = r->end - r->start;
	uint64_t addr = r->start, to;
	int err;

	while (left) {
		if (!disasm__next(im->d, &p, &left, &addr, insn)) {
			p++, left--, addr++;
			continue;
		}
		if (disasm__direct_branch(insn, &to) && (err = check_target(im, h, nh, insn, to)))
			return err;
	}
	return 0;
}

static int sweep_range(struct image *im, const struct range *r, struct handler *h, size_t nh)
{
	size_t size = r->end - r->start;
	uint8_t *code = malloc(size);
	cs_insn *insn = disasm__insn_new(im->d);
	uint64_t off;
	int err;

	if (!code || !insn)
		err = fail(im, -ENOMEM, "out of memory");
	else if (elf_symtab__file_offset(im->syms, r->start, &off) ||
		 pread(im->fd, code, size, (off_t)off) != (ssize_t)size)
		err = fail(im, -EIO, "cannot read the code at %#lx", r->start);
	else
		err = sweep(im, r, code, h, nh, insn);
	disasm__insn_free(im->d, insn);
	free(code);
	return err;
}

static int check_landings(struct image *im, struct handler *h, size_t nh)
{
	struct range r[1 + MAX_FRAGS];
	size_t n = code_ranges(im, r);
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = sweep_range(im, &r[i], h, nh);
	return err;
}

static int find_handlers(struct image *im, struct handler *h, size_t nh, uint32_t frame_instr)
{
	uint64_t unknown = unknown_handler(im);
	int err;

	for (size_t i = 0; i < nh; i++) {
		h[i].start = im->targets[h[i].op];
		if (h[i].start == unknown)
			return fail(im, -ENOENT, "the opcode table has no %s", h[i].name);
		if ((err = find_site(im, &h[i], frame_instr)))
			return err;
	}
	return check_landings(im, h, nh);
}

static int find_sites(struct image *im, const struct py_op *ops, size_t nops, uint32_t frame_instr,
		      struct py_sites *out)
{
	struct handler h[2 * PY_SITES_MAX];
	int err;

	for (size_t i = 0; i < nops; i++)
		h[i] = (struct handler){ .name = ops[i].name, .op = ops[i].op };
	if ((err = open_image(im)) || (err = find_body(im)) || (err = load_exec(im)) ||
	    (err = load_relatives(im)) || (err = find_table(im)) ||
	    (err = find_handlers(im, h, nops, frame_instr)))
		return err;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < nops; i++) {
		size_t *n = ops[i].exit ? &out->nexit : &out->nentry;
		uint64_t *off = ops[i].exit ? out->exit_off : out->entry_off;
		uint8_t *reg = ops[i].exit ? out->exit_reg : out->entry_reg;

		off[*n] = h[i].site_off;
		if (!ops[i].exit)
			out->entry_cond[*n] = h[i].cond;
		reg[(*n)++] = (uint8_t)h[i].reg;
	}
	return 0;
}

/* 3.10: the evaluation function's entry, where every Python call enters. */
static int find_eval_entry(struct image *im, struct py_sites *out)
{
	int err;

	if ((err = open_image(im)) || (err = find_body(im)))
		return err;
	memset(out, 0, sizeof(*out));
	out->eval_calls = true;
	if (elf_symtab__file_offset(im->syms, im->body.start, &out->eval_off))
		return fail(im, -ENOENT, EVAL_FUNC " is not in the file");
	return 0;
}

int py_sites__find(struct disasm *d, int fd, unsigned int major, unsigned int minor,
		   uint32_t frame_instr, struct py_sites *out, char *why, size_t len)
{
	struct image im = { .fd = fd, .d = d, .why = why, .len = len };
	int err = -EPROTONOSUPPORT;

	if (len)
		why[0] = '\0';
	if (major == 3 && minor == 10)
		err = find_eval_entry(&im, out);
	for (size_t i = 0; major == 3 && i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].minor == minor)
			err = find_sites(&im, versions[i].ops, versions[i].n, frame_instr, out);
	if (err == -EPROTONOSUPPORT)
		fail(&im, err, "Python %u.%u's evaluation loop is not supported", major, minor);
	free(im.rel);
	elf_symtab__free(im.syms);
	if (im.elf)
		elf_end(im.elf);
	return err;
}
