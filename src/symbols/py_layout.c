// SPDX-License-Identifier: GPL-2.0
/* Offsets read from CPython's own headers for x86-64 (Include/cpython/
 * pystate.h, code.h, unicodeobject.h, internal/pycore_frame.h,
 * pycore_interp.h, pycore_runtime.h) and checked against Debian 12's
 * python3.11 with offsetof() (tests/unit/test_py_layout.c). */
#include <stddef.h>

#include "py_layout.h"

static const struct py_layout layouts[] = {
	{
		.major = 3,
		.minor = 11,
		.walk = {
			.runtime_interp_head = 40,
			.interp_next = 0,
			.interp_threads_head = 16,
			.tstate_next = 8,
			.tstate_native_tid = 160,
			.tstate_cframe = 56,
			.cframe_current = 8,
			.frame_code = 32,
			.frame_previous = 48,
			.frame_prev_instr = 56,
			.frame_is_entry = 68,
			.code_adaptive = 184,
		},
		.co_firstlineno = 72,
		.co_filename = 112,
		.co_name = 120,
		.co_qualname = 128,
		.co_linetable = 136,
		.str_length = 16,
		.str_state = 32,
		.str_ascii_data = 48,
		.str_utf8_length = 48,
		.str_utf8 = 56,
		.str_compact_data = 72,
		.bytes_size = 16,
		.bytes_data = 32,
	},
};

const struct py_layout *py_layout__find(unsigned int major, unsigned int minor)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].major == major && layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}
