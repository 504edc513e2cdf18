/* Unit tests of src/symbols/kallsyms.c: synthetic files with known answers, then the
 * running kernel's /proc/kallsyms when it shows addresses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbols/kallsyms.h"
#include "util.h"

/* Writes text to a new temporary file; the caller unlinks path. */
static void write_temp(char path[static 32], const char *text, size_t len)
{
	strcpy(path, "/tmp/test_kallsyms.XXXXXX");
	close(u_temp_file(path, text, len));
}

static int load_text(const char *text, struct kallsyms **k)
{
	char path[32];
	int err;

	write_temp(path, text, strlen(text));
	err = kallsyms__load(path, k);
	unlink(path);
	return err;
}

static void expect_sym(const struct kallsyms *k, uint64_t addr, const char *name, uint64_t off)
{
	uint64_t got = UINT64_MAX;
	const char *s = kallsyms__lookup(k, addr, &got);

	if (!s)
		fail_msg("0x%" PRIx64 ": no symbol, expected %s+%" PRIu64, addr, name, off);
	assert_string_equal(s, name);
	assert_true(got == off);
}

/* Modules are deliberately out of order: the file is not sorted. */
static const char synthetic[] = "ffffffffc0124000 T mod2_func\t[other]\n"
				"0000000000000000 A fixed_percpu_data\n"
				"ffffffff81000000 T _stext\n"
				"ffffffff81000000 T _text\n"
				"ffffffff81000100 t helper_local\n"
				"ffffffff81000200 t __do_work\n"
				"ffffffff81000200 T do_work\n"
				"ffffffff81000280 t local_alias\n"
				"ffffffff81000280 W weak_alias\n"
				"ffffffff81000300 w weak_fn\n"
				"ffffffff81000400 D some_data\n"
				"ffffffff81000450 T __mc\n"
				"ffffffff81000450 T memcpy\n"
				"ffffffff81000500 T last_core\n"
				"ffffffff81000600 b some_bss\n"
				"ffffffffc0123000 t mod_func\t[mymod]\n"
				"ffffffffc0123100 T mod_exported\t[mymod]\n";

static void test_synthetic_lookup(void **state)
{
	struct kallsyms *k;

	(void)state;
	assert_int_equal(load_text(synthetic, &k), 0);
	assert_null(kallsyms__lookup(k, 0, NULL));
	assert_null(kallsyms__lookup(k, 0xffffffff80ffffffULL, NULL));
	expect_sym(k, 0xffffffff81000000ULL, "_text", 0);
	expect_sym(k, 0xffffffff810000ffULL, "_text", 0xff);
	expect_sym(k, 0xffffffff81000150ULL, "helper_local", 0x50);
	expect_sym(k, 0xffffffff81000200ULL, "do_work", 0);
	expect_sym(k, 0xffffffff81000280ULL, "weak_alias", 0);
	expect_sym(k, 0xffffffff81000300ULL, "weak_fn", 0);
	/* Data symbols are not kept, so they do not end the text symbol before. */
	expect_sym(k, 0xffffffff81000400ULL, "weak_fn", 0x100);
	expect_sym(k, 0xffffffff81000450ULL, "memcpy", 0);
	expect_sym(k, 0xffffffff81000600ULL, "last_core", 0x100);
	expect_sym(k, 0xffffffffc0122fffULL, "last_core",
		   0xffffffffc0122fffULL - 0xffffffff81000500ULL);
	expect_sym(k, 0xffffffffc0123010ULL, "mod_func", 0x10);
	expect_sym(k, 0xffffffffc0123100ULL, "mod_exported", 0);
	expect_sym(k, 0xffffffffc0124000ULL, "mod2_func", 0);
	expect_sym(k, 0xffffffffc0124000ULL + 0xfffff, "mod2_func", 0xfffff);
	assert_null(kallsyms__lookup(k, 0xffffffffc0124000ULL + 0x100000, NULL));
	assert_null(kallsyms__lookup(k, UINT64_MAX, NULL));
	kallsyms__free(k);
}

static void test_no_trailing_newline(void **state)
{
	struct kallsyms *k;

	(void)state;
	assert_int_equal(load_text("ffffffff81000000 T a\nffffffff81000010 T b", &k), 0);
	expect_sym(k, 0xffffffff81000011ULL, "b", 1);
	kallsyms__free(k);
}

static void test_all_zero_is_eperm(void **state)
{
	struct kallsyms *k = (struct kallsyms *)1;

	(void)state;
	assert_int_equal(load_text("0000000000000000 T _stext\n"
				   "0000000000000000 T do_work\n"
				   "0000000000000000 D some_data\n"
				   "0000000000000000 t mod_func\t[mymod]\n",
				   &k),
			 -EPERM);
	assert_null(k);
	/* Zero addresses with no text symbol among them are still restricted. */
	assert_int_equal(load_text("0000000000000000 D some_data\n", &k), -EPERM);
}

static void test_empty_and_missing(void **state)
{
	struct kallsyms *k;

	(void)state;
	assert_int_equal(load_text("", &k), 0);
	assert_null(kallsyms__lookup(k, 0xffffffff81000000ULL, NULL));
	kallsyms__free(k);
	assert_int_equal(load_text("ffffffff81000000 D only_data\n", &k), 0);
	assert_null(kallsyms__lookup(k, 0xffffffff81000000ULL, NULL));
	kallsyms__free(k);
	assert_int_equal(kallsyms__load("/nonexistent/kallsyms", &k), -ENOENT);
	assert_null(k);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"ffffffff81000000 T\n",		/* no name */
		"ffffffff81000000 T \n",	/* empty name */
		"ffffffff81000000T foo\n",	/* no space after the address */
		"ffffffff81000000 Tfoo\n",	/* no space after the type */
		"zzzzzzzzzzzzzzzz T foo\n",	/* not hex */
		" ffffffff81000000 T foo\n",	/* leading space */
		"1ffffffff81000000 T foo\n",	/* over 64 bits */
		"ffffffff81000000 T foo bar\n", /* a space in the name */
		"ffffffff81000000 T \t[mod]\n", /* a module but no name */
		"\n",				/* empty line */
	};
	struct kallsyms *k;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (load_text(bad[i], &k) != -EINVAL)
			fail_msg("accepted malformed line %zu: '%s'", i, bad[i]);
		assert_null(k);
	}
}

static void test_embedded_nul(void **state)
{
	static const char text[] = "ffffffff81000000 T fo\0o\n";
	struct kallsyms *k;
	char path[32];

	(void)state;
	write_temp(path, text, sizeof(text) - 1);
	assert_int_equal(kallsyms__load(path, &k), -EINVAL);
	unlink(path);
}
static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Loads path whole and for the n queries alone (sorted and made unique
 * here), and expects the same answer of both for each query. */
static void expect_same_for(const char *path, uint64_t *q, size_t n)
{
	struct kallsyms *all, *some;
	size_t m = 0;

	qsort(q, n, sizeof(*q), u64_cmp);
	for (size_t i = 0; i < n; i++)
		if (!m || q[m - 1] != q[i])
			q[m++] = q[i];
	assert_int_equal(kallsyms__load(path, &all), 0);
	assert_int_equal(kallsyms__load_for(path, q, m, &some), 0);
	for (size_t i = 0; i < m; i++) {
		uint64_t off_all = UINT64_MAX, off_some = UINT64_MAX;
		const char *a = kallsyms__lookup(all, q[i], &off_all);
		const char *b = kallsyms__lookup(some, q[i], &off_some);

		if (!a || !b) {
			if (a != b)
				fail_msg("0x%" PRIx64 ": %s whole, %s for it", q[i], a ? a : "none",
					 b ? b : "none");
			continue;
		}
		assert_string_equal(b, a);
		assert_true(off_some == off_all);
	}
	kallsyms__free(all);
	kallsyms__free(some);
}

/* The synthetic file's queries, each alias and edge among them. */
static void test_load_for_synthetic(void **state)
{
	uint64_t q[] = { 0,
			 0xffffffff80ffffffULL,
			 0xffffffff81000000ULL,
			 0xffffffff810000ffULL,
			 0xffffffff81000150ULL,
			 0xffffffff81000200ULL,
			 0xffffffff81000280ULL,
			 0xffffffff81000300ULL,
			 0xffffffff81000400ULL,
			 0xffffffff81000450ULL,
			 0xffffffff81000600ULL,
			 0xffffffffc0122fffULL,
			 0xffffffffc0123010ULL,
			 0xffffffffc0123100ULL,
			 0xffffffffc0124000ULL,
			 0xffffffffc0124000ULL + 0xfffff,
			 0xffffffffc0124000ULL + 0x100000,
			 UINT64_MAX };
	char path[32];

	(void)state;
	write_temp(path, synthetic, strlen(synthetic));
	expect_same_for(path, q, sizeof(q) / sizeof(q[0]));
	/* one query alone: its symbol, not the file's first or last */
	expect_same_for(path, &q[8], 1);
	/* far above a symbol that is not the file's last: still that one */
	expect_same_for(path, &q[11], 1);
	unlink(path);
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The expected answer by linear scan over n unique, unsorted addresses. */
static long brute_lookup(const uint64_t *addrs, size_t n, uint64_t q)
{
	long best = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		if (addrs[i] <= q && (best < 0 || addrs[i] > addrs[best]))
			best = (long)i;
	}
	return best;
}

/* Shuffled symbols (so the tail sort and merge run) against a linear scan. */
static void test_random_against_scan(void **state)
{
	enum { N = 3000, QUERIES = 20000 };
	uint64_t *addrs = calloc(N, sizeof(*addrs)), rng = 0x9e3779b97f4a7c15ULL, q, last = 0;
	uint64_t addrs_q[N];
	char *text = malloc(N * 64), path[32], want[32];
	size_t i, len = 0;
	struct kallsyms *k;
	long best;

	(void)state;
	assert_non_null(addrs);
	assert_non_null(text);
	for (i = 0; i < N; i++) {
		/* Distinct by construction: the index sits in the low bits. */
		addrs[i] = 0xffffffff81000000ULL + (next_rand(&rng) % 4096) * 0x10000 + i * 16;
		len += (size_t)sprintf(text + len, "%016" PRIx64 " %c f%zu%s\n", addrs[i],
				       "tTwW"[i % 4], i, i % 7 ? "" : "\t[mod]");
		last = addrs[i] > last ? addrs[i] : last;
	}
	write_temp(path, text, len);
	assert_int_equal(kallsyms__load(path, &k), 0);
	for (i = 0; i < N; i++) /* a few queries of each gap's best and its aliases */
		addrs_q[i] = 0xffffffff81000000ULL - 0x1000 +
			     next_rand(&rng) % (4097ULL * 0x10000 + 0x200000);
	expect_same_for(path, addrs_q, N / 10);
	expect_same_for(path, addrs_q, N);
	unlink(path);
	for (i = 0; i < QUERIES; i++) {
		uint64_t off = 0;
		const char *got;

		q = 0xffffffff81000000ULL - 0x1000 +
		    next_rand(&rng) % (4097ULL * 0x10000 + 0x200000);
		got = kallsyms__lookup(k, q, &off);
		best = brute_lookup(addrs, N, q);
		if (best < 0 || (addrs[best] == last && q - last >= 1024 * 1024)) {
			assert_null(got);
			continue;
		}
		snprintf(want, sizeof(want), "f%ld", best);
		assert_non_null(got);
		assert_string_equal(got, want);
		assert_true(off == q - addrs[best]);
	}
	kallsyms__free(k);
	free(text);
	free(addrs);
}

/* Scans /proc/kallsyms for the address of "schedule" and for any non-zero
 * address. Returns -errno when the file cannot be opened.
 */
static int scan_kallsyms(uint64_t *schedule, bool *nonzero)
{
	char line[512], type, name[256];
	uint64_t addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	*schedule = 0;
	*nonzero = false;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		*nonzero |= addr != 0;
		if ((type == 'T' || type == 't') && strcmp(name, "schedule") == 0)
			*schedule = addr;
	}
	fclose(f);
	return 0;
}

static double elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* Without privileges the kernel shows zeros: the load must say so. */
static void test_real_kallsyms_restricted(void **state)
{
	struct kallsyms *k;
	uint64_t addr;
	bool nonzero;

	(void)state;
	if (scan_kallsyms(&addr, &nonzero) || nonzero) {
		print_message("SKIP: /proc/kallsyms unreadable or showing addresses\n");
		skip();
	}
	assert_int_equal(kallsyms__load("/proc/kallsyms", &k), -EPERM);
	assert_null(k);
}

static void test_real_kallsyms(void **state)
{
	struct timespec t0, t1;
	struct kallsyms *k;
	uint64_t addr;
	bool nonzero;

	(void)state;
	if (scan_kallsyms(&addr, &nonzero) || !nonzero) {
		print_message("SKIP: /proc/kallsyms unreadable or addresses hidden\n");
		skip();
	}
	assert_true(addr != 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(kallsyms__load("/proc/kallsyms", &k), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("loaded /proc/kallsyms in %.1f ms\n", elapsed_ms(&t0, &t1));
	/* Generous: sanitizers slow the load several times over. */
	assert_true(elapsed_ms(&t0, &t1) < 1000);
	expect_sym(k, addr, "schedule", 0);
	expect_sym(k, addr + 1, "schedule", 1);
	kallsyms__free(k);
}

/* The whole of a file that does not tell its size (a /proc one), or NULL. */
static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t cap = 0, got;

	*len = 0;
	while (f) {
		if (*len == cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 1 << 20);

			if (!t)
				break;
			text = t;
		}
		got = fread(text + *len, 1, cap - *len, f);
		*len += got;
		if (!got)
			break;
	}
	if (f)
		fclose(f);
	return text;
}

/* The running kernel's: a load for addresses around schedule and across
 * its text answers as the whole file does. */
static void test_real_kallsyms_for(void **state)
{
	enum { N = 2000 };
	uint64_t addr, q[N], rng = 0x2545f4914f6cdd1dULL;
	char path[32], *text;
	bool nonzero;
	size_t len;

	(void)state;
	if (scan_kallsyms(&addr, &nonzero) || !nonzero) {
		print_message("SKIP: /proc/kallsyms unreadable or addresses hidden\n");
		skip();
	}
	for (size_t i = 0; i < N; i++)
		q[i] = i % 2 ? addr - 0x1000000 + next_rand(&rng) % 0x2000000
			     : addr + next_rand(&rng) % 0x40000000;
	q[0] = addr;
	q[1] = addr + 1;
	/* a copy: BPF programs come and go between two reads of the file */
	text = read_all("/proc/kallsyms", &len);
	assert_non_null(text);
	write_temp(path, text, len);
	expect_same_for(path, q, N);
	unlink(path);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic_lookup),
		cmocka_unit_test(test_no_trailing_newline),
		cmocka_unit_test(test_all_zero_is_eperm),
		cmocka_unit_test(test_empty_and_missing),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_random_against_scan),
		cmocka_unit_test(test_real_kallsyms),
		cmocka_unit_test(test_real_kallsyms_for),
		cmocka_unit_test(test_load_for_synthetic),
		cmocka_unit_test(test_real_kallsyms_restricted),
	};

	return cmocka_run_group_tests_name("kallsyms", tests, NULL, NULL);
}
