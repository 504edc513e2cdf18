// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jvm_signature.h"
#include "jvm_structs.h"

const char *const jvm_symbol_names[JVM_NSYMBOLS] = {
	"gHotSpotVMStructs",
	"gHotSpotVMStructEntryArrayStride",
	"gHotSpotVMStructEntryTypeNameOffset",
	"gHotSpotVMStructEntryFieldNameOffset",
	"gHotSpotVMStructEntryIsStaticOffset",
	"gHotSpotVMStructEntryOffsetOffset",
	"gHotSpotVMStructEntryAddressOffset",
	"gHotSpotVMTypes",
	"gHotSpotVMTypeEntryArrayStride",
	"gHotSpotVMTypeEntryTypeNameOffset",
	"gHotSpotVMTypeEntrySizeOffset",
};

/* Bounds on what is read, against a torn or hostile table: JDK 17 has
 * some 2,000 field entries and 900 types. */
#define MAX_ENTRIES 32768
#define MAX_STRIDE  256
#define CHUNK	    64 /* entries read at once */
#define NAME_LEN    48 /* the longest type or field name compared, and its NUL */
#define SYMBOL_MAX  1024

/* The fields the layout takes, where it keeps them: a static field's
 * address (a uint64_t), else a field's offset (a uint32_t). */
struct wanted {
	const char *type, *field;
	size_t at;
	bool is_static, optional;
};

#define AT(f) offsetof(struct jvm_layout, f)

static const struct wanted wanted[] = {
	{ "Method", "_constMethod", AT(method_const), false, false },
	{ "ConstMethod", "_constants", AT(const_pool), false, false },
	{ "ConstMethod", "_name_index", AT(const_name), false, false },
	{ "ConstMethod", "_signature_index", AT(const_signature), false, false },
	{ "ConstantPool", "_pool_holder", AT(pool_holder), false, false },
	{ "ConstantPool", "_length", AT(pool_length), false, true },
	{ "Klass", "_name", AT(klass_name), false, false },
	{ "Symbol", "_length", AT(symbol_length), false, false },
	{ "Symbol", "_body", AT(symbol_body), false, false },
	{ "AbstractInterpreter", "_code", AT(interp_code), true, false },
	{ "StubQueue", "_stub_buffer", AT(queue_buffer), false, false },
	{ "StubQueue", "_buffer_limit", AT(queue_limit), false, false },
	{ "StubRoutines", "_call_stub_return_address", AT(call_stub_ret), true, true },
};

#define NWANTED (sizeof(wanted) / sizeof(wanted[0]))

static int read_u64(const struct proc_mem *mem, uint64_t addr, uint64_t *v)
{
	return mem->read(mem->arg, addr, v, sizeof(*v));
}

/* The NUL-terminated string at addr, up to len - 1 bytes, into buf: read
 * whole, or in smaller pieces where its end is near the end of a mapping.
 * -EFAULT when even a byte cannot be read. */
static int read_str(const struct proc_mem *mem, uint64_t addr, char *buf, size_t len)
{
	size_t got = 0;

	while (got + 1 < len) {
		size_t n = len - 1 - got;

		while (n && mem->read(mem->arg, addr + got, buf + got, n))
			n /= 2;
		if (!n)
			break;
		if (memchr(buf + got, 0, n))
			return 0;
		got += n;
	}
	buf[got] = 0;
	return got ? 0 : -EFAULT;
}

/* The table symbols' values: the tables' addresses, strides, offsets. */
static int read_symbols(const struct proc_mem *mem, const uint64_t *sym, uint64_t *v)
{
	for (int i = 0; i < JVM_NSYMBOLS; i++)
		if (!sym[i] || read_u64(mem, sym[i], &v[i]))
			return -ENOENT;
	if (!v[JVM_STRUCTS] || !v[JVM_TYPES] || v[JVM_STRUCT_STRIDE] < 8 ||
	    v[JVM_STRUCT_STRIDE] > MAX_STRIDE || v[JVM_TYPE_STRIDE] < 8 ||
	    v[JVM_TYPE_STRIDE] > MAX_STRIDE)
		return -ENOENT;
	for (int i = JVM_STRUCT_TYPE_NAME; i <= JVM_STRUCT_ADDRESS; i++)
		if (v[i] > v[JVM_STRUCT_STRIDE] - (i == JVM_STRUCT_IS_STATIC ? 4 : 8))
			return -ENOENT;
	for (int i = JVM_TYPE_NAME; i <= JVM_TYPE_SIZE; i++)
		if (v[i] > v[JVM_TYPE_STRIDE] - 8)
			return -ENOENT;
	return 0;
}

static uint64_t word_at(const uint8_t *e, uint64_t off)
{
	uint64_t v;

	memcpy(&v, e + off, sizeof(v));
	return v;
}

/* Calls each(entry, ctx) for every entry of the table at addr, read in
 * chunks, until it ends (its type name NULL, at name_off) or each returns
 * non-zero (1: found what it looked for). */
static int each_entry(const struct proc_mem *mem, uint64_t addr, uint64_t stride, uint64_t name_off,
		      int (*each)(const uint8_t *e, void *ctx), void *ctx)
{
	uint8_t buf[CHUNK * MAX_STRIDE];
	uint32_t i = 0;

	while (i < MAX_ENTRIES) {
		uint32_t n = CHUNK;

		/* the table's last chunk may run past its mapping */
		while (n && mem->read(mem->arg, addr + i * stride, buf, n * stride))
			n /= 2;
		if (!n)
			return -EFAULT;
		for (uint32_t k = 0; k < n; k++) {
			const uint8_t *e = buf + k * stride;
			int err;

			if (!word_at(e, name_off))
				return 0;
			err = each(e, ctx);
			if (err)
				return err > 0 ? 0 : err;
		}
		i += n;
	}
	return -E2BIG;
}

struct fields_ctx {
	const struct proc_mem *mem;
	const uint64_t *v;
	struct jvm_layout *l;
	uint64_t last_type;  /* the type name pointer looked at last */
	char type[NAME_LEN]; /* its name when wanted, else "" */
	uint32_t found;	     /* bit i: wanted[i] */
};

static bool type_is_wanted(const char *name)
{
	for (size_t i = 0; i < NWANTED; i++)
		if (!strcmp(name, wanted[i].type))
			return true;
	return false;
}

static void keep_field(struct fields_ctx *c, size_t i, const uint8_t *e)
{
	uint64_t off = word_at(e, c->v[JVM_STRUCT_OFFSET]);
	uint64_t addr = word_at(e, c->v[JVM_STRUCT_ADDRESS]);
	int32_t is_static;
	uint32_t off32 = (uint32_t)off;

	memcpy(&is_static, e + c->v[JVM_STRUCT_IS_STATIC], sizeof(is_static));
	if (!!is_static != wanted[i].is_static || (wanted[i].is_static ? !addr : off > 1 << 20))
		return;
	if (wanted[i].is_static)
		memcpy((uint8_t *)c->l + wanted[i].at, &addr, sizeof(addr));
	else
		memcpy((uint8_t *)c->l + wanted[i].at, &off32, sizeof(off32));
	c->found |= 1u << i;
}

/* One field entry: kept when the layout takes it. The entries of a type
 * come together, its name's one string: read once for them. */
static int field_entry(const uint8_t *e, void *ctx)
{
	struct fields_ctx *c = ctx;
	uint64_t type = word_at(e, c->v[JVM_STRUCT_TYPE_NAME]);
	char field[NAME_LEN];

	if (type != c->last_type) {
		c->last_type = type;
		if (read_str(c->mem, type, c->type, sizeof(c->type)) || !type_is_wanted(c->type))
			c->type[0] = 0;
	}
	if (!c->type[0] ||
	    read_str(c->mem, word_at(e, c->v[JVM_STRUCT_FIELD_NAME]), field, sizeof(field)))
		return 0;
	for (size_t i = 0; i < NWANTED; i++)
		if (!strcmp(c->type, wanted[i].type) && !strcmp(field, wanted[i].field))
			keep_field(c, i, e);
	return 0;
}

struct types_ctx {
	const struct proc_mem *mem;
	const uint64_t *v;
	uint64_t size; /* sizeof(ConstantPool); 0: not found yet */
};

static int type_entry(const uint8_t *e, void *ctx)
{
	struct types_ctx *c = ctx;
	char name[NAME_LEN];

	if (read_str(c->mem, word_at(e, c->v[JVM_TYPE_NAME]), name, sizeof(name)) ||
	    strcmp(name, "ConstantPool"))
		return 0;
	c->size = word_at(e, c->v[JVM_TYPE_SIZE]);
	return 1;
}

int jvm_structs__read(const struct proc_mem *mem, const uint64_t *sym, struct jvm_layout *l)
{
	uint64_t v[JVM_NSYMBOLS];
	struct fields_ctx fc = { .mem = mem, .v = v, .l = l };
	struct types_ctx tc = { mem, v, 0 };
	int err = read_symbols(mem, sym, v);

	memset(l, 0, sizeof(*l));
	if (err)
		return err;
	err = each_entry(mem, v[JVM_STRUCTS], v[JVM_STRUCT_STRIDE], v[JVM_STRUCT_TYPE_NAME],
			 field_entry, &fc);
	if (!err)
		err = each_entry(mem, v[JVM_TYPES], v[JVM_TYPE_STRIDE], v[JVM_TYPE_NAME],
				 type_entry, &tc);
	if (err)
		return err;
	for (size_t i = 0; i < NWANTED; i++)
		if (!wanted[i].optional && !(fc.found & 1u << i))
			return -ENOENT;
	if (!tc.size || tc.size > 4096)
		return -ENOENT;
	l->pool_size = (uint32_t)tc.size;
	return 0;
}

int jvm_structs__interpreter(const struct proc_mem *mem, const struct jvm_layout *l, uint64_t *lo,
			     uint64_t *hi)
{
	uint64_t queue, buffer;
	int32_t limit;
	int err;

	err = read_u64(mem, l->interp_code, &queue);
	if (!err && !queue)
		return -EAGAIN;
	err = err ?: read_u64(mem, queue + l->queue_buffer, &buffer);
	err = err ?: mem->read(mem->arg, queue + l->queue_limit, &limit, sizeof(limit));
	if (err)
		return err;
	if (!buffer || limit <= 0)
		return -EAGAIN;
	*lo = buffer;
	*hi = buffer + (uint32_t)limit;
	return 0;
}

uint64_t jvm_structs__call_stub(const struct proc_mem *mem, const struct jvm_layout *l)
{
	uint64_t ret;

	return l->call_stub_ret && !read_u64(mem, l->call_stub_ret, &ret) ? ret : 0;
}

/* The Symbol at addr's text into buf (NUL-terminated; cut at len - 1). */
static int read_symbol(const struct proc_mem *mem, const struct jvm_layout *l, uint64_t addr,
		       char *buf, size_t len)
{
	uint16_t n;
	int err;

	if (!addr || (addr & 7))
		return -EINVAL;
	err = mem->read(mem->arg, addr + l->symbol_length, &n, sizeof(n));
	if (err)
		return err;
	if (n >= len)
		n = (uint16_t)(len - 1);
	err = n ? mem->read(mem->arg, addr + l->symbol_body, buf, n) : 0;
	buf[n] = 0;
	return err;
}

/* Pool entry index of the constant pool at pool: a Symbol's address. */
static int pool_symbol(const struct proc_mem *mem, const struct jvm_layout *l, uint64_t pool,
		       uint16_t index, char *buf, size_t len)
{
	uint64_t sym;
	int32_t length;
	int err;

	if (!index)
		return -EINVAL;
	if (l->pool_length) {
		err = mem->read(mem->arg, pool + l->pool_length, &length, sizeof(length));
		if (err)
			return err;
		if (index >= length)
			return -EINVAL;
	}
	err = read_u64(mem, pool + l->pool_size + 8ULL * index, &sym);
	return err ?: read_symbol(mem, l, sym, buf, len);
}

int jvm_structs__method(const struct proc_mem *mem, const struct jvm_layout *l, uint64_t method,
			char *buf, size_t len)
{
	char klass[SYMBOL_MAX], name[SYMBOL_MAX], desc[SYMBOL_MAX];
	uint64_t cm, pool, holder, kname;
	uint16_t ni, si;
	int err;

	if (!method || (method & 7))
		return -EINVAL;
	err = read_u64(mem, method + l->method_const, &cm);
	err = err ?: read_u64(mem, cm + l->const_pool, &pool);
	err = err ?: mem->read(mem->arg, cm + l->const_name, &ni, sizeof(ni));
	err = err ?: mem->read(mem->arg, cm + l->const_signature, &si, sizeof(si));
	err = err ?: read_u64(mem, pool + l->pool_holder, &holder);
	err = err ?: read_u64(mem, holder + l->klass_name, &kname);
	err = err ?: read_symbol(mem, l, kname, klass, sizeof(klass));
	err = err ?: pool_symbol(mem, l, pool, ni, name, sizeof(name));
	err = err ?: pool_symbol(mem, l, pool, si, desc, sizeof(desc));
	return err ?: jvm_signature__format(klass, name, desc, buf, len);
}
