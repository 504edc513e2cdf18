// SPDX-License-Identifier: GPL-2.0
/*
 * The "lost:" items the summary makes of the BPF loss counters: every way
 * an off-CPU block can be dropped is named with its count, and a block
 * kept by the untraced-switch fix (CNT_OFF_UNTRACED) is not a loss. The
 * kernel side's counting cannot be provoked at will (it needs a switch the
 * kernel does not trace): the integration tests of waits allow for counted
 * losses only (tests/integ/test_offcpu.c, test_cpu_split.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture/summary.h"

static void sample_losses(uint64_t counter, uint64_t n, const char *want)
{
	struct sampler_stats *st = calloc(1, sizeof(*st));
	struct strbuf b = {};

	assert_non_null(st);
	st->counter[counter] = n;
	summary__sample_losses(st, &b);
	assert_string_equal(b.len ? b.s : "", want);
	strbuf__free(&b);
	free(st);
}

static void test_offcpu_losses(void **state)
{
	(void)state;
	sample_losses(CNT_OFF_NO_START, 2, "2 blocks off the CPU (their switch away not traced)");
	sample_losses(CNT_OFF_NO_STORAGE, 1,
		      "1 blocks off the CPU (no task storage for their start)");
	sample_losses(CNT_OFF_DROPPED, 3, "3 blocks off the CPU (map full)");
	sample_losses(CNT_OFF_UNTRACED, 5, ""); /* ended by the thread's CPU time: kept */
	sample_losses(CNT_OFF_BLOCKS, 7, "");
}

static void test_split_losses(void **state)
{
	struct tracer_stats *st = calloc(1, sizeof(*st));
	struct strbuf b = {};

	(void)state;
	assert_non_null(st);
	st->counter[TCNT_SPLIT_NO_OUT] = 4;
	st->counter[TCNT_SPLIT_UNTRACED] = 9; /* kept: no loss */
	summary__trace_losses(st, &b);
	assert_string_equal(b.s, "4 blocks off the CPU counted as on it (--cpu-split: their switch "
				 "away not traced)");
	strbuf__free(&b);
	free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offcpu_losses),
		cmocka_unit_test(test_split_losses),
	};

	return cmocka_run_group_tests_name("summary_losses", tests, NULL, NULL);
}
