/* Unit tests of src/capture/catch_sites.c: the exception probes of Debian's
 * libstdc++ and their cookies; none in binaries without libstdcxx probes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/types.h>

#include "capture/catch_sites.h"
#include "trace.h"

#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"

static unsigned int kind_of(uint64_t cookie)
{
	return cookie >> TRACE_EXC_KIND_SHIFT & 0xff;
}

static void find_in(const char *path, struct catch_sites *s)
{
	struct binaries b = { 0 };

	assert_int_equal(binaries__add_path(&b, path), 0);
	assert_int_equal(catch_sites__find(&b, s), 0);
	binaries__free(&b);
}

/* One catch site, whose caller's stack pointer is rsp plus a few words,
 * a little way into __cxa_begin_catch; throw and rethrow counted. */
static void test_libstdcxx(void **state)
{
	struct catch_sites s;
	size_t catches = 0, throws = 0;

	(void)state;
	if (access(LIBSTDCXX, R_OK))
		skip();
	find_in(LIBSTDCXX, &s);
	assert_int_equal(s.n, 1);
	for (size_t i = 0; i < s.v[0].n; i++) {
		uint64_t c = s.v[0].cookies[i];
		int32_t cfa = (int32_t)c;
		unsigned int into = c >> TRACE_EXC_INTO_SHIFT & 0xffff;

		assert_int_equal(s.v[0].ref_ctrs[i], 0);
		if (kind_of(c) == TRACE_EXC_THROW) {
			throws++;
			assert_int_equal(c, (uint64_t)TRACE_EXC_THROW << TRACE_EXC_KIND_SHIFT);
			continue;
		}
		assert_int_equal(kind_of(c), TRACE_EXC_CATCH);
		catches++;
		print_message("catch: CFA %s+%d, %u bytes into its function\n",
			      c & TRACE_EXC_RBP ? "rbp" : "rsp", cfa, into);
		assert_false(c & TRACE_EXC_RBP);
		assert_true(cfa >= 8 && cfa < 4096 && cfa % 8 == 0);
		assert_true(into > 0 && into < 4096);
	}
	assert_int_equal(catches, 1);
	assert_int_equal(throws, 2);
	catch_sites__free(&s);
}

/* USDT probes of another provider, and none at all: nothing. */
static void test_none(void **state)
{
	struct catch_sites s;

	(void)state;
	find_in(FIXTURE_DIR "/sdtfix_pie", &s);
	assert_int_equal(s.n, 0);
	catch_sites__free(&s);
	find_in(FIXTURE_DIR "/symfix_pie", &s);
	assert_int_equal(s.n, 0);
	catch_sites__free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libstdcxx),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests_name("catch_sites", tests, NULL, NULL);
}
