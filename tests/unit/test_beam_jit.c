// SPDX-License-Identifier: GPL-2.0
/* An Erlang node's JIT records read from a fake memory image laid out as
 * OTP 25's JIT lays them out (as seen in Debian's beam.smp): the GDB JIT
 * descriptor, its list newest first, the emulator's record and two
 * modules, the newer one where the older one had code; then records that
 * are torn, too large, or looped, which must neither crash nor stop the
 * good ones from being named. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "symbols/beam_jit.h"

#define BASE	      0x10000u
#define SIZE	      0x8000u
#define FAKE_MEM_BASE BASE
#define FAKE_MEM_SIZE SIZE

#define DESC	0x10000u
#define ENTRIES 0x10100u /* 32 bytes each */
#define FILES	0x11000u /* symbol files, 0x1000 apart */
#define CODE	0x7f0000001000ULL
#define EXIT	0x7f0000000800ULL

#include "fake_mem.h"

static const struct proc_mem mem = { fake_read, NULL };

/* A name and its length (NUL counted) at at; returns where it ends. */
static uint64_t put_name(uint64_t len_at, uint64_t at, const char *name)
{
	put_u16(len_at, (uint16_t)(strlen(name) + 1));
	put(at, name, strlen(name) + 1);
	return at + strlen(name) + 1;
}

/* The emulator's record at f: frame layout, normal exit. Its size. */
static uint64_t put_emulator(uint64_t f, uint32_t layout)
{
	put_u32(f, 0);
	put_u32(f + 8, layout);
	put_u64(f + 16, EXIT);
	return 24;
}

struct range {
	uint32_t start, end;
	const char *name;
	const char *file; /* a line at start, or NULL */
};

/* A module's record at f, as the JIT lays it out: the next record starts
 * at the struct's padded size plus the name's length. Its size. */
static uint64_t put_module(uint64_t f, const char *name, uint64_t base, uint32_t code_size,
			   const struct range *r, uint32_t n)
{
	uint64_t at = f + 8 + 24 + strlen(name) + 1;

	put_u32(f, 1);
	put_u64(f + 8, base);
	put_u32(f + 16, n);
	put_u32(f + 20, code_size);
	put_name(f + 24, f + 26, name);
	for (uint32_t i = 0; i < n; i++) {
		put_u32(at, r[i].start);
		put_u32(at + 4, r[i].end);
		put_u32(at + 8, r[i].file ? 1 : 0);
		put_name(at + 12, at + 14, r[i].name);
		at += 16 + strlen(r[i].name) + 1;
		if (r[i].file) {
			put_u32(at, r[i].start);
			put_u32(at + 4, 42);
			put_name(at + 8, at + 10, r[i].file);
			at += 12 + strlen(r[i].file) + 1;
		}
	}
	return at - f;
}

static void put_entry(unsigned i, unsigned next, uint64_t size)
{
	uint64_t e = ENTRIES + 32 * i;

	put_u64(e, next == ~0u ? 0 : ENTRIES + 32 * next);
	put_u64(e + 8, 0);
	put_u64(e + 16, FILES + 0x1000 * i);
	put_u64(e + 24, size);
}

static void put_descriptor(uint32_t version, unsigned first)
{
	put_u32(DESC, version);
	put_u32(DESC + 4, 1);
	put_u64(DESC + 8, ENTRIES + 32 * first);
	put_u64(DESC + 16, ENTRIES + 32 * first);
}

static const struct range busy[] = {
	{ 0x00, 0x10, "busy::codeHeader", NULL },
	{ 0x10, 0x40, "busy:heavy/0", "busy.erl" },
	{ 0x40, 0x60, "busy:light/0", "busy.erl" },
};

/* Reused the memory of busy:light/0. */
static const struct range newer[] = {
	{ 0x00, 0x20, "'Elixir.New':f/0", NULL },
};

/* Entry 0 the newest module, 1 busy, 2 the emulator's record. */
static void build(void)
{
	memset(image, 0, sizeof(image));
	put_entry(2, ~0u, put_emulator(FILES + 0x2000, 0));
	put_entry(1, 2, put_module(FILES + 0x1000, "busy", CODE, 0x60, busy, 3));
	put_entry(0, 1, put_module(FILES, "'Elixir.New'", CODE + 0x40, 0x20, newer, 1));
	put_descriptor(1, 0);
}

static const char *name_at(const struct perfmap *m, uint64_t addr, uint64_t *off)
{
	const char *name = perfmap__lookup(m, addr, off);

	return name ? name : "(none)";
}

static void test_names_and_bounds(void **state)
{
	struct beam_jit_info info;
	struct perfmap *m;
	uint64_t stamp = 0, off;

	(void)state;
	build();
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 0);
	assert_non_null(m);
	assert_string_equal(name_at(m, CODE + 0x18, &off), "$busy:heavy/0");
	assert_int_equal(off, 8);
	assert_string_equal(name_at(m, CODE, &off), "$busy::codeHeader");
	/* the newer module wins where it took the older one's memory */
	assert_string_equal(name_at(m, CODE + 0x48, &off), "$'Elixir.New':f/0");
	assert_null(perfmap__lookup(m, CODE + 0x60, NULL));
	assert_true(info.emulator);
	assert_false(info.frame_pointers);
	assert_int_equal(info.normal_exit, EXIT);
	assert_int_equal(info.code_lo, CODE);
	assert_int_equal(info.code_hi, CODE + 0x60);
	assert_int_not_equal(stamp, 0);
	perfmap__free(m);
}

/* The image build() lays out, read once: the stamp of that read. */
static uint64_t read_built(void)
{
	struct beam_jit_info info;
	struct perfmap *m;
	uint64_t stamp = 0;

	build();
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 0);
	perfmap__free(m);
	return stamp;
}

/* Unchanged: 1 and nothing read; a module more: read again. */
static void test_stamp(void **state)
{
	struct beam_jit_info info;
	struct perfmap *m;
	uint64_t stamp = read_built();

	(void)state;
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 1);
	assert_null(m);
	put_entry(3, 0, put_emulator(FILES + 0x3000, 1));
	put_descriptor(1, 3);
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 0);
	assert_true(info.frame_pointers);
	perfmap__free(m);
}

/* A module purged and another loaded whose list entry and record got the
 * freed ones' addresses back from malloc: the descriptor is as it was, the
 * list is not, and it is read again. */
static void test_stamp_reused_entry(void **state)
{
	static const struct range later[] = { { 0x00, 0x30, "'Elixir.Busy':heavy/0", NULL } };
	struct beam_jit_info info;
	struct perfmap *m;
	uint64_t stamp = read_built(), off;

	(void)state;
	put_entry(0, 1, put_module(FILES, "'Elixir.Busy'", CODE + 0x100, 0x30, later, 1));
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 0);
	assert_non_null(m);
	assert_string_equal(name_at(m, CODE + 0x108, &off), "$'Elixir.Busy':heavy/0");
	perfmap__free(m);
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 1);
}

/* A node exiting frees its list under the read: what is torn away does not
 * take the names read before with it, but a torn read that names more
 * (a node still loading) is taken. */
static void test_torn_keeps_held(void **state)
{
	struct beam_jit_info info;
	struct perfmap *held, *m, *again;
	uint64_t stamp = 0;

	(void)state;
	build();
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &held, &info), 0);
	put_u64(ENTRIES + 32 + 16, BASE + SIZE); /* busy's record, freed */
	stamp = 0;
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, held, &m, &info), 1);
	assert_null(m);
	assert_int_equal(stamp, 0);
	/* nothing held, or no more than the torn read names: it is taken */
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 0);
	assert_null(perfmap__lookup(m, CODE + 0x18, NULL));
	assert_string_equal(name_at(m, CODE + 0x48, NULL), "$'Elixir.New':f/0");
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, m, &again, &info), 0);
	assert_non_null(again);
	perfmap__free(again);
	perfmap__free(m);
	/* fewer than held but whole: the node purged a module */
	build();
	put_entry(0, 2, put_module(FILES, "'Elixir.New'", CODE + 0x40, 0x20, newer, 1));
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, held, &m, &info), 0);
	assert_non_null(m);
	assert_null(perfmap__lookup(m, CODE + 0x18, NULL));
	assert_int_not_equal(stamp, 0);
	perfmap__free(m);
	perfmap__free(held);
}

static void test_bad_descriptor(void **state)
{
	struct beam_jit_info info;
	struct perfmap *m;
	uint64_t stamp = 0;

	(void)state;
	build();
	assert_int_equal(beam_jit__read(&mem, BASE + SIZE, &stamp, NULL, &m, &info), -EFAULT);
	put_descriptor(2, 0);
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), -EPROTO);
	assert_null(m);
}

/* A range whose name runs past its file: the module's ranges after it are
 * dropped, the other modules named, and the list read again next time. */
static void test_torn_module(void **state)
{
	struct beam_jit_info info;
	struct perfmap *m;
	uint64_t stamp = 0;

	(void)state;
	build();
	put_u16(FILES + 0x1000 + 8 + 24 + 5 + 16 + 17 + 12, 0xffff); /* busy:heavy/0's name */
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 0);
	assert_string_equal(name_at(m, CODE, NULL), "$busy::codeHeader");
	assert_null(perfmap__lookup(m, CODE + 0x18, NULL));
	assert_string_equal(name_at(m, CODE + 0x48, NULL), "$'Elixir.New':f/0");
	assert_int_equal(stamp, 0);
	perfmap__free(m);
}

/* Too large a record, an entry that cannot be read, a list that loops:
 * bounded, and what can be read is named. */
static void test_bad_entries(void **state)
{
	struct beam_jit_info info;
	struct perfmap *m;
	uint64_t stamp = 0;

	(void)state;
	build();
	put_u64(ENTRIES + 24, BEAM_JIT_MAX_SYMFILE + 1);
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 0);
	assert_string_equal(name_at(m, CODE + 0x48, NULL), "$busy:light/0");
	perfmap__free(m);

	build();
	put_u64(ENTRIES + 32 + 16, BASE + SIZE); /* busy's file unreadable */
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 0);
	assert_null(perfmap__lookup(m, CODE + 0x18, NULL));
	perfmap__free(m);

	build();
	put_u64(ENTRIES + 64, ENTRIES); /* the oldest's next is the newest */
	assert_int_equal(beam_jit__read(&mem, DESC, &stamp, NULL, &m, &info), 0);
	assert_string_equal(name_at(m, CODE + 0x18, NULL), "$busy:heavy/0");
	assert_int_equal(stamp, 0);
	perfmap__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_bounds),   cmocka_unit_test(test_stamp),
		cmocka_unit_test(test_stamp_reused_entry), cmocka_unit_test(test_torn_keeps_held),
		cmocka_unit_test(test_bad_descriptor),	   cmocka_unit_test(test_torn_module),
		cmocka_unit_test(test_bad_entries),
	};

	return cmocka_run_group_tests_name("beam_jit", tests, NULL, NULL);
}
