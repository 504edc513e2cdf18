// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "usdt_args.h"

/* Every name of a register's parts, with where the part sits. */
static const struct {
	const char *name;
	uint8_t reg, shift;
} regs[] = {
	{ "rax", USDT_REG_RAX, 0 }, { "eax", USDT_REG_RAX, 0 }, { "ax", USDT_REG_RAX, 0 },
	{ "al", USDT_REG_RAX, 0 },  { "ah", USDT_REG_RAX, 8 },	{ "rbx", USDT_REG_RBX, 0 },
	{ "ebx", USDT_REG_RBX, 0 }, { "bx", USDT_REG_RBX, 0 },	{ "bl", USDT_REG_RBX, 0 },
	{ "bh", USDT_REG_RBX, 8 },  { "rcx", USDT_REG_RCX, 0 }, { "ecx", USDT_REG_RCX, 0 },
	{ "cx", USDT_REG_RCX, 0 },  { "cl", USDT_REG_RCX, 0 },	{ "ch", USDT_REG_RCX, 8 },
	{ "rdx", USDT_REG_RDX, 0 }, { "edx", USDT_REG_RDX, 0 }, { "dx", USDT_REG_RDX, 0 },
	{ "dl", USDT_REG_RDX, 0 },  { "dh", USDT_REG_RDX, 8 },	{ "rsi", USDT_REG_RSI, 0 },
	{ "esi", USDT_REG_RSI, 0 }, { "si", USDT_REG_RSI, 0 },	{ "sil", USDT_REG_RSI, 0 },
	{ "rdi", USDT_REG_RDI, 0 }, { "edi", USDT_REG_RDI, 0 }, { "di", USDT_REG_RDI, 0 },
	{ "dil", USDT_REG_RDI, 0 }, { "rbp", USDT_REG_RBP, 0 }, { "ebp", USDT_REG_RBP, 0 },
	{ "bp", USDT_REG_RBP, 0 },  { "bpl", USDT_REG_RBP, 0 }, { "rsp", USDT_REG_RSP, 0 },
	{ "esp", USDT_REG_RSP, 0 }, { "sp", USDT_REG_RSP, 0 },	{ "spl", USDT_REG_RSP, 0 },
	{ "rip", USDT_REG_RIP, 0 }, { "r8", USDT_REG_R8, 0 },	{ "r9", USDT_REG_R9, 0 },
	{ "r10", USDT_REG_R10, 0 }, { "r11", USDT_REG_R11, 0 }, { "r12", USDT_REG_R12, 0 },
	{ "r13", USDT_REG_R13, 0 }, { "r14", USDT_REG_R14, 0 }, { "r15", USDT_REG_R15, 0 },
};

/* "%NAME", r8d/r8w/r8b as r8; advances *s past it. */
static int parse_reg(const char **s, struct usdt_arg *a)
{
	const char *p;
	size_t len;
	char name[8];

	if (**s != '%')
		return -EINVAL; /* before looking past it: it may be the end */
	p = *s + 1;
	len = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789");
	if (!len || len >= sizeof(name))
		return -EINVAL;
	memcpy(name, p, len);
	name[len] = '\0';
	if (name[0] == 'r' && name[1] >= '0' && name[1] <= '9' && strchr("dwb", name[len - 1]))
		name[len - 1] = '\0';
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		if (strcmp(name, regs[i].name))
			continue;
		a->reg = regs[i].reg;
		a->shift = regs[i].shift;
		*s = p + len;
		return 0;
	}
	return -EINVAL;
}

/* A decimal or 0x number, with its sign; advances *s. */
static int parse_num(const char **s, int64_t *v)
{
	char *end;

	*v = strtoll(*s, &end, 0);
	if (end == *s)
		return -EINVAL;
	*s = end;
	return 0;
}

/* "%reg", "$imm", "disp(%reg)", "(%reg)", "disp" (absolute) */
static int parse_operand(const char **s, struct usdt_arg *a)
{
	a->reg = USDT_REG_NONE;
	if (**s == '%') {
		a->kind = USDT_ARG_REG;
		return parse_reg(s, a);
	}
	if (**s == '$') {
		(*s)++;
		a->kind = USDT_ARG_CONST;
		return parse_num(s, &a->val);
	}
	a->kind = USDT_ARG_MEM;
	if (**s != '(' && parse_num(s, &a->val))
		return -EINVAL;
	if (**s != '(')
		return 0;
	(*s)++;
	if (parse_reg(s, a) || **s != ')')
		return -EINVAL; /* an index register, (%rax,%rbx,8): not for probes */
	(*s)++;
	return 0;
}

static int parse_one(const char **s, struct usdt_arg *a)
{
	int64_t size;

	memset(a, 0, sizeof(*a));
	if (parse_num(s, &size) || **s != '@')
		return -EINVAL;
	(*s)++;
	if (size < -8 || size > 8)
		return -EINVAL; /* before negating: strtoll saturates */
	a->is_signed = size < 0;
	a->size = (uint8_t)(size < 0 ? -size : size);
	if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8)
		return -EINVAL;
	return parse_operand(s, a);
}

int usdt_args__parse(const char *spec, struct usdt_arg *args, size_t *n)
{
	const char *s = spec;

	*n = 0;
	for (s += strspn(s, " "); *s; s += strspn(s, " ")) {
		if (*n == USDT_MAX_ARGS || parse_one(&s, &args[*n]))
			return -EINVAL;
		if (*s && *s != ' ')
			return -EINVAL;
		(*n)++;
	}
	return 0;
}
