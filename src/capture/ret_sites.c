// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disasm.h"
#include "ret_sites.h"
#include "ret_slot.h"

#define MAX_FUNC_BYTES (1 << 20)

static int add_site(struct ret_sites *rs, uint64_t off, uint8_t kind)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 4;
		uint64_t *v = realloc(rs->off, cap * sizeof(*v));
		uint8_t *k = v ? realloc(rs->kind, cap * sizeof(*k)) : NULL;

		if (v)
			rs->off = v;
		if (!k)
			return -ENOMEM;
		rs->kind = k;
		rs->cap = cap;
	}
	rs->off[rs->n] = off;
	rs->kind[rs->n++] = kind;
	return 0;
}

#define MAX_FRAGS 8

/* One disassembly: the function's ranges (its body first) and how to find
 * more of them. */
struct walk {
	struct disasm *d;
	int fd;
	struct code_range r[1 + MAX_FRAGS];
	size_t nr;
	fragment_fn frag;
	void *arg;
	struct ret_sites *out;
	struct ret_slot slot; /* in the body */
};

static bool in_ranges(const struct walk *w, uint64_t addr)
{
	for (size_t i = 0; i < w->nr; i++)
		if (addr >= w->r[i].vaddr && addr - w->r[i].vaddr < w->r[i].size)
			return true;
	return false;
}

/* Whether a jump to addr stays in the function: in its bytes, or in a
 * fragment of it (added to the walk on first sight). */
static bool stays_inside(struct walk *w, uint64_t addr)
{
	struct code_range fr;

	if (in_ranges(w, addr))
		return true;
	if (!w->frag || w->nr == 1 + MAX_FRAGS || !w->frag(w->arg, addr, &fr) || addr < fr.vaddr ||
	    addr - fr.vaddr >= fr.size)
		return false;
	w->r[w->nr++] = fr;
	w->out->nfrags++;
	return true;
}

bool disasm__in_group(const cs_insn *insn, uint8_t group)
{
	for (uint8_t i = 0; i < insn->detail->groups_count; i++)
		if (insn->detail->groups[i] == group)
			return true;
	return false;
}

bool disasm__direct_branch(const cs_insn *insn, uint64_t *target)
{
	const cs_x86 *x = &insn->detail->x86;

	if (!disasm__in_group(insn, CS_GRP_JUMP) && !disasm__in_group(insn, CS_GRP_BRANCH_RELATIVE))
		return false;
	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t)x->operands[0].imm;
	return true;
}

/* Instructions that hand control to a signal handler (which may throw or
 * longjmp) or that we do not model: a function with one is no leaf. */
static bool may_trap(const cs_insn *insn)
{
	switch (insn->id) {
	case X86_INS_SYSCALL: /* returns to the next instruction */
		return false;
	case X86_INS_UD0:
	case X86_INS_UD2B:
	case X86_INS_UD2:
	case X86_INS_HLT:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
		return true;
	}
	return disasm__in_group(insn, CS_GRP_INT) || disasm__in_group(insn, CS_GRP_IRET) ||
	       disasm__in_group(insn, CS_GRP_PRIVILEGE);
}

/* A jcc's condition code is in its opcode (short 0x70+cc, near 0x0f
 * 0x80+cc). */
int disasm__jcc_cc(const cs_insn *insn)
{
	const uint8_t *op = insn->detail->x86.opcode;

	if (insn->id == X86_INS_JMP)
		return -1;
	if (op[0] >= 0x70 && op[0] <= 0x7f)
		return op[0] & 0xf;
	if (op[0] == 0x0f && op[1] >= 0x80 && op[1] <= 0x8f)
		return op[1] & 0xf;
	return -1;
}

/* The site kind of a jump out; -1 for jcxz and loop, which test a count. */
static int jump_kind(const cs_insn *insn)
{
	int cc = disasm__jcc_cc(insn);

	if (insn->id == X86_INS_JMP)
		return SITE_JMP;
	return cc < 0 ? -1 : SITE_JCC + cc;
}

/* The number x86 encodes a 64-bit register by (rax 0 ... r15 15), or -1. */
int disasm__reg_number(int r)
{
	static const x86_reg regs[] = { X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
					X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
					X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
					X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15 };

	for (int i = 0; i < 16; i++)
		if ((int)regs[i] == r)
			return i;
	return -1;
}

/* The site kind of an indirect jump: through a pointer in a slot (the GOT,
 * a table of functions; a jump table would need an index), or to a
 * register, which may hold a tail call's target or a jump table's entry;
 * -1 when it is none of these (jump tables of CET code are "notrack"). */
static int indirect_kind(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;
	int reg;

	if (insn->id != X86_INS_JMP || x->op_count != 1)
		return -1;
	if (x->operands[0].type == X86_OP_MEM)
		return x->operands[0].mem.index == X86_REG_INVALID ? SITE_JMP : -1;
	if (x->operands[0].type != X86_OP_REG || x->prefix[1] == 0x3e)
		return -1;
	reg = disasm__reg_number(x->operands[0].reg);
	return reg < 0 ? -1 : SITE_JMP_REG + reg;
}

/* Classifies one instruction of range r; returns 0 or -ENOMEM. */
static int visit(struct walk *w, const struct code_range *r, const cs_insn *insn)
{
	uint64_t off = r->file_off + (insn->address - r->vaddr), target;
	int kind;

	if (insn->id == X86_INS_RET)
		return add_site(w->out, off, SITE_RET);
	if (disasm__in_group(insn, CS_GRP_CALL) || may_trap(insn)) {
		w->out->leaf = false;
		return 0;
	}
	if (!disasm__direct_branch(insn, &target)) {
		if (!disasm__in_group(insn, CS_GRP_JUMP))
			return 0;
		w->out->leaf = false; /* indirect: anywhere */
		w->out->tail = true;
		kind = indirect_kind(insn);
		return kind < 0 ? 0 : add_site(w->out, off, (uint8_t)kind);
	}
	if (stays_inside(w, target))
		return 0;
	/* elsewhere: a tail call, taken or (jcc) maybe not */
	w->out->leaf = false;
	w->out->tail = true;
	kind = jump_kind(insn);
	return kind < 0 ? 0 : add_site(w->out, off, (uint8_t)kind);
}

static int walk_code(struct walk *w, size_t ri, const uint8_t *code)
{
	struct code_range r = w->r[ri];
	const uint8_t *p = code;
	size_t left = r.size;
	uint64_t addr = r.vaddr;
	cs_insn *insn = disasm__insn_new(w->d);
	int err = 0;

	if (!insn)
		return -ENOMEM;
	if (!ri)
		ret_slot__start(&w->slot);
	while (left && disasm__next(w->d, &p, &left, &addr, insn)) {
		if (!ri)
			ret_slot__visit(&w->slot, insn, r.vaddr, r.vaddr + r.size);
		if ((err = visit(w, &r, insn)))
			break;
	}
	/* padding or data after the last instruction stops the walk early */
	if (left)
		w->out->complete = false;
	disasm__insn_free(w->d, insn);
	return err;
}

static int walk_range(struct walk *w, size_t ri)
{
	uint64_t size = w->r[ri].size;
	uint8_t *code;
	ssize_t n;
	int err;

	if (!size || size > MAX_FUNC_BYTES)
		return -EFBIG;
	code = malloc(size);
	if (!code)
		return -ENOMEM;
	n = pread(w->fd, code, size, w->r[ri].file_off);
	if (n != (ssize_t)size)
		err = n < 0 ? -errno : -EIO;
	else
		err = walk_code(w, ri, code);
	free(code);
	return err;
}

int ret_sites__find(struct disasm *d, int fd, const struct code_range *body, fragment_fn frag,
		    void *arg, struct ret_sites *out)
{
	struct walk w = { .d = d, .fd = fd, .r = { *body }, .nr = 1, .frag = frag, .arg = arg };
	int err = 0;

	w.out = out;
	out->leaf = out->complete = true;
	/* fragments found while walking are walked in turn */
	for (size_t i = 0; i < w.nr && !err; i++)
		err = walk_range(&w, i);
	out->touches_ret = w.slot.touched;
	return err;
}

void ret_sites__free(struct ret_sites *rs)
{
	free(rs->off);
	free(rs->kind);
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

/* The kernel takes any instruction whose opcode is 0x90 for a nop and
 * skips it (seen on 6.18), but with REX.B, "49 90" is xchg %rax,%r8: the
 * program would run on with the two swapped back (Go's write barriers
 * begin so). */
static bool is_xchg_nop_lookalike(const cs_insn *insn)
{
	return insn->id == X86_INS_XCHG && insn->detail->x86.opcode[0] == 0x90;
}

static enum entry_kind kind_of(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	if (bad_prefix(x) || insn->id == X86_INS_INT3 || insn->id == X86_INS_INT ||
	    insn->id == X86_INS_INTO || insn->id == X86_INS_INT1 || is_xchg_nop_lookalike(insn))
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
	if (!left || !(insn = disasm__insn_new(d)))
		return ENTRY_STEPPED;
	if (disasm__next(d, &p, &left, &addr, insn)) {
		kind = kind_of(insn);
		if (insn->id == X86_INS_ENDBR64 && disasm__next(d, &p, &left, &addr, insn) &&
		    (next = kind_of(insn)) == ENTRY_EMULATED) {
			*site = file_off + insn->address;
			kind = next;
		}
	}
	disasm__insn_free(d, insn);
	return kind;
}
