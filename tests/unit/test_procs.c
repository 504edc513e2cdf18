/* Unit tests of src/symbols/procs.c's mapping history: mappings recorded as they were
 * made (src/capture/mmap_events.c), and the maps a forked child inherited, name the
 * addresses of a process that is gone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/procs.h"

/* No process has this pid (above pid_max's limit of 4M). */
#define GONE_PID 999999999

static struct map_entry mapping(uint64_t start, uint64_t end, const char *path)
{
	return (struct map_entry){
		.start = start, .end = end, .perms = "r-xp", .path = (char *)path
	};
}

static void test_history_of_exited_process(void **state)
{
	struct procs *ps = procs__new();
	struct map_entry a = mapping(0x1000, 0x3000, "/usr/bin/cc1"),
			 b = mapping(0x7000, 0x8000, "/usr/lib/libc.so.6");
	const struct map_entry *e;

	(void)state;
	assert_non_null(ps);
	assert_int_equal(procs__add_history(ps, GONE_PID, &a), 0);
	assert_int_equal(procs__add_history(ps, GONE_PID, &b), 0);
	e = procs__find(ps, GONE_PID, 0x2fff);
	assert_non_null(e);
	assert_string_equal(e->path, "/usr/bin/cc1");
	/* the path was copied */
	assert_ptr_not_equal(e->path, a.path);
	e = procs__find(ps, GONE_PID, 0x7000);
	assert_non_null(e);
	assert_string_equal(e->path, "/usr/lib/libc.so.6");
	assert_null(procs__find(ps, GONE_PID, 0x3000));
	assert_null(procs__find(ps, GONE_PID, 0x6fff));
	/* another process's history is its own */
	assert_null(procs__find(ps, GONE_PID - 1, 0x2000));
	procs__free(ps);
}

/* A later mapping at the same address (after an exec, or a remap) wins. */
static void test_newest_mapping_wins(void **state)
{
	struct procs *ps = procs__new();
	struct map_entry old = mapping(0x1000, 0x5000, "/bin/sh"),
			 new = mapping(0x2000, 0x3000, "/usr/bin/make");

	(void)state;
	assert_int_equal(procs__add_history(ps, GONE_PID, &old), 0);
	assert_int_equal(procs__add_history(ps, GONE_PID, &new), 0);
	assert_string_equal(procs__find(ps, GONE_PID, 0x2800)->path, "/usr/bin/make");
	assert_string_equal(procs__find(ps, GONE_PID, 0x4000)->path, "/bin/sh");
	procs__free(ps);
}

/* A process mapping code forever cannot make us keep it all. */
static void test_history_bounded(void **state)
{
	struct procs *ps = procs__new();
	int err = 0;
	size_t n = 0;

	(void)state;
	while (!err && n < 100000) {
		struct map_entry e = mapping(0x1000 * (n + 1), 0x1000 * (n + 2), "/jit");

		err = procs__add_history(ps, GONE_PID, &e);
		n += !err;
	}
	assert_int_equal(err, -ENOSPC);
	assert_true(n >= 1000 && n < 100000);
	procs__free(ps);
}

/* A child that forked and did not exec has its parent's maps; once it
 * exec'd it has only its own. */
static void test_parent_maps(void **state)
{
	struct procs *ps = procs__new();
	struct map_entry e = mapping(0x1000, 0x2000, "/usr/bin/server");

	(void)state;
	assert_int_equal(procs__add_history(ps, GONE_PID, &e), 0);
	assert_int_equal(procs__set_parent(ps, GONE_PID - 1, GONE_PID), 0);
	assert_int_equal(procs__set_parent(ps, GONE_PID - 2, GONE_PID - 1), 0);
	assert_string_equal(procs__find(ps, GONE_PID - 1, 0x1800)->path, "/usr/bin/server");
	/* a grandchild, through its parent */
	assert_string_equal(procs__find(ps, GONE_PID - 2, 0x1800)->path, "/usr/bin/server");
	assert_null(procs__find(ps, GONE_PID - 1, 0x2800));
	/* exec'd */
	assert_int_equal(procs__set_parent(ps, GONE_PID - 1, 0), 0);
	assert_null(procs__find(ps, GONE_PID - 1, 0x1800));
	/* a loop of parents ends */
	assert_int_equal(procs__set_parent(ps, GONE_PID - 3, GONE_PID - 4), 0);
	assert_int_equal(procs__set_parent(ps, GONE_PID - 4, GONE_PID - 3), 0);
	assert_null(procs__find(ps, GONE_PID - 3, 0x1800));
	procs__free(ps);
}

/* Evicting forgets what was known of the processes let go, and only of
 * them; the bound of all histories counts what remains. */
static bool keep_odd(pid_t pid, void *arg)
{
	(void)arg;
	return pid % 2;
}

static void test_evict(void **state)
{
	struct procs *ps = procs__new();
	struct map_entry a = mapping(0x1000, 0x2000, "/usr/bin/x");

	(void)state;
	assert_non_null(ps);
	for (pid_t pid = GONE_PID - 9; pid <= GONE_PID; pid++)
		assert_int_equal(procs__add_history(ps, pid, &a), 0);
	assert_int_equal(procs__evict(ps, keep_odd, NULL), 5);
	assert_int_equal(procs__size(ps), 5);
	for (pid_t pid = GONE_PID - 9; pid <= GONE_PID; pid++) {
		const struct map_entry *e = procs__find(ps, pid, 0x1000);

		if (pid % 2 ? !e : !!e)
			fail_msg("pid %d: %s", pid, e ? "still known" : "forgotten");
	}
	/* a pid let go is new again */
	assert_int_equal(procs__add_history(ps, GONE_PID - 1, &a), 0);
	assert_non_null(procs__find(ps, GONE_PID - 1, 0x1000));
	procs__free(ps);
}

/* Trimming keeps each process's newest snapshot, which still names its
 * addresses. */
static void test_trim(void **state)
{
	struct procs *ps = procs__new();
	const struct map_entry *e;

	(void)state;
	assert_non_null(ps);
	for (int i = 0; i < 3; i++)
		assert_int_equal(procs__snapshot(ps, getpid()), 0);
	assert_int_equal(procs__trim(ps), 2);
	assert_int_equal(procs__trim(ps), 0);
	e = procs__find(ps, getpid(), (uint64_t)(uintptr_t)&test_trim);
	assert_non_null(e);
	assert_non_null(strstr(e->path, "test_procs"));
	procs__free(ps);
}

/* A process sampled has its parents marked too, those it forked from
 * without an exec, whose maps name its addresses: whether the fork is
 * known before the sample or after. */
static void test_sampled_parents(void **state)
{
	struct procs *ps = procs__new();
	struct map_entry x = mapping(0x1000, 0x2000, "/usr/bin/x");

	(void)state;
	assert_non_null(ps);
	assert_int_equal(procs__add_history(ps, GONE_PID - 2, &x), 0);
	assert_int_equal(procs__set_parent(ps, GONE_PID, GONE_PID - 1), 0);
	assert_int_equal(procs__set_parent(ps, GONE_PID - 1, GONE_PID - 2), 0);
	assert_false(procs__sampled(ps, GONE_PID - 2));
	assert_int_equal(procs__note_sampled(ps, GONE_PID), 0);
	assert_true(procs__sampled(ps, GONE_PID));
	assert_true(procs__sampled(ps, GONE_PID - 1));
	assert_true(procs__sampled(ps, GONE_PID - 2));
	assert_false(procs__sampled(ps, GONE_PID - 3));
	/* sampled first, its fork known after */
	assert_int_equal(procs__note_sampled(ps, GONE_PID - 5), 0);
	assert_false(procs__sampled(ps, GONE_PID - 6));
	assert_int_equal(procs__add_history(ps, GONE_PID - 6, &x), 0);
	assert_int_equal(procs__set_parent(ps, GONE_PID - 5, GONE_PID - 6), 0);
	assert_true(procs__sampled(ps, GONE_PID - 6));
	procs__free(ps);
}

/* Dropping a process's recorded mappings forgets them, gives their room
 * in the bound of all histories back, and keeps the process's other
 * knowledge (here, that it was sampled). */
static void test_drop_history(void **state)
{
	struct procs *ps = procs__new();
	struct map_entry a = mapping(0x1000, 0x2000, "/usr/bin/x");

	(void)state;
	assert_non_null(ps);
	assert_int_equal(procs__add_history(ps, GONE_PID, &a), 0);
	assert_int_equal(procs__add_history(ps, GONE_PID, &a), 0);
	assert_int_equal(procs__note_sampled(ps, GONE_PID), 0);
	assert_non_null(procs__find(ps, GONE_PID, 0x1000));
	assert_int_equal(procs__drop_history(ps, GONE_PID), 2);
	assert_null(procs__find(ps, GONE_PID, 0x1000));
	assert_true(procs__sampled(ps, GONE_PID));
	assert_int_equal(procs__drop_history(ps, GONE_PID), 0);
	assert_int_equal(procs__drop_history(ps, GONE_PID - 1), 0);
	assert_int_equal(procs__add_history(ps, GONE_PID, &a), 0);
	assert_non_null(procs__find(ps, GONE_PID, 0x1000));
	procs__free(ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_of_exited_process),
		cmocka_unit_test(test_newest_mapping_wins),
		cmocka_unit_test(test_history_bounded),
		cmocka_unit_test(test_parent_maps),
		cmocka_unit_test(test_evict),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_sampled_parents),
		cmocka_unit_test(test_drop_history),
	};

	return cmocka_run_group_tests_name("procs", tests, NULL, NULL);
}
