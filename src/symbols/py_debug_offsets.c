// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "elf_object.h"
#include "py_debug_offsets.h"

#define COOKIE "xdebugpy"
/* an offset beyond this is not one (a version laid out otherwise) */
#define OFFSET_MAX (1U << 20)

/* 3.13's _Py_DebugOffsets as 8-byte words (Include/internal/
 * pycore_runtime.h; test_py_layout313.c checks them against it). */
enum {
	D_VERSION = 1,
	D_RUNTIME_INTERP_HEAD = 5,
	D_INTERP_NEXT = 8,
	D_INTERP_THREADS_HEAD = 9,
	D_TSTATE_NEXT = 21,
	D_TSTATE_CURRENT_FRAME = 23,
	D_TSTATE_NATIVE_TID = 25,
	D_TSTATE_DATASTACK = 26,
	D_FRAME_PREVIOUS = 29,
	D_FRAME_EXECUTABLE = 30,
	D_FRAME_INSTR_PTR = 31,
	D_FRAME_OWNER = 33,
	D_CODE_FILENAME = 35,
	D_CODE_NAME = 36,
	D_CODE_QUALNAME = 37,
	D_CODE_LINETABLE = 38,
	D_CODE_FIRSTLINENO = 39,
	D_CODE_ADAPTIVE = 43,
	D_BYTES_OB_SIZE = 65,
	D_BYTES_OB_SVAL = 66,
	D_STR_STATE = 68,
	D_STR_LENGTH = 69,
	D_STR_ASCII_SIZE = 70,
	D_WORDS = PY_DEBUG_OFFSETS_SIZE / 8,
};

#define AT(f) offsetof(struct py_layout, f)

/* Which word goes where in struct py_layout (a uint32_t there). */
static const struct {
	unsigned int word;
	size_t at;
} fields[] = {
	{ D_RUNTIME_INTERP_HEAD, AT(walk.runtime_interp_head) },
	{ D_INTERP_NEXT, AT(walk.interp_next) },
	{ D_INTERP_THREADS_HEAD, AT(walk.interp_threads_head) },
	{ D_TSTATE_NEXT, AT(walk.tstate_next) },
	{ D_TSTATE_NATIVE_TID, AT(walk.tstate_native_tid) },
	{ D_TSTATE_CURRENT_FRAME, AT(walk.tstate_frame) },
	{ D_TSTATE_DATASTACK, AT(walk.tstate_datastack) },
	{ D_FRAME_EXECUTABLE, AT(walk.frame_code) },
	{ D_FRAME_PREVIOUS, AT(walk.frame_previous) },
	{ D_FRAME_INSTR_PTR, AT(walk.frame_instr) },
	{ D_FRAME_OWNER, AT(walk.frame_entry) },
	{ D_CODE_ADAPTIVE, AT(walk.code_adaptive) },
	{ D_CODE_FIRSTLINENO, AT(co_firstlineno) },
	{ D_CODE_FILENAME, AT(co_filename) },
	{ D_CODE_NAME, AT(co_name) },
	{ D_CODE_QUALNAME, AT(co_qualname) },
	{ D_CODE_LINETABLE, AT(co_linetable) },
	{ D_STR_LENGTH, AT(str_length) },
	{ D_STR_STATE, AT(str_state) },
	{ D_STR_ASCII_SIZE, AT(str_ascii_data) },
	{ D_BYTES_OB_SIZE, AT(bytes_size) },
	{ D_BYTES_OB_SVAL, AT(bytes_data) },
};

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* The frame's fields within the window the BPF walk reads of it, the
 * thread state's within the one it reads of that. */
static bool walkable(const struct py_offsets *o)
{
	uint32_t lo = MIN(MIN(o->tstate_frame, o->tstate_native_tid), o->tstate_datastack);
	uint32_t hi = MAX(MAX(o->tstate_frame, o->tstate_native_tid) + 8, o->tstate_datastack + 16);

	return o->frame_code <= 56 && o->frame_previous <= 56 && o->frame_instr <= 56 &&
	       o->frame_entry < PY_FRAME_WINDOW && hi - lo <= PY_TSTATE_WINDOW;
}

static int copy_fields(const uint64_t *w, struct py_layout *out)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint32_t v = (uint32_t)w[fields[i].word];

		if (w[fields[i].word] >= OFFSET_MAX)
			return -EPROTONOSUPPORT;
		memcpy((char *)out + fields[i].at, &v, sizeof(v));
	}
	/* PyCompactUnicodeObject: PyASCIIObject, then utf8_length, utf8 */
	out->str_utf8_length = out->str_ascii_data;
	out->str_utf8 = out->str_ascii_data + 8;
	out->str_compact_data = out->str_ascii_data + 16;
	out->walk.flags = PY_WALK_SHIM;
	return walkable(&out->walk) ? 0 : -EPROTONOSUPPORT;
}

int py_debug_offsets__layout(const void *buf, size_t len, struct py_layout *out)
{
	uint64_t w[D_WORDS];

	memset(out, 0, sizeof(*out));
	if (len < 16 || memcmp(buf, COOKIE, 8))
		return -ENOENT;
	memcpy(w, buf, len < sizeof(w) ? len : sizeof(w));
	/* PY_VERSION_HEX */
	out->major = (unsigned int)(w[D_VERSION] >> 24) & 0xff;
	out->minor = (unsigned int)(w[D_VERSION] >> 16) & 0xff;
	if (out->major != 3 || out->minor != 13 || len < sizeof(w))
		return -EPROTONOSUPPORT;
	return copy_fields(w, out);
}

int py_debug_offsets__of_file(int fd, struct py_layout *out)
{
	static const char *const names[] = { "_PyRuntime" };
	uint8_t buf[PY_DEBUG_OFFSETS_SIZE];
	uint64_t vaddr = 0, off;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if (elf_object__find(fd, names, 1, &vaddr) || elf_object__offset(fd, vaddr, &off))
		return -ENOENT;
	n = pread(fd, buf, sizeof(buf), (off_t)off);
	if (n < 0)
		return -errno;
	return py_debug_offsets__layout(buf, (size_t)n, out);
}
