/* A USDT probe's argument spec (sys/sdt.h writes it for x86-64 as the
 * assembler sees the operands): "-4@%edi 8@-16(%rbp) 8@%rax -4@$5", each
 * "SIZE@OPERAND" with a negative size for a signed value. Compiled into
 * what a BPF program needs to fetch each value: a register, a memory
 * operand (register + displacement), or a constant. */
#ifndef FLAMEBPF_USDT_ARGS_H
#define FLAMEBPF_USDT_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USDT_MAX_ARGS 12 /* sys/sdt.h's STAP_PROBE12 */

enum usdt_arg_kind {
	USDT_ARG_CONST, /* the value is val */
	USDT_ARG_REG,	/* the value is in register reg */
	USDT_ARG_MEM,	/* the value is at [reg + val] (reg USDT_REG_NONE: at val) */
};

/* x86-64 registers by their place in struct pt_regs (the kernel's order). */
enum usdt_reg {
	USDT_REG_R15,
	USDT_REG_R14,
	USDT_REG_R13,
	USDT_REG_R12,
	USDT_REG_RBP,
	USDT_REG_RBX,
	USDT_REG_R11,
	USDT_REG_R10,
	USDT_REG_R9,
	USDT_REG_R8,
	USDT_REG_RAX,
	USDT_REG_RCX,
	USDT_REG_RDX,
	USDT_REG_RSI,
	USDT_REG_RDI,
	USDT_REG_ORIG_RAX,
	USDT_REG_RIP,
	USDT_REG_CS,
	USDT_REG_EFLAGS,
	USDT_REG_RSP,
	USDT_REG_NONE = 255,
};

struct usdt_arg {
	uint8_t kind;	/* enum usdt_arg_kind */
	uint8_t reg;	/* enum usdt_reg */
	uint8_t size;	/* bytes: 1, 2, 4 or 8 */
	bool is_signed; /* sign-extend from size */
	uint8_t shift;	/* the sub-register's place: 8 for %ah and the like */
	int64_t val;	/* USDT_ARG_CONST's value, USDT_ARG_MEM's displacement */
};

/* Parses spec into at most USDT_MAX_ARGS args; *n is how many. Returns 0,
 * or -EINVAL for anything it does not know (another architecture's
 * syntax, an index register, a size other than 1/2/4/8). */
int usdt_args__parse(const char *spec, struct usdt_arg *args, size_t *n);

#endif
