/* SPDX-License-Identifier: GPL-2.0 */
/* A USDT probe's argument, where its note's spec says it is, for the BPF
 * programs that read one (--span's labels, -f usdt:'s hits): as
 * src/symbols/usdt_args.h's struct usdt_arg, whose kinds and "no
 * register" these are too (src/capture/probe_args.c checks). */
#ifndef FLAMEBPF_PROBE_ARG_H
#define FLAMEBPF_PROBE_ARG_H

#define PROBE_ARG_CONST 0
#define PROBE_ARG_REG	1
#define PROBE_ARG_MEM	2
#define PROBE_REG_NONE	255
#define PROBE_REG_COUNT 20 /* x86-64 struct pt_regs, r15 to sp: 8 bytes each */
#define PROBE_HIT_NARGS 3  /* a hit's first arguments kept (profile.h's PROFILE_NARGS) */
#define PROBE_STR_LEN	32 /* a hit's string argument's first bytes kept */

struct usdt_loc {
	__u8 kind; /* PROBE_ARG_* */
	__u8 reg;  /* its place in struct pt_regs */
	__u8 size;
	__u8 is_signed;
	__u8 shift;
	__u8 pad[3];
	__s64 val;
};

/* -f usdt:...: a site's first arguments, by its cookie. */
struct probe_args {
	__u32 n;
	__u32 pad;
	struct usdt_loc a[PROBE_HIT_NARGS];
};

#endif
