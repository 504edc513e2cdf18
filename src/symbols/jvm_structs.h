/* HotSpot's description of its own structures, the VMStructs tables its
 * serviceability agent reads (gHotSpotVMStructs, gHotSpotVMTypes and the
 * strides and offsets of their entries, all exported by libjvm.so), read
 * from a running JVM's memory: where its template interpreter lies, and
 * the fields that name the method an interpreted frame runs. */
#ifndef FLAMEBPF_JVM_STRUCTS_H
#define FLAMEBPF_JVM_STRUCTS_H

#include <stddef.h>
#include <stdint.h>

#include "proc_mem.h"

/* The symbols of libjvm.so the tables are found by, in this order. */
enum jvm_symbol {
	JVM_STRUCTS,	       /* gHotSpotVMStructs: the entries' address */
	JVM_STRUCT_STRIDE,     /* ... and their size */
	JVM_STRUCT_TYPE_NAME,  /* ... and where in one each field lies */
	JVM_STRUCT_FIELD_NAME, /* (a char *) */
	JVM_STRUCT_IS_STATIC,  /* (an int32_t) */
	JVM_STRUCT_OFFSET,     /* (a uint64_t: a field's offset) */
	JVM_STRUCT_ADDRESS,    /* (a void *: a static field's address) */
	JVM_TYPES,	       /* gHotSpotVMTypes */
	JVM_TYPE_STRIDE,
	JVM_TYPE_NAME,
	JVM_TYPE_SIZE, /* (a uint64_t) */
	JVM_NSYMBOLS
};

extern const char *const jvm_symbol_names[JVM_NSYMBOLS];

/* What naming a method takes: a Method's ConstMethod, its ConstantPool
 * (whose entries follow it: the name and signature are Symbols there,
 * by index), the pool's class and the class's name. */
struct jvm_layout {
	uint32_t method_const;	  /* Method::_constMethod */
	uint32_t const_pool;	  /* ConstMethod::_constants */
	uint32_t const_name;	  /* ConstMethod::_name_index (u2) */
	uint32_t const_signature; /* ConstMethod::_signature_index (u2) */
	uint32_t pool_holder;	  /* ConstantPool::_pool_holder */
	uint32_t pool_length;	  /* ConstantPool::_length (int) */
	uint32_t pool_size;	  /* sizeof(ConstantPool) */
	uint32_t klass_name;	  /* Klass::_name */
	uint32_t symbol_length;	  /* Symbol::_length (u2) */
	uint32_t symbol_body;	  /* Symbol::_body */
	uint64_t interp_code;	  /* AbstractInterpreter::_code's address: a StubQueue * */
	uint64_t call_stub_ret;	  /* StubRoutines::_call_stub_return_address's (0: none) */
	uint32_t queue_buffer;	  /* StubQueue::_stub_buffer */
	uint32_t queue_limit;	  /* StubQueue::_buffer_limit (int) */
};

/* The layout from the tables, whose symbols are at sym[] in the process.
 * Returns 0, -ENOENT when a field is missing (another HotSpot, or not a
 * JVM), -EFAULT when the memory cannot be read, or -errno. */
int jvm_structs__read(const struct proc_mem *mem, const uint64_t *sym, struct jvm_layout *l);

/* The template interpreter's code, [*lo, *hi). -EAGAIN when the JVM has
 * not made it yet; -EFAULT or -errno. */
int jvm_structs__interpreter(const struct proc_mem *mem, const struct jvm_layout *l, uint64_t *lo,
			     uint64_t *hi);

/* Where the call stub, which C++ calls Java through, returns to from the
 * method it called (a frame there is the stub's), or 0. */
uint64_t jvm_structs__call_stub(const struct proc_mem *mem, const struct jvm_layout *l);

/* The method at address method as the JVM's perf map names it ("long
 * Hot.hot(long, long)") into buf. Returns 0, -EFAULT when it cannot be
 * read, -EINVAL when what is read is not a method, or -ENOSPC. */
int jvm_structs__method(const struct proc_mem *mem, const struct jvm_layout *l, uint64_t method,
			char *buf, size_t len);

#endif
