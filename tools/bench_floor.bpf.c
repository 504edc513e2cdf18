// SPDX-License-Identifier: GPL-2.0
/* The floor of a traced call for tools/bench_trace.sh: programs that do
 * nothing, attached by tools/bench_floor.c the ways flamebpf attaches its
 * own (a classic uprobe and uretprobe pair, a uprobe_multi pair, a uprobe
 * session). What a call costs under them is what no tool can go below. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("kprobe")
int empty(struct pt_regs *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
