/* Unit tests of src/util/hashmap.c: the u64 -> u64 map the profile indexes with. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <string.h>

#include "util/hashmap.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

static void expect_get(const struct hashmap *m, uint64_t key, uint64_t want)
{
	uint64_t got = SENTINEL;

	if (!hashmap__get(m, key, &got))
		fail_msg("key 0x%" PRIx64 ": missing, expected 0x%" PRIx64, key, want);
	if (got != want)
		fail_msg("key 0x%" PRIx64 ": got 0x%" PRIx64 ", expected 0x%" PRIx64, key, got,
			 want);
}

static void expect_missing(const struct hashmap *m, uint64_t key)
{
	uint64_t got = SENTINEL;

	if (hashmap__get(m, key, &got))
		fail_msg("key 0x%" PRIx64 ": found 0x%" PRIx64 ", expected none", key, got);
	assert_true(got == SENTINEL);
}

static void test_empty(void **state)
{
	struct hashmap m = {};

	(void)state;
	expect_missing(&m, 0);
	expect_missing(&m, 1);
	expect_missing(&m, UINT64_MAX);
	assert_int_equal(m.n, 0);
	hashmap__free(&m);
	hashmap__free(&m); /* freeing twice is harmless: free() zeroes the map */
	assert_null(m.slots);
	assert_int_equal(m.cap, 0);
}

static void test_set_get_overwrite(void **state)
{
	struct hashmap m = {};

	(void)state;
	assert_int_equal(hashmap__set(&m, 10, 100), 0);
	assert_int_equal(hashmap__set(&m, 20, 200), 0);
	assert_int_equal(hashmap__set(&m, 30, 300), 0);
	assert_int_equal(m.n, 3);
	expect_get(&m, 10, 100);
	expect_get(&m, 20, 200);
	expect_get(&m, 30, 300);
	expect_missing(&m, 40);
	expect_missing(&m, 11);

	assert_int_equal(hashmap__set(&m, 20, 201), 0);
	assert_int_equal(m.n, 3);
	expect_get(&m, 20, 201);
	expect_get(&m, 10, 100);
	expect_get(&m, 30, 300);

	assert_int_equal(hashmap__set(&m, 20, 0), 0);
	expect_get(&m, 20, 0);
	assert_int_equal(hashmap__set(&m, 30, UINT64_MAX), 0);
	expect_get(&m, 30, UINT64_MAX);
	assert_int_equal(m.n, 3);
	hashmap__free(&m);
	assert_int_equal(m.n, 0);
	expect_missing(&m, 10);
}

static void test_extreme_keys(void **state)
{
	struct hashmap m = {};

	(void)state;
	assert_int_equal(hashmap__set(&m, 0, 7), 0);
	expect_get(&m, 0, 7);
	expect_missing(&m, UINT64_MAX);
	assert_int_equal(hashmap__set(&m, UINT64_MAX, 8), 0);
	assert_int_equal(hashmap__set(&m, 1, 9), 0);
	assert_int_equal(hashmap__set(&m, (uint64_t)1 << 63, 10), 0);
	assert_int_equal(m.n, 4);
	expect_get(&m, 0, 7);
	expect_get(&m, UINT64_MAX, 8);
	expect_get(&m, 1, 9);
	expect_get(&m, (uint64_t)1 << 63, 10);
	expect_missing(&m, UINT64_MAX - 1);
	expect_missing(&m, 2);
	assert_int_equal(hashmap__set(&m, 0, 70), 0);
	assert_int_equal(m.n, 4);
	expect_get(&m, 0, 70);
	hashmap__free(&m);
}

/* Keys that share their low bits (addresses, pid << 32) must not clump. */
static void test_strided_keys(void **state)
{
	struct hashmap m = {};
	const uint64_t n = 4096;

	(void)state;
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(hashmap__set(&m, i << 32, i), 0);
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(hashmap__set(&m, 0xffffffff81000000ULL + (i << 12), i + n), 0);
	assert_int_equal(m.n, 2 * n);
	for (uint64_t i = 0; i < n; i++) {
		expect_get(&m, i << 32, i);
		expect_get(&m, 0xffffffff81000000ULL + (i << 12), i + n);
		expect_missing(&m, (i << 32) | 1);
	}
	hashmap__free(&m);
}

static uint64_t key_of(uint64_t i)
{
	return i * 0x9e3779b97f4a7c15ULL + 3;
}

static void test_growth(void **state)
{
	const uint64_t n = 1000000;
	struct hashmap m = {};

	(void)state;
	for (uint64_t i = 0; i < n; i++) {
		if (hashmap__set(&m, key_of(i), ~i))
			fail_msg("set #%" PRIu64 " failed", i);
	}
	assert_int_equal(m.n, n);
	assert_true(m.cap >= 2 * n);
	assert_int_equal(m.cap & (m.cap - 1), 0);
	for (uint64_t i = 0; i < n; i++)
		expect_get(&m, key_of(i), ~i);
	for (uint64_t i = n; i < n + 10000; i++)
		expect_missing(&m, key_of(i));

	/* Overwriting every entry leaves the size alone. */
	for (uint64_t i = 0; i < n; i += 3)
		assert_int_equal(hashmap__set(&m, key_of(i), i), 0);
	assert_int_equal(m.n, n);
	for (uint64_t i = 0; i < n; i++)
		expect_get(&m, key_of(i), i % 3 ? ~i : i);
	hashmap__free(&m);
}

static void test_hash_functions(void **state)
{
	static const char a[] = "libc.so.6", b[] = "libc.so.7";

	(void)state;
	assert_true(hash_bytes(a, strlen(a), 0) == hash_bytes("libc.so.6", 9, 0));
	assert_true(hash_bytes(a, strlen(a), 0) != hash_bytes(b, strlen(b), 0));
	assert_true(hash_bytes(a, strlen(a), 0) != hash_bytes(a, strlen(a), 1));
	assert_true(hash_bytes(a, 4, 0) != hash_bytes(a, 5, 0));
	/* n == 0 reads nothing: only the seed matters. */
	assert_true(hash_bytes(a, 0, 5) == hash_bytes(b, 0, 5));
	assert_true(hash_mix(1) != hash_mix(2));
	assert_true(hash_mix(42) == hash_mix(42));
	assert_true(hash_mix(1) != 1);
}

/* 0 is a key like any other, though it marks empty slots inside. */
static void test_zero_key(void **state)
{
	struct hashmap m = {};
	uint64_t v = 0;

	(void)state;
	assert_int_equal(hashmap__set(&m, 0, 7), 0);
	assert_true(hashmap__get(&m, 0, &v));
	assert_int_equal(v, 7);
	assert_int_equal(m.n, 1);
	assert_int_equal(hashmap__set(&m, 0, 8), 0);
	assert_int_equal(m.n, 1);
	for (uint64_t k = 1; k <= 1000; k++)
		assert_int_equal(hashmap__set(&m, k, k * 3), 0);
	assert_true(hashmap__get(&m, 0, &v));
	assert_int_equal(v, 8);
	assert_int_equal(m.n, 1001);
	hashmap__free(&m);
}

/* Every byte counts, the tail's too, and the length. */
static void test_hash_bytes(void **state)
{
	const char s[] = "abcdefghijklmnopqrstuvwxyz";

	(void)state;
	for (size_t n = 0; n < sizeof(s) - 1; n++) {
		char c[sizeof(s)];

		assert_true(hash_bytes(s, n, 0) != hash_bytes(s, n + 1, 0));
		assert_true(hash_bytes(s, n, 0) != hash_bytes(s, n, 1));
		memcpy(c, s, sizeof(s));
		for (size_t i = 0; i < n; i++) {
			c[i] ^= 1;
			assert_true(hash_bytes(c, n, 0) != hash_bytes(s, n, 0));
			c[i] ^= 1;
		}
		assert_true(hash_bytes(c, n, 0) == hash_bytes(s, n, 0));
	}
	assert_true(hash_bytes("\0", 1, 0) != hash_bytes("", 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_key),     cmocka_unit_test(test_hash_bytes),
		cmocka_unit_test(test_empty),	     cmocka_unit_test(test_set_get_overwrite),
		cmocka_unit_test(test_extreme_keys), cmocka_unit_test(test_strided_keys),
		cmocka_unit_test(test_growth),	     cmocka_unit_test(test_hash_functions),
	};

	return cmocka_run_group_tests_name("hashmap", tests, NULL, NULL);
}
