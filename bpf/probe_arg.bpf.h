/* SPDX-License-Identifier: GPL-2.0 */
/* Reads a USDT probe's argument in its uprobe program. */
#ifndef FLAMEBPF_PROBE_ARG_BPF_H
#define FLAMEBPF_PROBE_ARG_BPF_H

#include "probe_arg.h"

/* A probe argument's value, as its spec says where it is. */
static __always_inline __u64 probe_arg_fetch(struct pt_regs *ctx, const struct usdt_loc *a)
{
	__u64 v = 0, base = 0, mask;
	__u32 n = a->size, bits;

	if (a->kind == PROBE_ARG_CONST)
		return a->val;
	if (a->reg < PROBE_REG_COUNT &&
	    bpf_probe_read_kernel(&base, sizeof(base), (void *)ctx + a->reg * 8))
		return 0;
	if (a->kind == PROBE_ARG_REG) {
		v = base >> (a->shift & 63);
	} else {
		if (n == 0 || n > 8)
			return 0;
		if (bpf_probe_read_user(&v, n, (void *)(base + a->val)))
			return 0;
	}
	if (n >= 8 || !n)
		return v;
	bits = n * 8;
	mask = (1ULL << bits) - 1;
	v &= mask;
	if (a->is_signed && (v >> (bits - 1)) & 1)
		v |= ~mask;
	return v;
}

/* Lowest and highest address of a string in user memory, x86-64. */
#define PROBE_USER_MIN 0x10000ULL
#define PROBE_USER_MAX 0x00007fffffffffffULL

/* What an argument that may be a char * points to, into buf: true when it
 * read a string (user space says whether it looks like one). The spec
 * cannot say char * from a pointer or an unsigned long: a pointer-sized
 * unsigned value in user memory is tried. */
static __always_inline bool probe_arg_str(const struct usdt_loc *a, __u64 v, char *buf)
{
	if (a->size != 8 || a->kind == PROBE_ARG_CONST || v < PROBE_USER_MIN || v > PROBE_USER_MAX)
		return false;
	return bpf_probe_read_user_str(buf, PROBE_STR_LEN, (void *)v) > 1;
}

#endif
