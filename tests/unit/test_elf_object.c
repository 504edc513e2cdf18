// SPDX-License-Identifier: GPL-2.0
/* Data symbols and segment addresses of an ELF file, checked against this
 * test binary itself: where the loader put a global and a function, less
 * the load bias, is what the file must say. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "symbols/elf_object.h"

/* a data symbol (what elf_symtab leaves out), and a function */
int elf_object_marker = 42;

__attribute__((noinline)) int elf_object_func(void)
{
	return elf_object_marker;
}

static int open_self(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static void test_find(void **state)
{
	static const char *const names[] = { "elf_object_marker", "elf_object_func",
					     "no_such_symbol" };
	uint64_t at[3] = { 1, 1, 1 };
	uintptr_t bias;
	int fd = open_self();

	(void)state;
	assert_int_equal(elf_object__find(fd, names, 3, at), 0);
	assert_int_not_equal(at[1], 0);
	bias = (uintptr_t)elf_object_func - at[1];
	assert_int_equal(at[0], (uintptr_t)&elf_object_marker - bias);
	assert_int_equal(at[2], 0);
	assert_int_equal(elf_object__find(fd, names + 2, 1, at), -ENOENT);
	close(fd);
}

/* The file offset of the function (its address less the mapping's start,
 * plus the mapping's offset, as /proc/PID/maps gives them) back to its
 * link-time address. */
static void test_vaddr(void **state)
{
	static const char *const names[] = { "elf_object_func" };
	uint64_t at, vaddr, off = 0;
	uintptr_t fn = (uintptr_t)elf_object_func;
	unsigned long lo, hi, moff;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");
	int fd = open_self();

	(void)state;
	assert_non_null(maps);
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &moff) == 3 && fn >= lo && fn < hi)
			off = fn - lo + moff;
	fclose(maps);
	assert_int_not_equal(off, 0);
	assert_int_equal(elf_object__find(fd, names, 1, &at), 0);
	assert_int_equal(elf_object__vaddr(fd, off, &vaddr), 0);
	assert_int_equal(vaddr, at);
	assert_int_equal(elf_object__vaddr(fd, UINT64_MAX / 2, &vaddr), -ENOENT);
	close(fd);
}

static void test_not_elf(void **state)
{
	static const char *const names[] = { "x" };
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	uint64_t at;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(elf_object__find(fd, names, 1, &at), -ENOEXEC);
	assert_int_equal(elf_object__vaddr(fd, 0, &at), -ENOEXEC);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_vaddr),
		cmocka_unit_test(test_not_elf),
	};

	return cmocka_run_group_tests_name("elf_object", tests, NULL, NULL);
}
