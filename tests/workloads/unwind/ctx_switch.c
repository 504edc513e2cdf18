// SPDX-License-Identifier: GPL-2.0
/*
 * ctx_switch N: two coroutines (ucontext) that call each other's functions
 * and switch in the middle of calls, N rounds. A return address replaced by
 * a uretprobe on one stack would be followed on the other: the program
 * would crash. Prints its argc and what it computed: the same with and
 * without tracing (argc checks an entry point left alone, too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define NOINLINE __attribute__((noinline))

static ucontext_t main_ctx, co_ctx;
static char co_stack[64 * 1024];
static volatile long total;

NOINLINE static long yield_in(long depth, long v)
{
	if (depth > 0)
		return yield_in(depth - 1, v + depth) + 1;
	swapcontext(&co_ctx, &main_ctx); /* back to main, mid-call */
	return v;
}

NOINLINE static void coroutine(void)
{
	for (;;)
		total += yield_in(5, total % 7);
}

NOINLINE static long work_in(long depth, long v)
{
	if (depth > 0)
		return work_in(depth - 1, v * 3 + 1) + 1;
	swapcontext(&main_ctx, &co_ctx); /* into the coroutine, mid-call */
	return v % 1000;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;

	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof(co_stack);
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, coroutine, 0);
	for (long i = 0; i < n; i++)
		sum += work_in(4, i);
	printf("argc %d sum %ld total %ld\n", argc, sum, (long)total);
	return 0;
}
