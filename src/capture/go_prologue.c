// SPDX-License-Identifier: GPL-2.0
#include <unistd.h>

#include "disasm.h"
#include "go_prologue.h"
#include "ret_sites.h"

#define CHECK_BYTES	64 /* the longest check: 5 instructions, 26 bytes */
#define CHECK_INSNS	8
#define MORESTACK_BYTES 512 /* spills and reloads of every register argument */
#define MORESTACK_INSNS 64

/* An instruction a stack check is made of: it writes no memory, nor the
 * stack pointer (mov %fs:-8,%r14; lea -N(%rsp),%r12; sub $N,%r12; cmp; jb;
 * jbe). */
static bool in_check(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	switch (insn->id) {
	case X86_INS_CMP:
	case X86_INS_JB:
	case X86_INS_JBE:
		return true;
	case X86_INS_MOV:
	case X86_INS_LEA:
	case X86_INS_SUB:
		return x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		       x->operands[0].reg != X86_REG_RSP;
	default:
		return false;
	}
}

/* Whether the code at offset at of the function (file_off, size) calls
 * and then jumps back to the function's start, as the block a stack check
 * jumps to does. */
static bool is_morestack(struct disasm *d, int fd, uint64_t file_off, uint64_t size, uint64_t at,
			 cs_insn *insn)
{
	uint8_t code[MORESTACK_BYTES];
	const uint8_t *p = code;
	size_t want = size - at < sizeof(code) ? size - at : sizeof(code);
	ssize_t n = pread(fd, code, want, file_off + at);
	size_t left = n > 0 ? n : 0;
	uint64_t addr = at, target;
	bool called = false;

	for (int i = 0; i < MORESTACK_INSNS && disasm__next(d, &p, &left, &addr, insn); i++) {
		if (insn->id == X86_INS_CALL)
			called = true;
		else if (insn->id == X86_INS_JMP)
			return called && disasm__direct_branch(insn, &target) && target == 0;
		else if (insn->id == X86_INS_RET)
			return false;
	}
	return false;
}

/* cmp with 0x10(%r14) (stackguard0) or 0x18(%r14) (stackguard1) */
static bool reads_g_r14(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	for (int i = 0; insn->id == X86_INS_CMP && i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_R14)
			return true;
	return false;
}

uint64_t go_prologue__end(struct disasm *d, int fd, uint64_t file_off, uint64_t size, bool *g_r14)
{
	uint8_t code[CHECK_BYTES];
	const uint8_t *p = code;
	ssize_t n = pread(fd, code, size < sizeof(code) ? size : sizeof(code), file_off);
	size_t left = n > 0 ? n : 0;
	uint64_t addr = 0, target, end = 0, morestack = 0;
	cs_insn *insn = left ? disasm__insn_new(d) : NULL;
	bool r14 = false;

	if (g_r14)
		*g_r14 = false;
	if (!insn)
		return file_off;
	for (int i = 0; i < CHECK_INSNS && disasm__next(d, &p, &left, &addr, insn); i++) {
		if (!in_check(insn))
			break;
		r14 |= reads_g_r14(insn);
		if (insn->id == X86_INS_JBE && disasm__direct_branch(insn, &target) &&
		    target > addr && target < size) {
			end = addr;
			morestack = target;
		}
	}
	if (end && !is_morestack(d, fd, file_off, size, morestack, insn))
		end = 0;
	if (g_r14)
		*g_r14 = end && r14;
	disasm__insn_free(d, insn);
	return file_off + end;
}
