// SPDX-License-Identifier: GPL-2.0
/* src/capture/kernel_btf.c against libbpf's reading of the same BTF, and on small
 * images built here, whole and cut short. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "capture/kernel_btf.h"

/* Every value of the running kernel's enum bpf_attach_type, as libbpf reads
 * it, plus names it does not have: the scanner agrees on each. */
static void test_running_kernel(void **state)
{
	struct btf *btf;
	const struct btf_type *t;
	const char **names;
	int *has, id, n;

	(void)state;
	if (access(KERNEL_BTF_PATH, R_OK)) {
		print_message("SKIP: no %s\n", KERNEL_BTF_PATH);
		skip();
	}
	btf = btf__load_vmlinux_btf();
	assert_non_null(btf);
	id = btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM);
	assert_true(id > 0);
	t = btf__type_by_id(btf, id);
	n = btf_vlen(t);
	assert_true(n > 40);
	names = calloc((size_t)n + 2, sizeof(*names));
	has = calloc((size_t)n + 2, sizeof(*has));
	assert_non_null(names);
	assert_non_null(has);
	for (int i = 0; i < n; i++)
		names[i] = btf__name_by_offset(btf, btf_enum(t)[i].name_off);
	names[n] = "BPF_TRACE_NO_SUCH_TYPE";
	names[n + 1] = "bpf_attach_type";
	assert_int_equal(
		kernel_btf__enum_has(KERNEL_BTF_PATH, "bpf_attach_type", names, (size_t)n + 2, has),
		0);
	for (int i = 0; i < n; i++)
		if (!has[i])
			fail_msg("%s not found", names[i]);
	assert_int_equal(has[n], 0);
	assert_int_equal(has[n + 1], 0);
	assert_int_equal(kernel_btf__enum_has(KERNEL_BTF_PATH, "no_such_enum_here", names, 1, has),
			 -ENOENT);
	free(names);
	free(has);
	btf__free(btf);
}

static void put32(uint8_t **p, uint32_t v)
{
	memcpy(*p, &v, 4);
	*p += 4;
}

/* An image with an int, then enum e { A = 1, BB = 2 }; returns its size. */
static size_t small_image(uint8_t *b)
{
	static const char strs[] = "\0int\0e\0A\0BB";
	uint8_t *p = b + 24;
	uint32_t types_len;

	put32(&p, 1), put32(&p, 1u << 24), put32(&p, 4), put32(&p, 32);
	put32(&p, 5), put32(&p, (6u << 24) | 2), put32(&p, 4);
	put32(&p, 7), put32(&p, 1), put32(&p, 9), put32(&p, 2);
	types_len = (uint32_t)(p - b - 24);
	memcpy(p, strs, sizeof(strs));
	p = b;
	*p++ = 0x9f, *p++ = 0xeb, *p++ = 1, *p++ = 0;
	put32(&p, 24), put32(&p, 0), put32(&p, types_len), put32(&p, types_len),
		put32(&p, sizeof(strs));
	return 24 + types_len + sizeof(strs);
}

static void test_small_image(void **state)
{
	static const char *const values[] = { "A", "BB", "C" };
	uint8_t b[256];
	size_t len = small_image(b);
	int has[3];

	(void)state;
	assert_int_equal(kernel_btf__enum_has_in(b, len, "e", values, 3, has), 0);
	assert_int_equal(has[0], 1);
	assert_int_equal(has[1], 1);
	assert_int_equal(has[2], 0);
	assert_int_equal(kernel_btf__enum_has_in(b, len, "int", values, 3, has), -ENOENT);
	assert_int_equal(kernel_btf__enum_has_in(b, len, "f", values, 3, has), -ENOENT);
}

/* Cut anywhere, the image is refused or found wanting, never overrun: the
 * ASan build reads the copy, sized to the cut. */
static void test_cut_short(void **state)
{
	static const char *const values[] = { "A" };
	uint8_t b[256];
	size_t len = small_image(b);
	int has[1];

	(void)state;
	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		int err;

		assert_non_null(copy);
		memcpy(copy, b, cut);
		err = kernel_btf__enum_has_in(copy, cut, "e", values, 1, has);
		if (err != -EINVAL)
			fail_msg("cut at %zu of %zu: %d, expected -EINVAL", cut, len, err);
		assert_int_equal(has[0], 0);
		free(copy);
	}
	b[0] ^= 1;
	assert_int_equal(kernel_btf__enum_has_in(b, len, "e", values, 1, has), -EINVAL);
}

static void test_unreadable(void **state)
{
	static const char *const values[] = { "A" };
	int has[1] = { 7 };

	(void)state;
	assert_int_equal(kernel_btf__enum_has("/nonexistent/vmlinux", "e", values, 1, has),
			 -ENOENT);
	assert_int_equal(has[0], 0);
	assert_int_equal(kernel_btf__enum_has("/dev/null", "e", values, 1, has), -EFBIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_running_kernel),
		cmocka_unit_test(test_small_image),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_unreadable),
	};

	return cmocka_run_group_tests_name("kernel_btf", tests, NULL, NULL);
}
