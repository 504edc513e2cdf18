/* Unit tests of src/util/strpool.c: texts kept once, held by a count, the
 * unheld ones freed by a trim (ASan and LSan check the frees themselves). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "util/strpool.h"

/* The same text gives the same pointer, another text another one, and a
 * copy of the text (another buffer) the first pointer still. */
static void test_shared(void **state)
{
	struct strpool p = { 0 };
	char copy[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	const char *a = strpool__get(&p, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	const char *b = strpool__get(&p, copy);
	const char *c = strpool__get(&p, "/usr/bin/true");

	(void)state;
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, copy);
	assert_string_equal(c, "/usr/bin/true");
	assert_ptr_not_equal(a, c);
	assert_int_equal(p.held, 2);
	strpool__put(&p, a);
	strpool__put(&p, b);
	strpool__put(&p, c);
	assert_int_equal(p.held, 0);
	strpool__free(&p);
}

/* A text let go by all stays until a trim, which keeps the held ones: got
 * again before the trim, it is the same text; after, a new one. */
static void test_trim(void **state)
{
	struct strpool p = { 0 };
	const char *kept = strpool__get(&p, "/kept");
	const char *gone = strpool__get(&p, "/gone");

	(void)state;
	strpool__put(&p, gone);
	assert_ptr_equal(strpool__get(&p, "/gone"), gone);
	assert_int_equal(p.held, 2);
	strpool__put(&p, gone);
	assert_int_equal(strpool__trim(&p), 0);
	assert_int_equal(p.by_hash.n, 1);
	assert_ptr_equal(strpool__get(&p, "/kept"), kept);
	strpool__put(&p, kept);
	gone = strpool__get(&p, "/gone");
	assert_string_equal(gone, "/gone");
	strpool__put(&p, gone);
	strpool__put(&p, kept);
	strpool__free(&p);
}

/* Thousands of mappings of a few files: as many texts as files. */
static void test_many_holders(void **state)
{
	static const char *const files[] = { "/lib/a.so", "/lib/b.so", "/lib/c.so" };
	const char *got[3000];
	struct strpool p = { 0 };

	(void)state;
	for (size_t i = 0; i < 3000; i++) {
		got[i] = strpool__get(&p, files[i % 3]);
		assert_ptr_equal(got[i], got[i % 3]);
	}
	assert_int_equal(p.by_hash.n, 3);
	for (size_t i = 0; i < 3000; i++)
		strpool__put(&p, got[i]);
	assert_int_equal(p.held, 0);
	assert_int_equal(strpool__trim(&p), 0);
	assert_int_equal(p.by_hash.n, 0);
	strpool__free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_many_holders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
