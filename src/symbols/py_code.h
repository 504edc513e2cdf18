/* A CPython code object read from a process's memory: the function's
 * name, file, first line and location table, which name its frames. */
#ifndef FLAMEBPF_PY_CODE_H
#define FLAMEBPF_PY_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc_mem.h"
#include "py_layout.h"

struct py_code {
	char *name; /* co_qualname ("Class.method"), else co_name; "?" unreadable */
	char *file; /* co_filename */
	int firstlineno;
	uint8_t *linetable; /* co_linetable's bytes (NULL: none) */
	size_t ntable;
	bool pair_lines; /* the table is 3.10's (py_layout.pair_lines) */
	/* what tells this code object from another at the same address once it
	 * is freed: its strings' and table's addresses, its first line */
	uint64_t ident;
};

/* The addresses of PyCode_Type and PyUnicode_Type in the process read: an
 * object of another type at a code object's or a string's address is
 * memory freed and taken by something else since (a code object freed
 * once its module was imported, before its record was read). 0: not
 * checked. */
struct py_types {
	uint64_t code, str;
};

/* Reads the code object at addr as layout l says, its type and its
 * strings' checked against t (NULL: not checked). A string that is not
 * compact (or not UTF-8 nor Latin-1), or not a string, reads as "?".
 * Returns 0, -EFAULT when the object itself cannot be read, -ESTALE when
 * it is no code object, or -ENOMEM. */
int py_code__read(const struct proc_mem *m, const struct py_layout *l, const struct py_types *t,
		  uint64_t addr, struct py_code *out);

/* The identity (py_code.ident) of the code object at addr now: 0, -EFAULT
 * or -ESTALE as py_code__read. Cheaper than py_code__read, to check that
 * an address still holds the code object read from it. */
int py_code__ident(const struct proc_mem *m, const struct py_layout *l, const struct py_types *t,
		   uint64_t addr, uint64_t *ident);

/* "NAME (FILE:LINE)" of a frame at code unit lasti, into buf. */
void py_code__frame_name(const struct py_code *c, int lasti, char *buf, size_t len);

void py_code__free(struct py_code *c);

#endif
