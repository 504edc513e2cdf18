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

/* The ids the eviction took off the kernel side's map, in order. */
struct unsent {
	uint64_t id[8];
	size_t n;
};

static void note_unsent(uint64_t id, void *arg)
{
	struct unsent *u = arg;

	if (u->n < 8)
		u->id[u->n++] = id;
}

/* A stack unused for the ages given is first taken off the sent map, then
 * freed an age later unless a sample used it (or sent it again) between. */
static void test_evict_two_steps(void **state)
{
	struct stack_table t = {};
	const uint64_t a[] = { 0x1000 }, b[] = { 0x2000 }, c[] = { 0x3000 };
	struct unsent u = {};

	(void)state;
	assert_int_equal(stack_table__add(&t, 1, a, 1), 0);
	assert_int_equal(stack_table__add(&t, 2, b, 1), 0);
	assert_int_equal(stack_table__add(&t, 3, c, 1), 0);
	/* age 0: all used in it */
	assert_int_equal(stack_table__evict(&t, 1, note_unsent, &u), 0);
	assert_int_equal(u.n, 0);
	/* age 1: 1 used; 2 and 3 not: unsent */
	assert_non_null(stack_table__use(&t, 1));
	assert_int_equal(stack_table__evict(&t, 1, note_unsent, &u), 0);
	assert_int_equal(u.n, 2);
	assert_true(u.id[0] == 2 && u.id[1] == 3);
	/* age 2: a sample raced the unsending and used 2; 3 was sent again */
	assert_non_null(stack_table__use(&t, 2));
	assert_int_equal(stack_table__add(&t, 3, c, 1), 0);
	assert_int_equal(stack_table__evict(&t, 1, note_unsent, &u), 0);
	/* 1 unused since age 1: unsent now */
	assert_int_equal(u.n, 3);
	assert_true(u.id[2] == 1);
	/* age 3: nothing used; 1 freed, 2 and 3 unsent */
	assert_int_equal(stack_table__evict(&t, 1, note_unsent, &u), 1);
	assert_null(stack_table__find(&t, 1));
	assert_non_null(stack_table__find(&t, 2));
	assert_int_equal(u.n, 5);
	/* age 4: 2 and 3 freed */
	assert_int_equal(stack_table__evict(&t, 1, note_unsent, &u), 2);
	assert_null(stack_table__find(&t, 2));
	assert_null(stack_table__find(&t, 3));
	assert_int_equal(t.n, 0);
	/* let go, a stack is new again when it comes */
	assert_int_equal(stack_table__add(&t, 3, c, 1), 0);
	assert_non_null(stack_table__find(&t, 3));
	stack_table__free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find),
		cmocka_unit_test(test_resend_and_collision),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_evict_two_steps),
	};

	return cmocka_run_group_tests_name("stack_table", tests, NULL, NULL);
}
