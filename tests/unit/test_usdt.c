/* Unit tests of src/symbols/usdt_notes.c and usdt.c: notes built here byte
 * by byte (and notes that lie), then the probes of tests/fixtures/sdtfix.c
 * as a PIE, a non-PIE and a library, and Debian's libstdc++'s. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "symbols/usdt.h"
#include "symbols/usdt_args.h"
#include "symbols/usdt_notes.h"

struct notes {
	uint8_t b[512];
	size_t n;
};

static void put32(struct notes *t, uint32_t v)
{
	memcpy(t->b + t->n, &v, 4);
	t->n += 4;
}

static void put64(struct notes *t, uint64_t v)
{
	memcpy(t->b + t->n, &v, 8);
	t->n += 8;
}

/* One note: owner, type, the three addresses and strings (desc). */
static void put_note(struct notes *t, const char *owner, uint32_t type, uint64_t pc,
		     const char *strs, size_t strs_len)
{
	size_t namesz = strlen(owner) + 1;

	put32(t, namesz);
	put32(t, 24 + strs_len);
	put32(t, type);
	memcpy(t->b + t->n, owner, namesz);
	t->n += (namesz + 3) & ~3UL;
	put64(t, pc);
	put64(t, 0x2000);
	put64(t, pc ? 0x3000 : 0);
	memcpy(t->b + t->n, strs, strs_len);
	t->n += (strs_len + 3) & ~3UL;
}

struct seen {
	struct usdt_note v[8];
	size_t n;
};

static int collect(const struct usdt_note *n, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->v[s->n++] = *n;
	return 0;
}

static void test_notes(void **state)
{
	struct notes t = { .n = 0 };
	struct seen s = { .n = 0 };

	(void)state;
	put_note(&t, "GNU", 3, 0x1111, "x\0y\0z", 6); /* another owner: passed over */
	put_note(&t, "stapsdt", 3, 0x1234, "prov\0probe\0-4@%edi 8@$5", 24);
	put_note(&t, "stapsdt", 1, 0x9999, "a\0b\0", 4); /* another type */
	put_note(&t, "stapsdt", 3, 0x1300, "p\0n\0", 5); /* no arguments: "" */
	assert_int_equal(usdt_notes__parse(t.b, t.n, collect, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[0].pc, 0x1234);
	assert_int_equal(s.v[0].base, 0x2000);
	assert_int_equal(s.v[0].sema, 0x3000);
	assert_string_equal(s.v[0].provider, "prov");
	assert_string_equal(s.v[0].name, "probe");
	assert_string_equal(s.v[0].args, "-4@%edi 8@$5");
	assert_string_equal(s.v[1].args, "");
}

static void test_bad_notes(void **state)
{
	struct notes t = { .n = 0 };
	struct seen s = { .n = 0 };

	(void)state;
	/* strings without their last NUL */
	put_note(&t, "stapsdt", 3, 0x1234, "prov\0probe\0args", 15);
	assert_int_equal(usdt_notes__parse(t.b, t.n, collect, &s), -ENOEXEC);
	/* a desc running past the end */
	t.n = 0;
	put_note(&t, "stapsdt", 3, 0x1234, "p\0n\0a", 6);
	assert_int_equal(usdt_notes__parse(t.b, t.n - 8, collect, &s), -ENOEXEC);
	/* a desc too short for its addresses */
	t.n = 0;
	put32(&t, 8);
	put32(&t, 8);
	put32(&t, 3);
	memcpy(t.b + t.n, "stapsdt", 8);
	t.n += 8;
	put64(&t, 0);
	assert_int_equal(usdt_notes__parse(t.b, t.n, collect, &s), -ENOEXEC);
	/* a huge name size */
	t.n = 0;
	put32(&t, 0xffffffff);
	put32(&t, 0);
	put32(&t, 3);
	assert_int_equal(usdt_notes__parse(t.b, t.n, collect, &s), -ENOEXEC);
	/* nothing, or less than a header: no notes */
	assert_int_equal(usdt_notes__parse(t.b, 0, collect, &s), 0);
	assert_int_equal(usdt_notes__parse(t.b, 11, collect, &s), 0);
	assert_int_equal(s.n, 0);
}

static const struct usdt_probe *find(const struct usdt_probes *ps, const char *name)
{
	for (size_t i = 0; i < ps->n; i++)
		if (!strcmp(ps->v[i].name, name))
			return &ps->v[i];
	fail_msg("no probe '%s'", name);
	return NULL;
}

/* The fixture's four probes, their specs, a semaphore each, in the file. */
static void expect_fixture(const char *path)
{
	struct usdt_probes ps = { 0 };
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(usdt__read(path, &ps), 0);
	assert_int_equal(ps.n, 4);
	assert_string_equal(find(&ps, "noargs")->args, "");
	assert_string_equal(find(&ps, "one")->args, "-4@%edi");
	assert_string_equal(find(&ps, "three")->args, "-8@%rdi -1@%sil 8@%rdx");
	for (size_t i = 0; i < ps.n; i++) {
		assert_string_equal(ps.v[i].provider, "fix");
		assert_true(ps.v[i].offset > 0 && ps.v[i].offset < (uint64_t)st.st_size);
		assert_true(ps.v[i].sema_addr != 0);
		assert_true(ps.v[i].sema_offset > 0 && ps.v[i].sema_offset < (uint64_t)st.st_size);
	}
	/* the probes are in one function, in order */
	assert_true(find(&ps, "noargs")->offset < find(&ps, "one")->offset);
	assert_true(find(&ps, "three")->offset - find(&ps, "noargs")->offset < 256);
	usdt__free(&ps);
}

static void test_fixtures(void **state)
{
	(void)state;
	expect_fixture("build/tests/fixtures/sdtfix_pie");
	expect_fixture("build/tests/fixtures/sdtfix_nopie");
	expect_fixture("build/tests/fixtures/libsdtfix.so");
}

/* Not ELF, or no probes: an error, or none. */
static void test_no_probes(void **state)
{
	struct usdt_probes ps = { 0 };

	(void)state;
	assert_int_equal(usdt__read("build/tests/fixtures/symfix_pie", &ps), 0);
	assert_int_equal(ps.n, 0);
	assert_int_equal(usdt__read("tests/data/roundtrip.folded", &ps), -ENOEXEC);
	assert_int_equal(usdt__read("/nonexistent", &ps), -ENOENT);
	usdt__free(&ps);
}

static void expect_arg(const struct usdt_arg *a, int kind, int reg, int size, bool sign,
		       int64_t val, int shift)
{
	assert_int_equal(a->kind, kind);
	assert_int_equal(a->reg, reg);
	assert_int_equal(a->size, size);
	assert_int_equal(a->is_signed, sign);
	assert_int_equal(a->val, val);
	assert_int_equal(a->shift, shift);
}

static void test_args(void **state)
{
	struct usdt_arg a[USDT_MAX_ARGS];
	size_t n;

	(void)state;
	assert_int_equal(usdt_args__parse("-8@%rdi -1@%sil 8@%rdx", a, &n), 0);
	assert_int_equal(n, 3);
	expect_arg(&a[0], USDT_ARG_REG, USDT_REG_RDI, 8, true, 0, 0);
	expect_arg(&a[1], USDT_ARG_REG, USDT_REG_RSI, 1, true, 0, 0);
	expect_arg(&a[2], USDT_ARG_REG, USDT_REG_RDX, 8, false, 0, 0);
	assert_int_equal(usdt_args__parse("8@%rdx 8@-80(%rbx)", a, &n), 0);
	expect_arg(&a[1], USDT_ARG_MEM, USDT_REG_RBX, 8, false, -80, 0);
	assert_int_equal(usdt_args__parse("-4@112(%rsp)", a, &n), 0);
	expect_arg(&a[0], USDT_ARG_MEM, USDT_REG_RSP, 4, true, 112, 0);
	assert_int_equal(usdt_args__parse("-4@$5 8@$0x10 4@$-3", a, &n), 0);
	expect_arg(&a[0], USDT_ARG_CONST, USDT_REG_NONE, 4, true, 5, 0);
	expect_arg(&a[1], USDT_ARG_CONST, USDT_REG_NONE, 8, false, 16, 0);
	expect_arg(&a[2], USDT_ARG_CONST, USDT_REG_NONE, 4, false, -3, 0);
	assert_int_equal(usdt_args__parse("8@(%rax) 4@%r8d 2@%r15w 1@%r9b 1@%ah -4@%ebp", a, &n),
			 0);
	assert_int_equal(n, 6);
	expect_arg(&a[0], USDT_ARG_MEM, USDT_REG_RAX, 8, false, 0, 0);
	expect_arg(&a[1], USDT_ARG_REG, USDT_REG_R8, 4, false, 0, 0);
	expect_arg(&a[2], USDT_ARG_REG, USDT_REG_R15, 2, false, 0, 0);
	expect_arg(&a[3], USDT_ARG_REG, USDT_REG_R9, 1, false, 0, 0);
	expect_arg(&a[4], USDT_ARG_REG, USDT_REG_RAX, 1, false, 0, 8);
	expect_arg(&a[5], USDT_ARG_REG, USDT_REG_RBP, 4, true, 0, 0);
	assert_int_equal(usdt_args__parse("8@0x601040", a, &n), 0);
	expect_arg(&a[0], USDT_ARG_MEM, USDT_REG_NONE, 8, false, 0x601040, 0);
	assert_int_equal(usdt_args__parse("", a, &n), 0);
	assert_int_equal(n, 0);
	/* what a probe on x86-64 never has, or another architecture's */
	assert_int_equal(usdt_args__parse("8@(%rax,%rbx,8)", a, &n), -EINVAL);
	assert_int_equal(usdt_args__parse("3@%rax", a, &n), -EINVAL);
	assert_int_equal(usdt_args__parse("8@%xmm0", a, &n), -EINVAL);
	assert_int_equal(usdt_args__parse("8@%rax,", a, &n), -EINVAL);
	assert_int_equal(usdt_args__parse("-4@x0", a, &n), -EINVAL);
	assert_int_equal(usdt_args__parse("8@[sp, 8]", a, &n), -EINVAL);
	assert_int_equal(usdt_args__parse("@%rax", a, &n), -EINVAL);
	/* found by fuzz_usdt_args: a spec ending in "(", a size strtoll saturates */
	assert_int_equal(usdt_args__parse("4@(", a, &n), -EINVAL);
	assert_int_equal(usdt_args__parse("-99999999999999999999999@(%rsp)", a, &n), -EINVAL);
	assert_int_equal(usdt_args__parse("1@%a 1@%a 1@%a 1@%a 1@%a 1@%a 1@%a 1@%a 1@%a", a, &n),
			 -EINVAL);
	assert_int_equal(usdt_args__parse("1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al 1@%al "
					  "1@%al 1@%al 1@%al 1@%al",
					  a, &n),
			 -EINVAL); /* 13 */
}

/* Every probe Debian's libstdc++ and python3.11 declare has a spec parsed. */
static void test_real_args(void **state)
{
	static const char *const bins[] = { "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
					    "/usr/bin/python3.11" };
	struct usdt_arg a[USDT_MAX_ARGS];
	size_t n, seen = 0;

	(void)state;
	for (size_t b = 0; b < 2; b++) {
		struct usdt_probes ps = { 0 };

		if (usdt__read(bins[b], &ps))
			continue;
		for (size_t i = 0; i < ps.n; i++, seen++)
			if (usdt_args__parse(ps.v[i].args, a, &n))
				fail_msg("%s:%s: cannot parse '%s'", bins[b], ps.v[i].name,
					 ps.v[i].args);
		usdt__free(&ps);
	}
	print_message("%zu probes' specs parsed\n", seen);
	if (!seen)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notes),	 cmocka_unit_test(test_bad_notes),
		cmocka_unit_test(test_fixtures), cmocka_unit_test(test_no_probes),
		cmocka_unit_test(test_args),	 cmocka_unit_test(test_real_args),
	};

	return cmocka_run_group_tests_name("usdt", tests, NULL, NULL);
}
