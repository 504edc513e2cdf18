/* Unit tests of src/symbols/go_pclntab.c: tables of each layout Go has written,
 * built here byte by byte, and tables that lie. A real Go binary, stripped,
 * is read in tests/integ/test_names.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "symbols/go_pclntab.h"

#define TEXT 0x401000ULL

struct tab {
	uint8_t b[512];
	size_t n;
};

static void put(struct tab *t, size_t off, uint64_t v, unsigned width)
{
	for (unsigned i = 0; i < width; i++)
		t->b[off + i] = (uint8_t)(v >> (8 * i));
	if (off + width > t->n)
		t->n = off + width;
}

static size_t put_str(struct tab *t, size_t off, const char *s)
{
	memcpy(t->b + off, s, strlen(s) + 1);
	if (off + strlen(s) + 1 > t->n)
		t->n = off + strlen(s) + 1;
	return strlen(s) + 1;
}

/* main.a at TEXT, main.b at TEXT+0x40, ending at TEXT+0x100. */
enum { NAMES = 0x80, FUNCTAB = 0xa0 };

static void header(struct tab *t, uint32_t magic)
{
	memset(t, 0, sizeof(*t));
	put(t, 0, magic, 4);
	t->b[6] = 1;
	t->b[7] = 8;
	put(t, 8, 2, 8); /* nfunc */
}

static void names(struct tab *t, size_t at)
{
	size_t n = put_str(t, at, "main.a");

	put_str(t, at + n, "main.b");
}

/* Go 1.18+: nfunc, nfiles, text, then offsets; pairs of 32-bit offsets. */
static void go118(struct tab *t, uint64_t text)
{
	header(t, 0xfffffff1);
	put(t, 24, text, 8);
	put(t, 32, NAMES, 8);
	put(t, 64, FUNCTAB, 8);
	names(t, NAMES);
	put(t, FUNCTAB + 0, 0x00, 4);
	put(t, FUNCTAB + 4, 0x18, 4);
	put(t, FUNCTAB + 8, 0x40, 4);
	put(t, FUNCTAB + 12, 0x20, 4);
	put(t, FUNCTAB + 16, 0x100, 4);
	/* the _func records: entry offset, name offset */
	put(t, FUNCTAB + 0x18, 0x00, 4);
	put(t, FUNCTAB + 0x1c, 0, 4);
	put(t, FUNCTAB + 0x20, 0x40, 4);
	put(t, FUNCTAB + 0x24, 7, 4);
}

/* Go 1.16: no text address; pairs of pointers. */
static void go116(struct tab *t)
{
	header(t, 0xfffffffa);
	put(t, 24, NAMES, 8);
	put(t, 56, FUNCTAB, 8);
	names(t, NAMES);
	put(t, FUNCTAB + 0, TEXT, 8);
	put(t, FUNCTAB + 8, 0x30, 8);
	put(t, FUNCTAB + 16, TEXT + 0x40, 8);
	put(t, FUNCTAB + 24, 0x40, 8);
	put(t, FUNCTAB + 32, TEXT + 0x100, 8);
	put(t, FUNCTAB + 0x30, TEXT, 8);
	put(t, FUNCTAB + 0x38, 0, 4);
	put(t, FUNCTAB + 0x40, TEXT + 0x40, 8);
	put(t, FUNCTAB + 0x48, 7, 4);
}

/* Go 1.2: pairs right after nfunc; every offset from the table's start. */
static void go12(struct tab *t)
{
	header(t, 0xfffffffb);
	put(t, 16, TEXT, 8);
	put(t, 24, 0x60, 8);
	put(t, 32, TEXT + 0x40, 8);
	put(t, 40, 0x70, 8);
	put(t, 48, TEXT + 0x100, 8);
	put(t, 0x60, TEXT, 8);
	put(t, 0x68, NAMES, 4);
	put(t, 0x70, TEXT + 0x40, 8);
	put(t, 0x78, NAMES + 7, 4);
	names(t, NAMES);
}

struct got {
	char text[256];
	size_t len;
};

static int collect(void *arg, uint64_t entry, uint64_t end, const char *name, size_t len)
{
	struct got *g = arg;

	g->len += (size_t)snprintf(g->text + g->len, sizeof(g->text) - g->len, "%llx-%llx %.*s\n",
				   (unsigned long long)entry, (unsigned long long)end, (int)len,
				   name);
	return 0;
}

static int read_tab(const struct tab *t, uint64_t text, struct got *g)
{
	memset(g, 0, sizeof(*g));
	return go_pclntab__funcs(t->b, t->n, text, collect, g);
}

static const char want[] = "401000-401040 main.a\n401040-401100 main.b\n";

static void test_layouts(void **state)
{
	struct tab t;
	struct got g;

	(void)state;
	go118(&t, TEXT);
	assert_int_equal(read_tab(&t, 0, &g), 0);
	assert_string_equal(g.text, want);
	/* PIE: the text address is left to a relocation, .text's stands in */
	go118(&t, 0);
	assert_int_equal(read_tab(&t, TEXT, &g), 0);
	assert_string_equal(g.text, want);
	go116(&t);
	assert_int_equal(read_tab(&t, 0, &g), 0);
	assert_string_equal(g.text, want);
	go12(&t);
	assert_int_equal(read_tab(&t, 0, &g), 0);
	assert_string_equal(g.text, want);
}

/* Whatever a table says, nothing is read outside it, and a table that
 * cannot be one is refused whole. */
static void test_lies(void **state)
{
	struct tab t;
	struct got g;

	(void)state;
	go118(&t, TEXT);
	put(&t, 0, 0xfffffff2, 4); /* a magic of no Go */
	assert_int_equal(read_tab(&t, 0, &g), -ENOEXEC);
	go118(&t, TEXT);
	t.b[7] = 5; /* no pointer size */
	assert_int_equal(read_tab(&t, 0, &g), -ENOEXEC);
	go118(&t, TEXT);
	put(&t, 8, 1u << 30, 8); /* more functions than bytes */
	assert_int_equal(read_tab(&t, 0, &g), -ENOEXEC);
	go118(&t, TEXT);
	put(&t, FUNCTAB + 8, 0x200, 4); /* out of order */
	assert_int_equal(read_tab(&t, 0, &g), -ENOEXEC);
	go118(&t, TEXT);
	put(&t, FUNCTAB + 0x24, 0x7ffffff0, 4); /* a name past the end */
	assert_int_equal(read_tab(&t, 0, &g), -ENOEXEC);
	go118(&t, TEXT);
	put(&t, FUNCTAB + 12, 0xfffffff0, 4); /* a record past the end */
	assert_int_equal(read_tab(&t, 0, &g), -ENOEXEC);
	go118(&t, TEXT);
	t.n = FUNCTAB + 10; /* cut inside the pairs */
	assert_int_equal(read_tab(&t, 0, &g), -ENOEXEC);
	go118(&t, TEXT);
	t.b[t.n] = 'x'; /* a name that runs off the end */
	put(&t, FUNCTAB + 0x24, t.n - NAMES, 4);
	t.n++;
	assert_int_equal(read_tab(&t, 0, &g), -ENOEXEC);
	assert_int_equal(go_pclntab__funcs(t.b, 4, 0, collect, &g), -ENOEXEC);
}

static int stop_at_first(void *arg, uint64_t entry, uint64_t end, const char *name, size_t len)
{
	(void)arg, (void)entry, (void)end, (void)name, (void)len;
	return -EINTR;
}

static void test_callback_error(void **state)
{
	struct tab t;

	(void)state;
	go118(&t, TEXT);
	assert_int_equal(go_pclntab__funcs(t.b, t.n, 0, stop_at_first, NULL), -EINTR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_lies),
		cmocka_unit_test(test_callback_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
