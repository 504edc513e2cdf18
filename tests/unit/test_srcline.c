/* Unit tests of src/symbols/srcline.c: the lines of a fixture's functions, and the
 * DWARF that fuzz_srcline made hostile (tests/fuzz/corpus/srcline/regress-*),
 * looked up the way the fuzzer did: no undefined behaviour, no leak.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <sanitizer/lsan_interface.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_symtab.h"
#include "symbols/srcline.h"
#include "util.h"

#define FIX_PIE FIXTURE_DIR "/symfix_pie"

/* tests/fuzz/corpus/srcline/NAME. */
static const char *corpus_path(const char *name)
{
	return u_repo_file("tests/fuzz/corpus/srcline", name);
}

/* Whether the lookup at vaddr finds a line in a file named file. */
static bool lookup_at(struct srcline *s, uint64_t vaddr, const char *file)
{
	struct srcline_frame out[SRCLINE_MAX_INLINE];
	size_t n = srcline__lookup(s, vaddr, out, SRCLINE_MAX_INLINE);

	assert_true(n <= SRCLINE_MAX_INLINE);
	for (size_t i = 0; i < n; i++) {
		assert_true(!out[i].func == !i); /* only the outermost is the real function */
		assert_true(out[i].line >= 0);
	}
	return n && out[n - 1].file && !strcmp(out[n - 1].file, file) && out[n - 1].line > 0;
}

/* Looks up each function of the file at its start and middle; returns how
 * many lookups found a line in a file named file. */
static size_t lookup_funcs(int fd, struct srcline *s, const char *file)
{
	struct elf_symtab *t;
	struct elf_func f;
	size_t found = 0;

	if (elf_symtab__load(fd, &t))
		return 0;
	for (size_t i = 0; i < 64 && !elf_symtab__func(t, i, &f); i++) {
		found += lookup_at(s, f.vaddr, file);
		found += lookup_at(s, f.vaddr + f.size / 2, file);
	}
	elf_symtab__free(t);
	return found;
}

static void test_fixture_lines(void **state)
{
	int fd = open(FIX_PIE, O_RDONLY | O_CLOEXEC);
	struct srcline *s;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(srcline__open(fd, &s), 0);
	assert_true(lookup_funcs(fd, s, "symfix.c") > 0);
	srcline__free(s);
	close(fd);
}

/* A unit with no address ranges (qsort() was handed NULL), an inlined
 * instance whose abstract origin is not there (dwarf_getscopes() leaked), a
 * line number past INT_MAX (it read as negative). */
static void test_fuzz_regressions(void **state)
{
	static const char *const inputs[] = { "regress-no-cu-ranges", "regress-getscopes-leak",
					      "regress-negative-line" };
	uint8_t head[128];
	struct srcline *s;
	ssize_t len;
	int fd;

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		fd = open(corpus_path(inputs[i]), O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		len = pread(fd, head, sizeof(head), 0);
		assert_int_equal(srcline__open(fd, &s), 0);
		lookup_funcs(fd, s, "");
		/* the addresses the fuzzer tried besides: the first bytes */
		for (ssize_t k = 0; k + 8 <= len; k += 8) {
			uint64_t v;

			memcpy(&v, head + k, 8);
			lookup_at(s, v, "");
		}
		srcline__free(s);
		close(fd);
	}
	assert_int_equal(__lsan_do_recoverable_leak_check(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_lines),
		cmocka_unit_test(test_fuzz_regressions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
