// SPDX-License-Identifier: GPL-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "capture/stack_table.h"

static void test_add_find(void **state)
{
	struct stack_table t = {};
	const uint64_t a[] = { 0x1000, 0x2000, 0x3000 }, b[] = { 0x4000 };
	const struct raw_stack *s;

	(void)state;
	assert_int_equal(stack_table__add(&t, 7, a, 3), 0);
	assert_int_equal(stack_table__add(&t, 8, b, 1), 0);
	s = stack_table__find(&t, 7);
	assert_non_null(s);
	assert_int_equal(s->nr, 3);
	assert_memory_equal(s->ip, a, sizeof(a));
	s = stack_table__find(&t, 8);
	assert_non_null(s);
	assert_int_equal(s->nr, 1);
	assert_true(s->ip[0] == 0x4000);
	assert_null(stack_table__find(&t, 9));
	assert_int_equal(t.n, 2);
	stack_table__free(&t);
}

/* A resent stack is stored once; different contents under one id are a
 * collision: counted, the first kept. */
static void test_resend_and_collision(void **state)
{
	struct stack_table t = {};
	const uint64_t a[] = { 1, 2 }, b[] = { 1, 3 }, c[] = { 1 };

	(void)state;
	assert_int_equal(stack_table__add(&t, 5, a, 2), 0);
	assert_int_equal(stack_table__add(&t, 5, a, 2), 0);
	assert_int_equal(t.collisions, 0);
	assert_int_equal(stack_table__add(&t, 5, b, 2), 0);
	assert_int_equal(stack_table__add(&t, 5, c, 1), 0);
	assert_int_equal(t.collisions, 2);
	assert_int_equal(t.n, 1);
	assert_true(stack_table__find(&t, 5)->ip[1] == 2);
	stack_table__free(&t);
}

static void test_many(void **state)
{
	struct stack_table t = {};
	uint64_t ip[4];

	(void)state;
	for (uint64_t id = 2; id < 50002; id++) {
		for (int i = 0; i < 4; i++)
			ip[i] = id * 16 + i;
		assert_int_equal(stack_table__add(&t, id, ip, 1 + id % 4), 0);
	}
	for (uint64_t id = 2; id < 50002; id++) {
		const struct raw_stack *s = stack_table__find(&t, id);

		assert_non_null(s);
		assert_int_equal(s->nr, 1 + id % 4);
		assert_true(s->ip[s->nr - 1] == id * 16 + s->nr - 1);
	}
	assert_int_equal(t.collisions, 0);
	stack_table__free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find),
		cmocka_unit_test(test_resend_and_collision),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests_name("stack_table", tests, NULL, NULL);
}
