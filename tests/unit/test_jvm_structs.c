// SPDX-License-Identifier: GPL-2.0
/* HotSpot's VMStructs tables read from a fake memory image laid out as
 * JDK 17's libjvm.so lays them out (the strides and offsets its exported
 * symbols gave on Debian's openjdk-17, field offsets as its Method,
 * ConstMethod, ConstantPool, Klass and Symbol have them): the layout, the
 * interpreter's code, a method named as the JVM's perf map names it; then
 * tables and methods that are torn, missing a field or point anywhere,
 * which must fail with an error, never crash. */
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "symbols/jvm_procs.h"
#include "symbols/jvm_signature.h"
#include "symbols/jvm_structs.h"
#include "unwind.h"

#define FAKE_MEM_BASE 0x10000u
#define FAKE_MEM_SIZE 0x8000u

#include "fake_mem.h"

#define SYMS	0x10000u /* the exported variables, a word each */
#define STRUCTS 0x11000u /* VMStructEntry: 48 bytes */
#define TYPES	0x12800u /* VMTypeEntry: 48 bytes */
#define STRINGS 0x13000u
#define METHOD	0x15000u
#define CONST	0x15100u
#define POOL	0x15200u
#define HOLDER	0x15400u
#define SYMBOLS 0x15600u /* 0x40 apart */
#define QUEUE	0x16000u
#define CODEVAR 0x16100u /* AbstractInterpreter::_code */
#define STUBVAR 0x16108u /* StubRoutines::_call_stub_return_address */

#define STRIDE	  48
#define POOL_SIZE 72 /* sizeof(ConstantPool) */

static const struct proc_mem mem = { fake_read, NULL };
static uint64_t sym[JVM_NSYMBOLS];
static uint64_t next_string;
static unsigned int nstructs, ntypes;

static uint64_t put_string(const char *s)
{
	uint64_t at = next_string;

	put(at, s, strlen(s) + 1);
	next_string += strlen(s) + 1;
	return at;
}

static void put_field(const char *type, const char *field, int is_static, uint64_t off_or_addr)
{
	uint64_t e = STRUCTS + (uint64_t)STRIDE * nstructs++;

	put_u64(e, put_string(type));
	put_u64(e + 8, put_string(field));
	put_u32(e + 24, (uint32_t)is_static);
	put_u64(is_static ? e + 40 : e + 32, off_or_addr);
}

static void put_type(const char *type, uint64_t size)
{
	uint64_t e = TYPES + (uint64_t)STRIDE * ntypes++;

	put_u64(e, put_string(type));
	put_u64(e + 24, size);
}

/* Symbol k (its text) at SYMBOLS + 0x40 k. */
static uint64_t put_symbol(unsigned int k, const char *text)
{
	uint64_t at = SYMBOLS + 0x40u * k;

	put_u16(at + 4, (uint16_t)strlen(text));
	put(at + 6, text, strlen(text));
	return at;
}

/* The tables, every field there but skip ("Type::_field", or NULL); the method
 * p/Hot.hot(J[[Ljava/lang/String;)J with its name and signature at pool
 * entries 3 and 4 of 10; the interpreter at 0x7f0000001000, 0x2000 long. */
static void build(const char *skip)
{
	static const struct {
		const char *type, *field;
		int is_static;
		uint64_t v;
	} fields[] = {
		{ "Klass", "_layout_helper", 0, 8 },
		{ "Method", "_constMethod", 0, 8 },
		{ "ConstMethod", "_constants", 0, 8 },
		{ "ConstMethod", "_name_index", 0, 34 },
		{ "ConstMethod", "_signature_index", 0, 36 },
		{ "ConstantPool", "_pool_holder", 0, 24 },
		{ "ConstantPool", "_length", 0, 48 },
		{ "Klass", "_name", 0, 24 },
		{ "Symbol", "_length", 0, 4 },
		{ "Symbol", "_body", 0, 6 },
		{ "AbstractInterpreter", "_code", 1, CODEVAR },
		{ "StubQueue", "_stub_buffer", 0, 8 },
		{ "StubQueue", "_buffer_limit", 0, 20 },
		{ "StubRoutines", "_call_stub_return_address", 1, STUBVAR },
	};

	memset(image, 0, sizeof(image));
	next_string = STRINGS;
	nstructs = ntypes = 0;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s::%s", fields[i].type, fields[i].field);
		if (!skip || strcmp(skip, name))
			put_field(fields[i].type, fields[i].field, fields[i].is_static,
				  fields[i].v);
	}
	put_type("Method", 88);
	put_type("ConstantPool", POOL_SIZE);
	for (int i = 0; i < JVM_NSYMBOLS; i++)
		sym[i] = SYMS + 8u * i;
	put_u64(sym[JVM_STRUCTS], STRUCTS);
	put_u64(sym[JVM_STRUCT_STRIDE], STRIDE);
	put_u64(sym[JVM_STRUCT_TYPE_NAME], 0);
	put_u64(sym[JVM_STRUCT_FIELD_NAME], 8);
	put_u64(sym[JVM_STRUCT_IS_STATIC], 24);
	put_u64(sym[JVM_STRUCT_OFFSET], 32);
	put_u64(sym[JVM_STRUCT_ADDRESS], 40);
	put_u64(sym[JVM_TYPES], TYPES);
	put_u64(sym[JVM_TYPE_STRIDE], STRIDE);
	put_u64(sym[JVM_TYPE_NAME], 0);
	put_u64(sym[JVM_TYPE_SIZE], 24);

	put_u64(METHOD + 8, CONST);
	put_u64(CONST + 8, POOL);
	put_u16(CONST + 34, 3);
	put_u16(CONST + 36, 4);
	put_u64(POOL + 24, HOLDER);
	put_u32(POOL + 48, 10);
	put_u64(POOL + POOL_SIZE + 8 * 3, put_symbol(1, "hot"));
	put_u64(POOL + POOL_SIZE + 8 * 4, put_symbol(2, "(J[[Ljava/lang/String;)J"));
	put_u64(HOLDER + 24, put_symbol(3, "p/Hot"));

	put_u64(CODEVAR, QUEUE);
	put_u64(QUEUE + 8, 0x7f0000001000ULL);
	put_u32(QUEUE + 20, 0x2000);
	put_u64(STUBVAR, 0x7f0000000cc9ULL);
}

static void test_layout_interpreter_method(void **state)
{
	struct jvm_layout l;
	uint64_t lo, hi;
	char name[128];

	(void)state;
	build(NULL);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), 0);
	assert_int_equal(l.pool_size, POOL_SIZE);
	assert_int_equal(l.const_name, 34);
	assert_int_equal(jvm_structs__interpreter(&mem, &l, &lo, &hi), 0);
	assert_int_equal(lo, 0x7f0000001000ULL);
	assert_int_equal(hi, 0x7f0000003000ULL);
	assert_int_equal(jvm_structs__call_stub(&mem, &l), 0x7f0000000cc9ULL);
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, sizeof(name)), 0);
	assert_string_equal(name, "long p.Hot.hot(long, java.lang.String[][])");
	/* too small for it: no partial name */
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, 20), -ENOSPC);
}

/* Not yet made: the queue pointer still NULL. */
static void test_interpreter_not_made(void **state)
{
	struct jvm_layout l;
	uint64_t lo, hi;

	(void)state;
	build(NULL);
	put_u64(CODEVAR, 0);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), 0);
	assert_int_equal(jvm_structs__interpreter(&mem, &l, &lo, &hi), -EAGAIN);
}

/* A field naming needs is missing: another HotSpot; an optional one is
 * not needed (without the pool's length, an index is not checked). */
static void test_missing_field(void **state)
{
	struct jvm_layout l;
	char name[128];

	(void)state;
	build("Symbol::_body");
	assert_int_equal(jvm_structs__read(&mem, sym, &l), -ENOENT);
	build("AbstractInterpreter::_code");
	assert_int_equal(jvm_structs__read(&mem, sym, &l), -ENOENT);
	build("StubRoutines::_call_stub_return_address");
	assert_int_equal(jvm_structs__read(&mem, sym, &l), 0);
	assert_int_equal(jvm_structs__call_stub(&mem, &l), 0);
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, sizeof(name)), 0);
	build("ConstantPool::_length");
	assert_int_equal(jvm_structs__read(&mem, sym, &l), 0);
	assert_int_equal(l.pool_length, 0);
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, sizeof(name)), 0);
	assert_string_equal(name, "long p.Hot.hot(long, java.lang.String[][])");
}

/* A field of the right name but not as the layout takes it: a static
 * field where an offset is wanted, an offset out of bounds; a pool whose
 * size is not one. */
static void test_odd_fields(void **state)
{
	struct jvm_layout l;

	(void)state;
	build("Symbol::_body");
	put_field("Symbol", "_body", 1, 0x10000);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), -ENOENT);
	build("Symbol::_body");
	put_field("Symbol", "_body", 0, 1u << 24);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), -ENOENT);
	build(NULL);
	put_u64(TYPES + STRIDE + 24, 1u << 20);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), -ENOENT);
}

/* The interpreter's queue made but not filled: not yet. */
static void test_interpreter_empty(void **state)
{
	struct jvm_layout l;
	uint64_t lo, hi;

	(void)state;
	build(NULL);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), 0);
	put_u32(QUEUE + 20, 0);
	assert_int_equal(jvm_structs__interpreter(&mem, &l, &lo, &hi), -EAGAIN);
	put_u32(QUEUE + 20, 0x80000000u);
	assert_int_equal(jvm_structs__interpreter(&mem, &l, &lo, &hi), -EAGAIN);
	put_u32(QUEUE + 20, 0x100);
	put_u64(QUEUE + 8, 0);
	assert_int_equal(jvm_structs__interpreter(&mem, &l, &lo, &hi), -EAGAIN);
}

/* Tables that never end, strides out of bounds, symbols not there. */
static void test_bad_tables(void **state)
{
	struct jvm_layout l;

	(void)state;
	/* no NULL type name: each table in turn runs to the end of the image */
	for (int t = 0; t < 2; t++) {
		build(NULL);
		for (uint64_t e = 0x17000; e < FAKE_MEM_BASE + FAKE_MEM_SIZE; e += 8)
			put_u64(e, STRINGS);
		put_u64(sym[t ? JVM_TYPES : JVM_STRUCTS], 0x17000);
		assert_int_equal(jvm_structs__read(&mem, sym, &l), -EFAULT);
	}
	build(NULL);
	put_u64(sym[JVM_STRUCT_STRIDE], 100000);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), -ENOENT);
	build(NULL);
	put_u64(sym[JVM_STRUCT_ADDRESS], STRIDE);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), -ENOENT);
	build(NULL);
	sym[JVM_TYPES] = 0;
	assert_int_equal(jvm_structs__read(&mem, sym, &l), -ENOENT);
	build(NULL);
	put_u64(sym[JVM_STRUCTS], 0x90000000ULL);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), -EFAULT);
}

/* What a frame's word gives when it is not a method: errors only. */
static void test_bad_methods(void **state)
{
	struct jvm_layout l;
	char name[128];

	(void)state;
	build(NULL);
	assert_int_equal(jvm_structs__read(&mem, sym, &l), 0);
	assert_int_equal(jvm_structs__method(&mem, &l, 0, name, sizeof(name)), -EINVAL);
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD + 3, name, sizeof(name)), -EINVAL);
	assert_int_equal(jvm_structs__method(&mem, &l, 0x90000000ULL, name, sizeof(name)), -EFAULT);
	/* an index past the pool's length */
	put_u16(CONST + 34, 10);
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, sizeof(name)), -EINVAL);
	put_u16(CONST + 34, 0);
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, sizeof(name)), -EINVAL);
	/* a signature that is not one */
	put_u16(CONST + 34, 3);
	put_u64(POOL + POOL_SIZE + 8 * 4, put_symbol(2, "(J[[Ljava/lang/String"));
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, sizeof(name)), -EINVAL);
	/* a name whose length runs past the end of the memory */
	put_u64(POOL + POOL_SIZE + 8 * 4, put_symbol(2, "()J"));
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, sizeof(name)), 0);
	put_u16(FAKE_MEM_BASE + FAKE_MEM_SIZE - 0x40 + 4, 0xffff);
	put_u64(POOL + POOL_SIZE + 8 * 3, FAKE_MEM_BASE + FAKE_MEM_SIZE - 0x40);
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, sizeof(name)), -EFAULT);
	/* a class without a name */
	put_u64(POOL + POOL_SIZE + 8 * 3, put_symbol(1, "hot"));
	put_u64(HOLDER + 24, 0);
	assert_int_equal(jvm_structs__method(&mem, &l, METHOD, name, sizeof(name)), -EINVAL);
}

static void check_format(const char *desc, const char *want)
{
	char buf[256];
	int err = jvm_signature__format("a/b/C$D", "m", desc, buf, sizeof(buf));

	if (!want) {
		assert_int_equal(err, -EINVAL);
		return;
	}
	assert_int_equal(err, 0);
	assert_string_equal(buf, want);
}

static void test_format(void **state)
{
	char small[16];

	(void)state;
	check_format("()V", "void a.b.C$D.m()");
	check_format("(BCDFIJSZ)Z",
		     "boolean a.b.C$D.m(byte, char, double, float, int, long, short, boolean)");
	check_format("([I[[Ljava/lang/Object;Ljava/util/List;)[J",
		     "long[] a.b.C$D.m(int[], java.lang.Object[][], java.util.List)");
	check_format("", NULL);
	check_format("V", NULL);
	check_format("(I", NULL);
	check_format("()", NULL);
	check_format("()VV", NULL);
	check_format("(V)V", NULL);
	check_format("()[V", NULL);
	check_format("(L;)V", NULL);
	check_format("(Lx)V", NULL);
	check_format("(X)V", NULL);
	check_format("(Ljava/lang/String)V;", NULL);
	assert_int_equal(jvm_signature__format("K", "m", "()V", small, sizeof(small)), 0);
	assert_int_equal(jvm_signature__format("Klass", "method", "()V", small, sizeof(small)),
			 -ENOSPC);
	assert_int_equal(jvm_signature__format("K", "m", "()V", small, 0), -ENOSPC);
}

/* Whose methods a stack's words are: its last word says, when it is a
 * pid's. */
static void test_stack_pid(void **state)
{
	const uint64_t jvm[] = { UNWIND_JVM_METHOD | 0x7f00, 0x401000, UNWIND_JVM_PID | 4321 };
	const uint64_t other[] = { 0x401000, 0xffffffff81000000ULL };
	const uint64_t method_last[] = { 0x401000, UNWIND_JVM_METHOD | 4321 };
	const uint64_t high[] = { 0x401000, UNWIND_JVM_PID | 1ULL << 40 | 4321 };
	pid_t pid = 0;

	(void)state;
	assert_true(jvm_procs__stack_pid(jvm, 3, &pid));
	assert_int_equal(pid, 4321);
	assert_false(jvm_procs__stack_pid(jvm, 2, &pid));
	assert_false(jvm_procs__stack_pid(jvm, 0, &pid));
	assert_false(jvm_procs__stack_pid(other, 2, &pid));
	assert_false(jvm_procs__stack_pid(method_last, 2, &pid));
	assert_false(jvm_procs__stack_pid(high, 2, &pid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_interpreter_method),
		cmocka_unit_test(test_interpreter_not_made),
		cmocka_unit_test(test_missing_field),
		cmocka_unit_test(test_odd_fields),
		cmocka_unit_test(test_interpreter_empty),
		cmocka_unit_test(test_stack_pid),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_bad_methods),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
