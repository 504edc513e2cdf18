/* Whether a function's code reads or writes its own return address: the
 * stack slot a uretprobe replaces with the kernel's trampoline. setjmp(),
 * getcontext() and vfork() save it, dlsym() and dlopen() look up their
 * caller by it; each would get the trampoline instead. Found by following
 * the stack pointer's depth through the function's code, in address
 * order, from what the instructions do to it. */
#ifndef FLAMEBPF_RET_SLOT_H
#define FLAMEBPF_RET_SLOT_H

#include <stdbool.h>
#include <stdint.h>

#include <capstone/capstone.h>

#define RET_SLOT_TARGETS 64

struct ret_slot {
	/* bytes pushed below the return address, and where %rbp points
	 * (likewise), each when known */
	int64_t depth, rbp;
	bool known, rbp_known;
	bool touched; /* the answer: the slot was used, or taken the address of */
	struct {
		uint64_t addr;
		int64_t depth;
	} targets[RET_SLOT_TARGETS]; /* depths at branch targets seen ahead */
	unsigned int ntargets;
};

/* Starts at the function's first instruction: the slot is at %rsp. */
void ret_slot__start(struct ret_slot *s);

/* Follows one instruction (with capstone's details), in address order.
 * [start, end) are the function's bytes: jumps within them carry the depth
 * to their target. */
void ret_slot__visit(struct ret_slot *s, const cs_insn *insn, uint64_t start, uint64_t end);

#endif
