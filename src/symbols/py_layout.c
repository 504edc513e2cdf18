// SPDX-License-Identifier: GPL-2.0
/* Offsets read from CPython's own headers for x86-64 (Include/cpython/
 * pystate.h, code.h, unicodeobject.h, internal/pycore_frame.h,
 * pycore_interp.h, pycore_runtime.h) and checked with offsetof() against
 * Debian 12's python3.11 (tests/unit/test_py_layout.c) and pyenv's 3.10
 * and 3.12 (test_py_layout310.c, test_py_layout312.c). 3.13 and later publish theirs
 * (py_debug_offsets.c). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "py_layout.h"

static const struct py_layout layouts[] = {
	{
		/* PyFrameObject chains, each frame its own C call of the
		 * loop; threads known by pthread_self(); no co_qualname */
		.major = 3,
		.minor = 10,
		.walk = {
			.runtime_interp_head = 32,
			.interp_threads_head = 8,
			.tstate_next = 8,
			.tstate_native_tid = 176,
			.tstate_frame = 24,
			.frame_code = 32,
			.frame_previous = 24,
			.frame_instr = 96,
			.flags = PY_WALK_FRAMEOBJ | PY_WALK_PTHREAD,
		},
		.co_firstlineno = 40,
		.co_filename = 104,
		.co_name = 112,
		.co_linetable = 120,
		.pair_lines = true,
		.str_length = 16,
		.str_state = 32,
		.str_ascii_data = 48,
		.str_utf8_length = 48,
		.str_utf8 = 56,
		.str_compact_data = 72,
		.bytes_size = 16,
		.bytes_data = 32,
	},
	{
		.major = 3,
		.minor = 11,
		.walk = {
			.runtime_interp_head = 40,
			.interp_next = 0,
			.interp_threads_head = 16,
			.tstate_next = 8,
			.tstate_native_tid = 160,
			.tstate_frame = 56,
			.cframe_current = 8,
			.tstate_datastack = 296,
			.frame_code = 32,
			.frame_previous = 48,
			.frame_instr = 56,
			.frame_entry = 68,
			.code_adaptive = 184,
			.flags = PY_WALK_CFRAME,
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
	{
		/* the frame's code first; a shim frame where C entered the
		 * loop; strings without wstr */
		.major = 3,
		.minor = 12,
		.walk = {
			.runtime_interp_head = 40,
			.interp_threads_head = 72,
			.tstate_next = 8,
			.tstate_native_tid = 144,
			.tstate_frame = 56,
			.cframe_current = 0,
			.tstate_datastack = 232,
			.frame_code = 0,
			.frame_previous = 8,
			.frame_instr = 56,
			.frame_entry = 70,
			.code_adaptive = 192,
			.flags = PY_WALK_CFRAME | PY_WALK_SHIM,
		},
		.co_firstlineno = 68,
		.co_filename = 112,
		.co_name = 120,
		.co_qualname = 128,
		.co_linetable = 136,
		.str_length = 16,
		.str_state = 32,
		.str_ascii_data = 40,
		.str_utf8_length = 40,
		.str_utf8 = 48,
		.str_compact_data = 56,
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

bool py_layout__version_of_file(const char *path, unsigned int *major, unsigned int *minor)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "lib", 3))
		base += 3;
	return sscanf(base, "python%u.%u", major, minor) == 2;
}
