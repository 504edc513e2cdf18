// SPDX-License-Identifier: GPL-2.0
/* Code objects of CPython 3.11 read from a fake memory image laid out as
 * the layout table says: names (qualname first), files, line tables (a
 * real one, from python3.11's compute() below), and strings of each form. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "symbols/py_code.h"
#include "symbols/py_layout.h"
#include "symbols/py_linetable.h"

#define BASE	      0x10000u
#define SIZE	      0x4000u
#define FAKE_MEM_BASE BASE
#define FAKE_MEM_SIZE SIZE

#include "fake_mem.h"

static const struct proc_mem mem = { fake_read, NULL };

/* PyASCIIObject.state: kind, compact, ascii (interned and ready aside). */
static void put_state(const struct py_layout *l, uint64_t s, unsigned kind, bool compact,
		      bool ascii)
{
	uint32_t state = kind << 2 | (uint32_t)compact << 5 | (uint32_t)ascii << 6 | 1u << 7;

	put(s + l->str_state, &state, sizeof(state));
}

static void put_ascii(const struct py_layout *l, uint64_t s, const char *text)
{
	put_u64(s + l->str_length, strlen(text));
	put_state(l, s, 1, true, true);
	put(s + l->str_ascii_data, text, strlen(text) + 1);
}

/*
 * def compute(until):       # line 2
 *     total = 0
 *     while until > 0:
 *         total += until
 *         until -= 1
 *     return total
 */
static const uint8_t compute_table[] = {
	128, 0,	  216, 12,  13, 128, 69, 216, 10, 15,  144, 33, 138, 41, 136, 41, 216, 8,
	13,  144, 21,  137, 14, 136, 5,	 216, 8,  13,  144, 17, 137, 10, 136, 5,  240, 5,
	0,   11,  16,  144, 33, 138, 41, 136, 41, 240, 6,   0,	12,  17, 128, 76,
};

static void put_code(const struct py_layout *l, uint64_t code, uint64_t name, uint64_t qualname,
		     uint64_t file, uint64_t table)
{
	int32_t first = 2;

	put_u64(code + l->co_name, name);
	put_u64(code + l->co_qualname, qualname);
	put_u64(code + l->co_filename, file);
	put_u64(code + l->co_linetable, table);
	put(code + l->co_firstlineno, &first, sizeof(first));
	put_u64(table + l->bytes_size, sizeof(compute_table));
	put(table + l->bytes_data, compute_table, sizeof(compute_table));
}

static void test_linetable(void **state)
{
	/* python3.11's co_lines() of compute: code unit -> line */
	static const int want[][2] = { { -1, 2 }, { 0, 2 },  { 1, 3 },	{ 2, 3 },  { 3, 4 },
				       { 8, 4 },  { 9, 5 },  { 13, 5 }, { 14, 6 }, { 18, 6 },
				       { 19, 4 }, { 24, 4 }, { 25, 7 }, { 26, 7 }, { 99, 2 } };

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(
			py_linetable__line(compute_table, sizeof(compute_table), 2, want[i][0]),
			want[i][1]);
	assert_int_equal(py_linetable__line(NULL, 0, 7, 3), 7);
}

static void test_read_code(void **state)
{
	const struct py_layout *l = py_layout__find(3, 11);
	uint64_t code = BASE, name = BASE + 0x1000, qual = BASE + 0x1100, file = BASE + 0x1200;
	uint64_t ident;
	struct py_code c;
	char frame[256];

	(void)state;
	assert_non_null(l);
	assert_null(py_layout__find(3, 99));
	memset(image, 0, sizeof(image));
	put_ascii(l, name, "compute");
	put_ascii(l, qual, "Worker.compute");
	put_ascii(l, file, "/tmp/prog.py");
	put_code(l, code, name, qual, file, BASE + 0x1300);
	assert_int_equal(py_code__read(&mem, l, NULL, code, &c), 0);
	assert_string_equal(c.name, "Worker.compute");
	assert_string_equal(c.file, "/tmp/prog.py");
	assert_int_equal(c.firstlineno, 2);
	assert_int_equal(c.ntable, sizeof(compute_table));
	py_code__frame_name(&c, 14, frame, sizeof(frame));
	assert_string_equal(frame, "Worker.compute (/tmp/prog.py:6)");
	py_code__frame_name(&c, -1, frame, sizeof(frame));
	assert_string_equal(frame, "Worker.compute (/tmp/prog.py:2)");
	py_code__free(&c);

	/* without a qualname, the name; another object at the same address
	 * (the first freed, its memory taken) has another identity */
	put_u64(code + l->co_qualname, 0);
	assert_int_equal(py_code__read(&mem, l, NULL, code, &c), 0);
	assert_string_equal(c.name, "compute");
	assert_int_equal(py_code__ident(&mem, l, NULL, code, &ident), 0);
	assert_true(ident == c.ident);
	put_u64(code + l->co_name, qual);
	assert_int_equal(py_code__ident(&mem, l, NULL, code, &ident), 0);
	assert_true(ident != c.ident);
	py_code__free(&c);

	/* the code object itself unreadable */
	assert_int_equal(py_code__read(&mem, l, NULL, BASE + SIZE, &c), -EFAULT);
}

/* Non-ASCII names: Latin-1 in place, another kind through its UTF-8 copy,
 * a string that is not compact as "?". */
static void test_strings(void **state)
{
	const struct py_layout *l = py_layout__find(3, 11);
	uint64_t code = BASE, latin = BASE + 0x1000, wide = BASE + 0x1100, legacy = BASE + 0x1200;
	uint64_t utf8 = BASE + 0x1400;
	struct py_code c;

	(void)state;
	memset(image, 0, sizeof(image));
	put_u64(latin + l->str_length, 4);
	put_state(l, latin, 1, true, false);
	put_u64(latin + l->str_utf8, 0);
	put(latin + l->str_compact_data, "caf\xe9", 4);
	put_u64(wide + l->str_length, 2);
	put_state(l, wide, 2, true, false);
	put_u64(wide + l->str_utf8, utf8);
	put_u64(wide + l->str_utf8_length, 6);
	put(utf8, "\xe6\x97\xa5\xe6\x9c\xac", 7);
	put_state(l, legacy, 1, false, false);
	put_code(l, code, latin, 0, wide, BASE + 0x1300);
	assert_int_equal(py_code__read(&mem, l, NULL, code, &c), 0);
	assert_string_equal(c.name, "caf\xc3\xa9");
	assert_string_equal(c.file, "\xe6\x97\xa5\xe6\x9c\xac");
	py_code__free(&c);
	put_code(l, code, legacy, 0, BASE + SIZE, BASE + 0x1300);
	assert_int_equal(py_code__read(&mem, l, NULL, code, &c), 0);
	assert_string_equal(c.name, "?");
	assert_string_equal(c.file, "?");
	py_code__free(&c);
}

/* With the process's types known, memory at a code object's address that
 * is no longer one (freed, taken by other data) is not read as one, and a
 * field that no longer points to a string names nothing. */
static void test_types_checked(void **state)
{
	const struct py_layout *l = py_layout__find(3, 11);
	uint64_t code = BASE, name = BASE + 0x1000, file = BASE + 0x1200;
	const struct py_types t = { .code = 0x7000, .str = 0x7100 };
	uint64_t ident;
	struct py_code c;

	(void)state;
	memset(image, 0, sizeof(image));
	put_ascii(l, name, "compute");
	put_ascii(l, file, "/tmp/prog.py");
	put_code(l, code, name, 0, file, BASE + 0x1300);
	put_u64(code + 8, t.code);
	put_u64(name + 8, t.str);
	put_u64(file + 8, t.str);
	assert_int_equal(py_code__read(&mem, l, &t, code, &c), 0);
	assert_string_equal(c.name, "compute");
	assert_string_equal(c.file, "/tmp/prog.py");
	py_code__free(&c);

	/* the file's string freed and its memory taken */
	put_u64(file + 8, 0x7200);
	assert_int_equal(py_code__read(&mem, l, &t, code, &c), 0);
	assert_string_equal(c.name, "compute");
	assert_string_equal(c.file, "?");
	py_code__free(&c);

	/* the code object's */
	put_u64(code + 8, 0x7200);
	assert_int_equal(py_code__read(&mem, l, &t, code, &c), -ESTALE);
	assert_int_equal(py_code__ident(&mem, l, &t, code, &ident), -ESTALE);
	/* unchecked, it reads as before */
	assert_int_equal(py_code__read(&mem, l, NULL, code, &c), 0);
	py_code__free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linetable),
		cmocka_unit_test(test_read_code),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_types_checked),
	};

	return cmocka_run_group_tests_name("py_code", tests, NULL, NULL);
}
