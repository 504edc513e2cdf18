// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "ret_slot.h"

void ret_slot__start(struct ret_slot *s)
{
	memset(s, 0, sizeof(*s));
	s->known = true;
}

/* A memory operand (or lea's address) that is the return slot. */
static bool is_slot(const struct ret_slot *s, const cs_x86_op *op)
{
	if (op->type != X86_OP_MEM || op->mem.index != X86_REG_INVALID)
		return false;
	if (op->mem.base == X86_REG_RSP)
		return s->known && op->mem.disp == s->depth;
	return op->mem.base == X86_REG_RBP && s->rbp_known && op->mem.disp == s->rbp;
}

static bool uses_slot(const struct ret_slot *s, const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	for (uint8_t i = 0; i < x->op_count; i++)
		if (is_slot(s, &x->operands[i]))
			return true;
	/* pop with nothing pushed takes the return address itself */
	return insn->id == X86_INS_POP && s->known && !s->depth;
}

static bool writes_reg(const cs_insn *insn, x86_reg reg)
{
	const cs_x86 *x = &insn->detail->x86;

	for (uint8_t i = 0; i < insn->detail->regs_write_count; i++)
		if (insn->detail->regs_write[i] == reg)
			return true;
	for (uint8_t i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG && x->operands[i].reg == reg &&
		    (x->operands[i].access & CS_AC_WRITE))
			return true;
	return false;
}

static bool is_reg(const cs_x86_op *op, x86_reg reg)
{
	return op->type == X86_OP_REG && op->reg == reg;
}

/* The depth after an instruction that writes %rsp; false when unknown. */
static bool rsp_after(const struct ret_slot *s, const cs_insn *insn, int64_t *depth)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *b = &x->operands[1];
	bool imm = x->op_count == 2 && b->type == X86_OP_IMM;

	switch (insn->id) {
	case X86_INS_PUSH:
	case X86_INS_PUSHFQ:
		*depth = s->depth + 8;
		return s->known;
	case X86_INS_POP:
	case X86_INS_POPFQ:
		*depth = s->depth - 8;
		return s->known;
	case X86_INS_CALL: /* returns to the same depth */
		*depth = s->depth;
		return s->known;
	case X86_INS_SUB:
		*depth = s->depth + (imm ? b->imm : 0);
		return s->known && imm;
	case X86_INS_ADD:
		*depth = s->depth - (imm ? b->imm : 0);
		return s->known && imm;
	case X86_INS_LEAVE:
		*depth = s->rbp - 8;
		return s->rbp_known;
	case X86_INS_MOV:
		*depth = s->rbp;
		return x->op_count == 2 && is_reg(b, X86_REG_RBP) && s->rbp_known;
	case X86_INS_LEA:
		if (b->mem.index != X86_REG_INVALID)
			return false;
		if (b->mem.base == X86_REG_RSP) {
			*depth = s->depth - b->mem.disp;
			return s->known;
		}
		*depth = s->rbp - b->mem.disp;
		return b->mem.base == X86_REG_RBP && s->rbp_known;
	}
	return false;
}

static void follow_rbp(struct ret_slot *s, const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	if (!writes_reg(insn, X86_REG_RBP))
		return;
	/* mov %rsp, %rbp: a frame pointer; anything else loses track */
	s->rbp_known = insn->id == X86_INS_MOV && x->op_count == 2 &&
		       is_reg(&x->operands[1], X86_REG_RSP) && s->known;
	s->rbp = s->depth;
}

static bool is_jump(const cs_insn *insn)
{
	for (uint8_t i = 0; i < insn->detail->groups_count; i++)
		if (insn->detail->groups[i] == CS_GRP_JUMP ||
		    insn->detail->groups[i] == CS_GRP_BRANCH_RELATIVE)
			return true;
	return false;
}

/* A jump within the function: its target starts at this depth. */
static void note_target(struct ret_slot *s, const cs_insn *insn, uint64_t start, uint64_t end)
{
	const cs_x86 *x = &insn->detail->x86;
	uint64_t t;

	if (!s->known || !is_jump(insn) || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return;
	t = (uint64_t)x->operands[0].imm;
	if (t <= insn->address || t >= end || t < start || s->ntargets == RET_SLOT_TARGETS)
		return;
	s->targets[s->ntargets].addr = t;
	s->targets[s->ntargets++].depth = s->depth;
}

/* After a ret or jmp, the next instruction is reached only by jumps: its
 * depth is theirs, if one was seen. */
static void resume_at(struct ret_slot *s, uint64_t addr)
{
	for (unsigned int i = 0; i < s->ntargets; i++) {
		if (s->targets[i].addr != addr)
			continue;
		s->depth = s->targets[i].depth;
		s->known = true;
		return;
	}
}

void ret_slot__visit(struct ret_slot *s, const cs_insn *insn, uint64_t start, uint64_t end)
{
	int64_t depth = 0;
	bool known;

	if (!s->known)
		resume_at(s, insn->address);
	if (uses_slot(s, insn))
		s->touched = true;
	note_target(s, insn, start, end);
	if (insn->id == X86_INS_RET || insn->id == X86_INS_JMP)
		known = false;
	else if (writes_reg(insn, X86_REG_RSP))
		known = rsp_after(s, insn, &depth);
	else {
		depth = s->depth;
		known = s->known;
	}
	follow_rbp(s, insn);
	s->depth = depth;
	s->known = known;
}
