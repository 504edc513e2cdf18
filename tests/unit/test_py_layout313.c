// SPDX-License-Identifier: GPL-2.0
/* 3.13's layout as it publishes it: the _Py_DebugOffsets at the start of
 * _PyRuntime, read from pyenv's libpython3.13 (its initial value, in
 * .data), against offsetof() over 3.13's own headers; and what is not
 * 3.13's offsets (no cookie, another version) refused. */
#include "py_headers.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_object.h"
#include "symbols/py_debug_offsets.h"

/* The len bytes at link-time address vaddr of the ELF file open on fd, as
 * its sections hold them: 0 or -ENOENT. */
static int read_vaddr(int fd, uint64_t vaddr, void *buf, size_t len)
{
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = -ENOENT;

	while (e && err && (scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh)) {
		off_t at = (off_t)(sh.sh_offset + vaddr - sh.sh_addr);

		if (sh.sh_type == SHT_PROGBITS && vaddr >= sh.sh_addr &&
		    vaddr + len <= sh.sh_addr + sh.sh_size)
			err = pread(fd, buf, len, at) == (ssize_t)len ? 0 : -EIO;
	}
	elf_end(e);
	return err;
}

/* _PyRuntime's start in path, as the library is loaded. */
static void runtime_bytes(const char *path, uint8_t *buf, size_t len)
{
	static const char *const names[] = { "_PyRuntime" };
	uint64_t at = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	assert_int_equal(elf_object__find(fd, names, 1, &at), 0);
	assert_int_equal(read_vaddr(fd, at, buf, len), 0);
	close(fd);
}

static void test_python313(void **state)
{
	(void)state;
#if defined(HAVE_HEADERS) && PY_MINOR_VERSION == 13 && defined(PY313_LIB)
	uint8_t buf[PY_DEBUG_OFFSETS_SIZE];
	struct py_layout l;

	assert_int_equal(sizeof(_Py_DebugOffsets), PY_DEBUG_OFFSETS_SIZE);
	runtime_bytes(PY313_LIB, buf, sizeof(buf));
	assert_int_equal(py_debug_offsets__layout(buf, sizeof(buf), &l), 0);
	assert_int_equal(l.major, 3);
	assert_int_equal(l.minor, 13);
	assert_int_equal(l.walk.flags, PY_WALK_SHIM);
	check_common_offsets(&l);
	assert_int_equal(l.walk.tstate_frame, offsetof(PyThreadState, current_frame));
	assert_int_equal(l.walk.frame_code, offsetof(_PyInterpreterFrame, f_executable));
	assert_int_equal(l.walk.frame_instr, offsetof(_PyInterpreterFrame, instr_ptr));
	assert_int_equal(l.walk.frame_entry, offsetof(_PyInterpreterFrame, owner));
	assert_int_equal(FRAME_OWNED_BY_CSTACK, PY_OWNED_BY_CSTACK);
#else
	print_message("SKIP: CPython 3.13 (pyenv's, with its headers) is not installed\n");
	skip();
#endif
}

/* Before 3.13 there is no cookie: the table's. A later version lays its
 * offsets out otherwise: not read as 3.13's, its version said. */
static void test_not_313(void **state)
{
	uint8_t buf[PY_DEBUG_OFFSETS_SIZE] = { 0 };
	uint64_t version = 0x030e00f0; /* 3.14.0 */
	struct py_layout l;

	(void)state;
	assert_int_equal(py_debug_offsets__layout(buf, sizeof(buf), &l), -ENOENT);
	memcpy(buf, "xdebugpy", 8);
	memcpy(buf + 8, &version, sizeof(version));
	assert_int_equal(py_debug_offsets__layout(buf, sizeof(buf), &l), -EPROTONOSUPPORT);
	assert_int_equal(l.major, 3);
	assert_int_equal(l.minor, 14);
	/* 3.13's cookie with offsets out of bounds */
	version = 0x030d00f0;
	memcpy(buf + 8, &version, sizeof(version));
	memset(buf + 16, 0xff, sizeof(buf) - 16);
	assert_int_equal(py_debug_offsets__layout(buf, sizeof(buf), &l), -EPROTONOSUPPORT);
	assert_int_equal(py_debug_offsets__layout(buf, 12, &l), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_python313),
		cmocka_unit_test(test_not_313),
	};

	return cmocka_run_group_tests_name("py_layout313", tests, NULL, NULL);
}
