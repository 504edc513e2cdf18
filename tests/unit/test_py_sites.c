// SPDX-License-Identifier: GPL-2.0
/* The probe sites of CPython 3.11's evaluation loop (3.10: of its calls),
 * found in real interpreters: Debian's (non-PIE, stripped) and pyenv's
 * libpython (PIE, its opcode table filled by relocations). Skips where one
 * is absent. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "capture/disasm.h"
#include "capture/py_sites.h"
#include "capture/ret_sites.h"
#include "symbols/py_layout.h"
#include "util.h"

#define DEBIAN_PY "/usr/bin/python3.11"
#define PYENV	  "/root/.pyenv/versions/"
#define PYENV_311 PYENV "3.11.7/lib/libpython3.11.so.1.0"
#define PYENV_312 PYENV "3.12.1/lib/libpython3.12.so.1.0"
#define PYENV_313 PYENV "3.13.0/lib/libpython3.13.so.1.0"
#define PYENV_310 PYENV "3.10.13/lib/libpython3.10.so.1.0"
/* _PyInterpreterFrame.prev_instr (3.11, 3.12), .instr_ptr (3.13) */
#define FRAME_INSTR 56

/* Where Debian's RESUME_QUICK handler first branches (objdump -d):
 * "cmp $0x1,%r9d; jg", after storing prev_instr through %rbx. */
#define DEBIAN_RESUME_QUICK_SITE 0x52b2b1
#define REG_RBX			 3

static int open_or_skip(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		print_message("skipped: %s is absent\n", path);
		skip();
	}
	return fd;
}

static int find(const char *path, unsigned int minor, struct py_sites *ps, char *why, size_t len)
{
	struct disasm *d;
	int fd = open_or_skip(path), err;

	assert_int_equal(disasm__new(&d), 0);
	err = py_sites__find(d, fd, 3, minor, FRAME_INSTR, ps, why, len);
	disasm__free(d);
	close(fd);
	return err;
}

/* The file offset of a link-time address, by readelf's PT_LOADs. */
static uint64_t file_offset(const char *path, uint64_t vaddr)
{
	struct u_readelf r = u_readelf(path);
	uint64_t off = 0;

	for (size_t i = 0; i < r.nsegs; i++)
		if (vaddr >= r.seg[i][1] && vaddr - r.seg[i][1] < r.seg[i][2])
			off = r.seg[i][0] + (vaddr - r.seg[i][1]);
	u_readelf_free(&r);
	assert_true(off != 0);
	return off;
}

/* A uprobe there is emulated: a relative jump, jcc or call (at worst an
 * indirect jump, which DISPATCH is). */
static bool is_branch_at(int fd, uint64_t off, char *what, size_t len)
{
	uint8_t code[16];
	const uint8_t *p = code;
	size_t left = sizeof(code);
	uint64_t addr = off;
	bool branch;
	struct disasm *d;
	cs_insn *insn;

	assert_int_equal(pread(fd, code, sizeof(code), (off_t)off), sizeof(code));
	assert_int_equal(disasm__new(&d), 0);
	insn = disasm__insn_new(d);
	assert_true(disasm__next(d, &p, &left, &addr, insn));
	branch = disasm__in_group(insn, CS_GRP_JUMP) || disasm__in_group(insn, CS_GRP_CALL);
	snprintf(what, len, "%s %s", insn->mnemonic, insn->op_str);
	disasm__insn_free(d, insn);
	disasm__free(d);
	return branch;
}

/* nentry and nexit sites, all distinct, each a branch but nstepped exits
 * (handlers that leave the frame's register before their first branch,
 * probed at their start), the frame in a register other than rsp;
 * RESUME_CHECK's (3.13: the second entry) counts when it falls through. */
static void check_shape(const char *path, const struct py_sites *ps, size_t nentry, size_t nexit,
			size_t nstepped)
{
	const uint64_t *off[2] = { ps->entry_off, ps->exit_off };
	const uint8_t *reg[2] = { ps->entry_reg, ps->exit_reg };
	size_t n[2] = { ps->nentry, ps->nexit }, stepped = 0;
	int fd = open(path, O_RDONLY);
	char what[320];

	assert_true(fd >= 0);
	assert_int_equal(ps->nentry, nentry);
	assert_int_equal(ps->nexit, nexit);
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < n[k]; i++) {
			bool branch = is_branch_at(fd, off[k][i], what, sizeof(what));

			print_message("%s: %s %#lx reg %u cond %#x: %s\n", path,
				      k ? "exit" : "entry", off[k][i], reg[k][i],
				      k ? 0 : ps->entry_cond[i], what);
			if (!branch && !k)
				fail_msg("entry site %#lx is %s, no branch", off[k][i], what);
			stepped += !branch;
			assert_true(reg[k][i] < 16);
			assert_int_not_equal(reg[k][i], 4);
			for (size_t j = 0; j < i; j++)
				assert_true(off[k][j] != off[k][i]);
		}
	assert_int_equal(stepped, nstepped);
	for (size_t i = 0; i < nentry; i++)
		assert_int_equal(!!ps->entry_cond[i], nentry == 3 && i == 1);
	close(fd);
}

static void test_debian(void **state)
{
	struct py_sites ps;
	char why[256];

	(void)state;
	if (find(DEBIAN_PY, 11, &ps, why, sizeof(why)))
		fail_msg("%s: %s", DEBIAN_PY, why);
	check_shape(DEBIAN_PY, &ps, 2, 2, 0);
	/* entry[1] is RESUME_QUICK's */
	assert_int_equal(ps.entry_off[1], file_offset(DEBIAN_PY, DEBIAN_RESUME_QUICK_SITE));
	assert_int_equal(ps.entry_reg[1], REG_RBX);
}

static void test_pyenv_libpython(void **state)
{
	struct py_sites ps;
	char why[256];
	int err;

	(void)state;
	err = find(PYENV_311, 11, &ps, why, sizeof(why));
	if (err)
		fail_msg("%s: %s", PYENV_311, why);
	check_shape(PYENV_311, &ps, 2, 2, 0);
}

/* The file offset of vaddr, by elf's PT_LOADs (0: none holds it). */
static uint64_t load_offset(Elf *elf, uint64_t vaddr)
{
	size_t n = 0;
	GElf_Phdr ph;

	elf_getphdrnum(elf, &n);
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_filesz)
			return ph.p_offset + (vaddr - ph.p_vaddr);
	return 0;
}

/* Zeroes the words of the open file fd that R_X86_64_RELATIVE relocations
 * fill, as linkers that leave the value in the addend only (lld) write
 * them; returns how many. */
static size_t zero_relatives(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	static const uint64_t zero;
	size_t n = 0;
	GElf_Shdr sh;
	GElf_Rela r;

	assert_non_null(elf);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		Elf_Data *d = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !d)
			continue;
		for (int i = 0; gelf_getrela(d, i, &r); i++) {
			uint64_t off = load_offset(elf, r.r_offset);

			if (GELF_R_TYPE(r.r_info) != R_X86_64_RELATIVE || !off)
				continue;
			assert_int_equal(pwrite(fd, &zero, 8, (off_t)off), 8);
			n++;
		}
	}
	elf_end(elf);
	return n;
}

static void test_pyenv_zero_words(void **state)
{
	char copy[] = "/tmp/test_py_sites.XXXXXX", why[256];
	struct py_sites want, got;
	size_t n;
	int fd, err;

	(void)state;
	if (find(PYENV_311, 11, &want, why, sizeof(why)))
		fail_msg("%s: %s", PYENV_311, why);
	fd = u_temp_file(copy, "", 0);
	u_copy_to(PYENV_311, dup(fd));
	elf_version(EV_CURRENT);
	n = zero_relatives(fd);
	close(fd);
	err = find(copy, 11, &got, why, sizeof(why));
	unlink(copy);
	assert_true(n > 256);
	if (err)
		fail_msg("zeroed copy: %s", why);
	assert_memory_equal(&got, &want, sizeof(got));
}

/* A handler that does not store the instruction pointer where the layout
 * says */
static void test_wrong_layout(void **state)
{
	struct disasm *d;
	struct py_sites ps;
	char why[256];
	int fd = open_or_skip(DEBIAN_PY), err;

	(void)state;
	assert_int_equal(disasm__new(&d), 0);
	err = py_sites__find(d, fd, 3, 11, 64, &ps, why, sizeof(why));
	disasm__free(d);
	close(fd);
	assert_int_equal(err, -EINVAL);
	assert_non_null(strstr(why, "no store of the frame's instruction pointer"));
}

/* pyenv's python3.11 links libpython: it has no evaluation loop of its own */
static void test_pyenv_executable(void **state)
{
	struct py_sites ps;
	char why[256];

	(void)state;
	assert_int_equal(find(PYENV "3.11.7/bin/python3.11", 11, &ps, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "no symbol _PyEval_EvalFrameDefault");
}

/* pyenv's 3.12: RETURN_CONST and the INSTRUMENTED_ handlers, YIELD_VALUE
 * probed at its start (it moves to the caller's frame before branching);
 * 3.13: RESUME_CHECK too, counted when it does not jump into RESUME. */
static void check_pyenv(const char *path, unsigned int minor, size_t nentry)
{
	struct py_sites ps;
	char why[256];

	if (find(path, minor, &ps, why, sizeof(why)))
		fail_msg("%s: %s", path, why);
	check_shape(path, &ps, nentry, 6, 1);
}

static void test_pyenv_312(void **state)
{
	(void)state;
	check_pyenv(PYENV_312, 12, 2);
}

static void test_pyenv_313(void **state)
{
	(void)state;
	check_pyenv(PYENV_313, 13, 3);
}

/* 3.10: no handler sites, the evaluation function's entry, as readelf
 * places it */
static void test_pyenv_310(void **state)
{
	struct u_readelf r;
	struct py_sites ps;
	uint64_t want = 0;
	char why[256];

	(void)state;
	if (find(PYENV_310, 10, &ps, why, sizeof(why)))
		fail_msg("%s: %s", PYENV_310, why);
	r = u_readelf(PYENV_310);
	for (size_t i = 0; i < r.nsyms; i++)
		if (!strcmp(r.syms[i].name, "_PyEval_EvalFrameDefault"))
			want = file_offset(PYENV_310, r.syms[i].value);
	u_readelf_free(&r);
	assert_true(ps.eval_calls);
	assert_int_equal(ps.nentry + ps.nexit, 0);
	assert_true(want != 0);
	assert_int_equal(ps.eval_off, want);
}

static void test_unsupported(void **state)
{
	struct py_sites ps;
	char why[256];

	(void)state;
	assert_int_equal(find(PYENV_311, 9, &ps, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_true(why[0] != '\0');
}

static void test_not_python(void **state)
{
	struct py_sites ps;
	char why[256];

	(void)state;
	assert_int_equal(find("/bin/true", 11, &ps, why, sizeof(why)), -ENOENT);
	assert_true(why[0] != '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian),		 cmocka_unit_test(test_pyenv_libpython),
		cmocka_unit_test(test_pyenv_zero_words), cmocka_unit_test(test_wrong_layout),
		cmocka_unit_test(test_pyenv_executable), cmocka_unit_test(test_pyenv_312),
		cmocka_unit_test(test_pyenv_313),	 cmocka_unit_test(test_pyenv_310),
		cmocka_unit_test(test_unsupported),	 cmocka_unit_test(test_not_python),
	};

	return cmocka_run_group_tests_name("py_sites", tests, NULL, NULL);
}
