/* Where CPython's evaluation loop starts and ends running a Python frame.
 * From 3.11 on, a call from Python to Python stays inside one C call of
 * _PyEval_EvalFrameDefault, so function entries and exits are bytecode
 * handlers of that loop: found through its table of computed-goto labels
 * (opcode_targets, which has no symbol), probed at their first branch (a
 * uprobe emulates a branch; any other instruction is single-stepped, ~20x
 * slower). */
#ifndef FLAMEBPF_PY_SITES_H
#define FLAMEBPF_PY_SITES_H

#include <stddef.h>
#include <linux/types.h>
#include <stdint.h>

#include "py_trace.h"

#define PY_SITES_MAX 6

struct py_sites {
	size_t nentry, nexit;
	/* file offsets of the probe sites: entry, the RESUME handlers (a frame
	 * starts or resumes); exit, the RETURN_ and YIELD_VALUE ones (it
	 * returns or suspends) */
	uint64_t entry_off[PY_SITES_MAX], exit_off[PY_SITES_MAX];
	/* the register holding the frame (_PyInterpreterFrame *) at each site,
	 * by its x86 number: rax 0, rcx 1, rdx 2, rbx 3, rsp 4, rbp 5, rsi 6,
	 * rdi 7, r8 8 .. r15 15 */
	uint8_t entry_reg[PY_SITES_MAX], exit_reg[PY_SITES_MAX];
	/* 0: a call starts at each pass; else PY_SITE_FALLS_THROUGH | the x86
	 * condition code of the jcc at the site: only when it does not jump
	 * (3.13's RESUME_CHECK jumps into RESUME, before RESUME's own site,
	 * when it deoptimises) */
	uint8_t entry_cond[PY_SITES_MAX];
	/* 3.10: no sites; each Python call is a C call of the evaluation
	 * function (the frame its second argument), whose entry is at the file
	 * offset eval_off */
	bool eval_calls;
	uint64_t eval_off;
};

#define PY_SITE_FALLS_THROUGH PY_COOKIE_FALLS

struct disasm;

/* Finds the probe sites of CPython major.minor's evaluation loop in the ELF
 * file open on fd (an executable or libpython). frame_instr is the offset
 * of _PyInterpreterFrame.prev_instr (3.11, 3.12) or .instr_ptr (3.13),
 * which each handler stores first: the frame's register is that store's
 * base. Each site is the
 * handler's first branch (jcc, jmp or call; an indirect jmp only if no
 * direct one comes first: then the probe is single-stepped), reached by
 * every pass through the handler.
 * For 3.10, finds the evaluation function's entry instead (eval_calls).
 * Returns 0; -EPROTONOSUPPORT for a version other than 3.10 to 3.13; -ENOENT when
 * the function or its opcode table is not found (built without computed
 * gotos, or not CPython on x86-64); -EINVAL when a handler's code is not as
 * expected (no store of prev_instr before its first branch, the frame's
 * register changed after it, or a direct branch of the function landing
 * between the handler's start and its site, which would make that path
 * count too, unless the jump is another site's jcc, which then counts
 * when it falls through); -errno when the file cannot be read. On error, writes a
 * one-line reason into why. */
int py_sites__find(struct disasm *d, int fd, unsigned int major, unsigned int minor,
		   uint32_t frame_instr, struct py_sites *out, char *why, size_t len);

#endif
