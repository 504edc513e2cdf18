/* Unit tests of src/util/pid_registry.c: an entry per pid, made on first
 * need, made as new when forgotten, released once at the end (ASan and LSan
 * check the frees themselves). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/pid_registry.h"

#define FRESH 0x5a5a

struct entry {
	pid_t pid;
	int mark;	  /* FRESH as made */
	char *held;	  /* what a release frees */
	size_t *released; /* counts the releases, when not NULL */
};

static void init_entry(void *p, pid_t pid)
{
	*(struct entry *)p = (struct entry){ .pid = pid, .mark = FRESH };
}

static void release_entry(void *p)
{
	struct entry *e = p;

	free(e->held);
	e->held = NULL;
	if (e->released)
		(*e->released)++;
}

/* pid's entry, made now, holding memory a release must free. */
static struct entry *held_entry(struct pid_registry *r, pid_t pid, size_t *released)
{
	struct entry *e = pid_registry__findnew(r, pid);

	assert_non_null(e);
	assert_int_equal(e->pid, pid);
	assert_int_equal(e->mark, FRESH);
	e->held = strdup("held");
	assert_non_null(e->held);
	e->released = released;
	return e;
}

static void test_empty(void **state)
{
	struct pid_registry r;

	(void)state;
	pid_registry__init(&r, sizeof(struct entry), init_entry, release_entry);
	assert_null(pid_registry__find(&r, 1));
	assert_null(pid_registry__find(&r, 0));
	assert_int_equal(pid_registry__count(&r), 0);
	pid_registry__forget(&r, 1); /* nothing to forget */
	assert_int_equal(pid_registry__count(&r), 0);
	pid_registry__free(&r);
	pid_registry__free(&r); /* freeing twice is harmless */
	assert_null(pid_registry__find(&r, 1));
}

/* Made once: a second findnew finds what the first made, as it was left. */
static void test_findnew(void **state)
{
	struct pid_registry r;
	struct entry *e;

	(void)state;
	pid_registry__init(&r, sizeof(struct entry), init_entry, release_entry);
	e = pid_registry__findnew(&r, 42);
	assert_non_null(e);
	assert_int_equal(e->pid, 42);
	assert_int_equal(e->mark, FRESH);
	e->mark = 7;
	assert_ptr_equal(pid_registry__findnew(&r, 42), e);
	assert_ptr_equal(pid_registry__find(&r, 42), e);
	assert_int_equal(e->mark, 7);
	assert_null(pid_registry__find(&r, 43));
	assert_int_equal(pid_registry__count(&r), 1);
	assert_ptr_equal(pid_registry__at(&r, 0), e);
	pid_registry__free(&r);
}

/* Entries move as more are made: each pid still finds its own, and the
 * iteration gives them in the order they were made, pid 0 and the largest
 * included. */
static void test_many(void **state)
{
	const pid_t n = 5000;
	struct pid_registry r;
	size_t released = 0;

	(void)state;
	pid_registry__init(&r, sizeof(struct entry), init_entry, release_entry);
	held_entry(&r, 0, &released);
	held_entry(&r, INT_MAX, &released);
	for (pid_t pid = 1; pid <= n; pid++)
		held_entry(&r, pid * 7, &released);
	assert_int_equal(pid_registry__count(&r), n + 2);
	for (pid_t pid = 1; pid <= n; pid++) {
		const struct entry *e = pid_registry__find(&r, pid * 7);

		assert_non_null(e);
		assert_int_equal(e->pid, pid * 7);
		assert_ptr_equal(pid_registry__at(&r, (size_t)pid + 1), e);
		assert_null(pid_registry__find(&r, pid * 7 + 1));
	}
	assert_int_equal(((struct entry *)pid_registry__find(&r, 0))->pid, 0);
	assert_int_equal(((struct entry *)pid_registry__at(&r, 1))->pid, INT_MAX);
	pid_registry__free(&r);
	assert_int_equal(released, n + 2);
	assert_int_equal(pid_registry__count(&r), 0);
}

/* A forgotten pid's entry is released and made as new, in its place; the
 * others are left as they were, and the end releases each entry once. */
static void test_forget(void **state)
{
	struct pid_registry r;
	size_t released = 0;
	struct entry *e;

	(void)state;
	pid_registry__init(&r, sizeof(struct entry), init_entry, release_entry);
	for (pid_t pid = 100; pid < 103; pid++)
		held_entry(&r, pid, &released)->mark = pid;
	pid_registry__forget(&r, 101);
	assert_int_equal(released, 1);
	e = pid_registry__find(&r, 101);
	assert_non_null(e);
	assert_ptr_equal(pid_registry__at(&r, 1), e);
	assert_int_equal(e->pid, 101);
	assert_int_equal(e->mark, FRESH);
	assert_null(e->held);
	assert_int_equal(pid_registry__count(&r), 3);
	assert_int_equal(((struct entry *)pid_registry__find(&r, 100))->mark, 100);
	assert_string_equal(((struct entry *)pid_registry__find(&r, 102))->held, "held");

	pid_registry__forget(&r, 999); /* never seen: nothing released */
	assert_int_equal(released, 1);
	assert_null(pid_registry__find(&r, 999));

	/* the pid's next process fills the entry made as new */
	assert_ptr_equal(held_entry(&r, 101, &released), e);
	pid_registry__free(&r);
	assert_int_equal(released, 4);
}

/* Entries that hold nothing need no release. */
static void test_no_release(void **state)
{
	struct pid_registry r;
	struct entry *e;

	(void)state;
	pid_registry__init(&r, sizeof(struct entry), init_entry, NULL);
	e = pid_registry__findnew(&r, 5);
	assert_non_null(e);
	e->mark = 1;
	pid_registry__forget(&r, 5);
	assert_int_equal(e->mark, FRESH);
	pid_registry__free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),	   cmocka_unit_test(test_findnew),
		cmocka_unit_test(test_many),	   cmocka_unit_test(test_forget),
		cmocka_unit_test(test_no_release),
	};

	return cmocka_run_group_tests_name("pid_registry", tests, NULL, NULL);
}
