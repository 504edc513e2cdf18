/* CPython's structures as each version lays them out: what the BPF walk
 * reads (struct py_offsets of bpf/python.h) and what user space reads of a
 * code object and its strings. */
#ifndef FLAMEBPF_PY_LAYOUT_H
#define FLAMEBPF_PY_LAYOUT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

#include "python.h"

struct py_layout {
	unsigned int major, minor;
	struct py_offsets walk;
	/* PyCodeObject (co_qualname 0: none, before 3.11) */
	uint32_t co_firstlineno, co_filename, co_name, co_qualname, co_linetable;
	bool pair_lines; /* co_linetable as 3.10's pairs (py_linetable.h) */
	/* PyUnicodeObject (PEP 393) and PyBytesObject */
	uint32_t str_length, str_state, str_ascii_data;	      /* PyASCIIObject */
	uint32_t str_utf8_length, str_utf8, str_compact_data; /* PyCompactUnicodeObject */
	uint32_t bytes_size, bytes_data;
};

/* The version a CPython file's name says (python3.11, libpython3.11.so.1.0):
 * whether it says one. */
bool py_layout__version_of_file(const char *path, unsigned int *major, unsigned int *minor);

/* The layout of CPython major.minor, or NULL when it is not known. */
const struct py_layout *py_layout__find(unsigned int major, unsigned int minor);

#endif
