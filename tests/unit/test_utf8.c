/* Unit tests of src/util/utf8.c: what counts as one well-formed sequence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "util/utf8.h"

static size_t len_of(const char *s)
{
	return utf8__seq_len((const unsigned char *)s, strlen(s));
}

static void test_well_formed(void **state)
{
	(void)state;
	assert_int_equal(len_of("a"), 1);
	assert_int_equal(len_of("\xc3\xa9"), 2);	 /* é */
	assert_int_equal(len_of("\xe2\x82\xac"), 3);	 /* € */
	assert_int_equal(len_of("\xf0\x9f\x94\xa5"), 4); /* fire */
	assert_int_equal(len_of("\xef\xbf\xbf"), 3);	 /* U+FFFF */
	assert_int_equal(len_of("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
}

static void test_ill_formed(void **state)
{
	(void)state;
	assert_int_equal(len_of("\x80"), 0);		 /* a lone continuation */
	assert_int_equal(len_of("\xc3"), 0);		 /* truncated */
	assert_int_equal(len_of("\xc3("), 0);		 /* bad continuation */
	assert_int_equal(len_of("\xc0\xaf"), 0);	 /* overlong '/' */
	assert_int_equal(len_of("\xe0\x80\xaf"), 0);	 /* overlong, 3 bytes */
	assert_int_equal(len_of("\xed\xa0\x80"), 0);	 /* a surrogate */
	assert_int_equal(len_of("\xf4\x90\x80\x80"), 0); /* above U+10FFFF */
	assert_int_equal(len_of("\xff"), 0);
	assert_int_equal(utf8__seq_len((const unsigned char *)"\xe2\x82\xac", 2), 0);
	assert_int_equal(utf8__seq_len((const unsigned char *)"", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_well_formed),
		cmocka_unit_test(test_ill_formed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
