/* Unit tests of src/symbols/unwind_table.c. The truth comes from libdw: at every byte
 * of the fixtures' code (tests/fixtures/unwfix.c built with and without frame
 * pointers, with only .debug_frame, and unwfix_eh.cpp with C++ exception
 * tables), and at every 7th byte of libc, libstdc++, python3.11 and ls, the
 * table's row must say what dwarf_cfi_addrframe says (the PLT's CFA expression,
 * which libdw decodes, evaluated at the address). Hand-made sections cover
 * the pointer encodings compilers do not emit, the caps and malformed input;
 * corrupted copies of a fixture must give an error or a partial table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols/elf_symtab.h"
#include "symbols/unwind_table.h"
#include "util.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the directory of the built fixtures"
#endif

#define FIX_OMITFP  FIXTURE_DIR "/unwfix_omitfp"
#define FIX_FP	    FIXTURE_DIR "/unwfix_fp"
#define FIX_PIE	    FIXTURE_DIR "/unwfix_pie"
#define FIX_NOPIE   FIXTURE_DIR "/unwfix_nopie"
#define FIX_LIB	    FIXTURE_DIR "/libunwfix.so"
#define FIX_DBG	    FIXTURE_DIR "/libunwfix_dbg.so"
#define FIX_DBGZ    FIXTURE_DIR "/libunwfix_dbgz.so"
#define FIX_EH	    FIXTURE_DIR "/unwfix_eh_cxx"
#define FIX_PLT	    FIXTURE_DIR "/pltfix_pie"
#define FIX_PLT_IBT FIXTURE_DIR "/libpltfix_ibt.so"

#define LIBC	  "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
#define PYTHON	  "/usr/bin/python3.11"
#define LS	  "/usr/bin/ls"

#define RA_REG 16 /* x86-64 DWARF number of the return address */

/* ---- helpers ---- */

static struct unwind_table *load(const char *path)
{
	struct unwind_table *t = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail_msg("cannot open '%s': %s (build the fixtures first)", path, strerror(errno));
	assert_int_equal(unwind_table__build(fd, &t), 0);
	close(fd);
	assert_non_null(t);
	return t;
}

static void *read_whole(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *buf;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Builds a table from the bytes of a file: returns what the build returns. */
static int build_bytes(const void *buf, size_t len, struct unwind_table **t)
{
	char path[] = "/tmp/flamebpf-unwind.XXXXXX";
	int fd = u_temp_file(path, buf, len), err;

	unlink(path);
	err = unwind_table__build(fd, t);
	close(fd);
	return err;
}

/* Where a section of a file is. */
struct sec_loc {
	size_t shdr_off; /* of its section header in the file */
	size_t off, size, name_off;
	uint64_t addr;
};

static bool find_sec(const char *path, const char *name, struct sec_loc *loc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t shstrndx;
	bool found = false;

	assert_non_null(elf);
	assert_non_null(gelf_getehdr(elf, &eh));
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		assert_non_null(gelf_getshdr(scn, &sh));
		if (strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name) != 0)
			continue;
		*loc = (struct sec_loc){ eh.e_shoff + elf_ndxscn(scn) * eh.e_shentsize,
					 sh.sh_offset, sh.sh_size, sh.sh_name, sh.sh_addr };
		found = true;
	}
	elf_end(elf);
	close(fd);
	return found;
}

static uint64_t sym_addr(const char *path, const char *name)
{
	struct elf_symtab *st;
	struct elf_func f;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t i;

	assert_int_equal(elf_symtab__load(fd, &st), 0);
	close(fd);
	for (i = 0; elf_symtab__func(st, i, &f) == 0; i++) {
		if (strcmp(f.name, name) == 0) {
			elf_symtab__free(st);
			return f.vaddr;
		}
	}
	fail_msg("no symbol '%s' in '%s'", name, path);
	return 0;
}

/* Every row in order, the last one "no info", and every row findable. */
static void check_invariants(const struct unwind_table *t)
{
	const struct unwind_row *rows;
	size_t i, n;

	rows = unwind_table__rows(t, &n);
	assert_true(n > 0);
	assert_int_equal(rows[n - 1].kind, UNWIND_NONE);
	for (i = 0; i < n; i++) {
		assert_true(rows[i].kind < UNWIND_KIND_COUNT);
		assert_true(rows[i].rbp <= UNWIND_RBP_OTHER);
		assert_ptr_equal(unwind_table__find(t, rows[i].pc), &rows[i]);
		if (i)
			assert_true(rows[i - 1].pc < rows[i].pc);
	}
	if (rows[0].pc)
		assert_null(unwind_table__find(t, rows[0].pc - 1));
}

/* ---- libdw, the oracle ---- */

struct oracle {
	int fd;
	Elf *elf;
	Dwarf *dw; /* .debug_frame only */
	Dwarf_CFI *cfi;
};

static void oracle_open(struct oracle *o, const char *path, bool debug_frame)
{
	*o = (struct oracle){ .fd = open(path, O_RDONLY | O_CLOEXEC) };
	assert_true(o->fd >= 0);
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(o->elf);
	if (debug_frame) {
		o->dw = dwarf_begin_elf(o->elf, DWARF_C_READ, NULL);
		assert_non_null(o->dw);
		o->cfi = dwarf_getcfi(o->dw);
	} else {
		o->cfi = dwarf_getcfi_elf(o->elf);
	}
	assert_non_null(o->cfi);
}

static void oracle_close(struct oracle *o)
{
	if (o->dw)
		dwarf_end(o->dw);
	else
		dwarf_cfi_end(o->cfi);
	elf_end(o->elf);
	close(o->fd);
}

/* A register saved at CFA + *off: DW_OP_call_frame_cfa [DW_OP_plus_uconst off]. */
static bool at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 2 && ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = n == 2 ? (int64_t)ops[1].number : 0;
	return true;
}

static void want_rbp(Dwarf_Frame *f, struct unwind_row *row)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;

	assert_int_equal(dwarf_frame_register(f, 6, mem, &ops, &n), 0);
	if (n == 0 && !ops) {
		row->rbp = UNWIND_RBP_SAME;
	} else if (at_cfa(ops, n, &off) && off >= INT16_MIN && off <= INT16_MAX) {
		row->rbp = UNWIND_RBP_CFA;
		row->rbp_off = (int16_t)off;
	} else {
		row->rbp = UNWIND_RBP_OTHER;
	}
}

/* The CFA of the PLT's expression evaluated at pc, as libdw decodes it:
 * rsp + N + ((pc & 15) >= K ? 8 : 0); false for any other expression. */
static bool plt_cfa(const Dwarf_Op *ops, size_t n, uint64_t pc, int64_t *off)
{
	static const uint8_t atoms[] = { DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
					 DW_OP_ge,    DW_OP_lit3,   DW_OP_shl,	 DW_OP_plus };
	uint64_t k;

	if (n != sizeof(atoms) || ops[1].number != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (i != 4 && ops[i].atom != atoms[i])
			return false;
	}
	if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit31)
		return false;
	k = ops[4].atom - DW_OP_lit0;
	*off = (int64_t)ops[0].number + ((pc & 15) >= k ? 8 : 0);
	return true;
}

/* The kind of row libdw's frame at pc calls for; *regoff says whether its
 * CFA is a register plus an offset (or the PLT's expression, evaluated). */
static enum unwind_kind want_kind(Dwarf_Frame *f, uint64_t pc, int32_t *cfa_off, bool *regoff)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off = 0, ra = 0;
	Dwarf_Word reg = 0;

	assert_int_equal(dwarf_frame_cfa(f, &ops, &n), 0);
	*regoff = n == 1 && ops[0].atom == DW_OP_bregx;
	if (*regoff) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (plt_cfa(ops, n, pc, &off)) {
		*regoff = true;
		reg = 7;
	}
	assert_int_equal(dwarf_frame_register(f, RA_REG, mem, &ops, &n), 0);
	if (n == 0 && ops == mem)
		return UNWIND_END;
	if (!*regoff || (reg != 6 && reg != 7) || off < INT32_MIN || off > INT32_MAX)
		return UNWIND_CFA_OTHER;
	if (!at_cfa(ops, n, &ra) || ra != -8)
		return UNWIND_RA_OTHER;
	*cfa_off = (int32_t)off;
	return reg == 7 ? UNWIND_CFA_RSP : UNWIND_CFA_RBP;
}

/* libdw's answer at pc as a row (pc 0); false when it has no frame there. */
static bool want_at(const struct oracle *o, uint64_t pc, struct unwind_row *row, bool *regoff)
{
	Dwarf_Addr start, end;
	bool signal = false;
	Dwarf_Frame *f;

	*row = (struct unwind_row){ 0 };
	*regoff = false;
	if (dwarf_cfi_addrframe(o->cfi, pc, &f) != 0)
		return false;
	dwarf_frame_info(f, &start, &end, &signal);
	row->kind = (uint8_t)want_kind(f, pc, &row->cfa_off, regoff);
	/* a signal frame by expressions (the sigreturn trampoline): a kind of
	 * its own */
	if (signal && (row->kind == UNWIND_CFA_OTHER || row->kind == UNWIND_RA_OTHER)) {
		*row = (struct unwind_row){ .kind = UNWIND_SIGNAL };
		free(f);
		return true;
	}
	want_rbp(f, row);
	free(f);
	return true;
}

struct tally {
	size_t addrs;	 /* addresses compared */
	size_t agree;	 /* where the row is what libdw says */
	size_t regoff;	 /* where libdw's CFA is a register plus an offset */
	size_t no_frame; /* where libdw has no frame */
	size_t kinds[UNWIND_KIND_COUNT];
};

static void report_mismatch(uint64_t pc, const struct unwind_row *got, const struct unwind_row *w,
			    bool found)
{
	print_message("  mismatch at %#" PRIx64
		      ": table kind %u cfa %d rbp %u/%d, libdw %s kind %u "
		      "cfa %d rbp %u/%d\n",
		      pc, got->kind, got->cfa_off, got->rbp, got->rbp_off, found ? "frame" : "none",
		      w->kind, w->cfa_off, w->rbp, w->rbp_off);
}

static void compare_at(const struct unwind_table *t, const struct oracle *o, uint64_t pc,
		       struct tally *tl)
{
	const struct unwind_row *r = unwind_table__find(t, pc);
	struct unwind_row got = { 0 }, w;
	bool regoff, found = want_at(o, pc, &w, &regoff);

	if (r)
		got = *r;
	got.pc = 0;
	tl->addrs++;
	tl->regoff += regoff;
	tl->no_frame += !found;
	tl->kinds[got.kind]++;
	if (!found)
		w.kind = UNWIND_NONE;
	if (memcmp(&got, &w, sizeof(got)) == 0)
		tl->agree++;
	else if (tl->addrs - tl->agree <= 10)
		report_mismatch(pc, &got, &w, found);
}

/* Compares every step-th address of each executable section. */
static void compare_file(const char *path, bool debug_frame, uint64_t step, struct tally *tl)
{
	struct unwind_table *t = load(path);
	struct oracle o;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t a;

	*tl = (struct tally){ 0 };
	oracle_open(&o, path, debug_frame);
	while ((scn = elf_nextscn(o.elf, scn))) {
		assert_non_null(gelf_getshdr(scn, &sh));
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		for (a = sh.sh_addr; a < sh.sh_addr + sh.sh_size; a += step)
			compare_at(t, &o, a, tl);
	}
	oracle_close(&o);
	check_invariants(t);
	assert_int_equal(unwind_table__stats(t)->debug_frame, debug_frame);
	unwind_table__free(t);
}

static void print_tally(const char *path, const struct tally *tl)
{
	print_message("%s: %zu addresses, %zu agree with libdw (%zu where its CFA is "
		      "reg+offset, %zu without frame); table: rsp %zu rbp %zu end %zu "
		      "cfa-other %zu ra-other %zu none %zu\n",
		      path, tl->addrs, tl->agree, tl->regoff, tl->no_frame,
		      tl->kinds[UNWIND_CFA_RSP], tl->kinds[UNWIND_CFA_RBP], tl->kinds[UNWIND_END],
		      tl->kinds[UNWIND_CFA_OTHER], tl->kinds[UNWIND_RA_OTHER],
		      tl->kinds[UNWIND_NONE]);
}

static void agree_with_libdw(const char *path, bool debug_frame, uint64_t step)
{
	struct tally tl;

	if (access(path, R_OK) != 0)
		skip();
	compare_file(path, debug_frame, step, &tl);
	print_tally(path, &tl);
	assert_true(tl.addrs > 0);
	assert_int_equal(tl.agree, tl.addrs);
}

/* ---- against libdw ---- */

static void test_fixture_omitfp(void **state)
{
	(void)state;
	agree_with_libdw(FIX_OMITFP, false, 1);
}

static void test_fixture_fp(void **state)
{
	(void)state;
	agree_with_libdw(FIX_FP, false, 1);
}

/* -O1 builds: a PIE, a non-PIE and a shared library. */
static void test_fixture_o1(void **state)
{
	(void)state;
	agree_with_libdw(FIX_PIE, false, 1);
	agree_with_libdw(FIX_NOPIE, false, 1);
	agree_with_libdw(FIX_LIB, false, 1);
}

/* CIEs with a personality and LSDA pointers: augmentation "zPLR". */
static void test_fixture_cxx_eh(void **state)
{
	(void)state;
	agree_with_libdw(FIX_EH, false, 1);
}

/* Every byte of a .plt (lazy binding, and IBT's with .plt.sec): libdw's
 * expression evaluated, and the table's rows all unwindable. */
static void test_fixture_plt(void **state)
{
	const char *paths[] = { FIX_PLT, FIX_PLT_IBT };
	struct tally tl;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		compare_file(paths[i], false, 1, &tl);
		print_tally(paths[i], &tl);
		assert_int_equal(tl.agree, tl.addrs);
		assert_int_equal(tl.kinds[UNWIND_CFA_OTHER], 0);
	}
}

static void test_fixture_debug_frame(void **state)
{
	(void)state;
	agree_with_libdw(FIX_DBG, true, 1);
	agree_with_libdw(FIX_DBGZ, true, 1); /* SHF_COMPRESSED */
}

static void test_libc(void **state)
{
	(void)state;
	agree_with_libdw(LIBC, false, 7);
}

static void test_ls(void **state)
{
	(void)state;
	agree_with_libdw(LS, false, 7);
}

static void test_libstdcxx_python(void **state)
{
	(void)state;
	agree_with_libdw(LIBSTDCXX, false, 7);
	agree_with_libdw(PYTHON, false, 7);
}

/* ---- known rows ---- */

static void expect_row(const struct unwind_table *t, uint64_t pc, enum unwind_kind kind,
		       int32_t cfa_off, enum unwind_rbp rbp, int16_t rbp_off)
{
	const struct unwind_row *r = unwind_table__find(t, pc);

	assert_non_null(r);
	if (r->kind != kind || r->cfa_off != cfa_off || r->rbp != rbp || r->rbp_off != rbp_off)
		fail_msg("at %#" PRIx64 ": kind %u cfa %d rbp %u/%d, want kind %u cfa %d rbp %u/%d",
			 pc, r->kind, r->cfa_off, r->rbp, r->rbp_off, kind, cfa_off, rbp, rbp_off);
}

/* The rows of the assembly in unwfix.c, instruction by instruction. */
static void test_cfi_ops_rows(void **state)
{
	struct unwind_table *t = load(FIX_OMITFP);
	uint64_t f = sym_addr(FIX_OMITFP, "unw_cfi_ops");

	(void)state;
	expect_row(t, f + 0, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(t, f + 1, UNWIND_CFA_RSP, 16, UNWIND_RBP_CFA, -16);
	expect_row(t, f + 4, UNWIND_CFA_RBP, 16, UNWIND_RBP_CFA, -16);
	expect_row(t, f + 6, UNWIND_CFA_RBP, 16, UNWIND_RBP_OTHER, 0);	 /* register */
	expect_row(t, f + 7, UNWIND_CFA_RBP, 16, UNWIND_RBP_SAME, 0);	 /* same_value */
	expect_row(t, f + 8, UNWIND_CFA_RBP, 16, UNWIND_RBP_OTHER, 0);	 /* undefined */
	expect_row(t, f + 9, UNWIND_CFA_RBP, 16, UNWIND_RBP_SAME, 0);	 /* restore */
	expect_row(t, f + 11, UNWIND_CFA_RBP, 24, UNWIND_RBP_SAME, 0);	 /* def_cfa_offset_sf */
	expect_row(t, f + 12, UNWIND_CFA_RBP, 24, UNWIND_RBP_CFA, -16);	 /* offset_extended */
	expect_row(t, f + 13, UNWIND_CFA_RBP, 24, UNWIND_RBP_SAME, 0);	 /* restore_extended */
	expect_row(t, f + 14, UNWIND_CFA_RBP, 24, UNWIND_RBP_OTHER, 0);	 /* val_offset */
	expect_row(t, f + 17, UNWIND_RA_OTHER, 0, UNWIND_RBP_OTHER, 0);	 /* RA expression */
	expect_row(t, f + 18, UNWIND_CFA_OTHER, 0, UNWIND_RBP_OTHER, 0); /* def_cfa_expression */
	expect_row(t, f + 19, UNWIND_CFA_RSP, 8, UNWIND_RBP_OTHER, 0);
	expect_row(t, f + 20, UNWIND_CFA_OTHER, 0, UNWIND_RBP_OTHER, 0); /* CFA in rax */
	expect_row(t, f + 22, UNWIND_CFA_RBP, 16, UNWIND_RBP_CFA, -16);	 /* restore_state */
	expect_row(t, f + 322, UNWIND_CFA_RBP, 16, UNWIND_RBP_CFA, 8);	 /* negative offset */
	expect_row(t, f + 70322, UNWIND_END, 0, UNWIND_RBP_CFA, 8);	 /* RA undefined */
	f = sym_addr(FIX_OMITFP, "unw_sigframe");
	expect_row(t, f, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(t, f + 4, UNWIND_CFA_RSP, 16, UNWIND_RBP_SAME, 0);
	expect_row(t, sym_addr(FIX_OMITFP, "unw_nocfi") + 3, UNWIND_NONE, 0, UNWIND_RBP_SAME, 0);
	unwind_table__free(t);
}

/* gcc 12 gives a leaf no frame even with -fno-omit-frame-pointer: a frame
 * pointer walk would skip its caller, the table does not. */
static void test_leaf_without_frame(void **state)
{
	struct unwind_table *t = load(FIX_FP);
	uint64_t leaf = sym_addr(FIX_FP, "unw_leaf"), caller = sym_addr(FIX_FP, "unw_big_frame");

	(void)state;
	expect_row(t, leaf, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(t, leaf + 3, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	/* push %rbp; mov $..., %edx; mov %rsp, %rbp */
	expect_row(t, caller + 9, UNWIND_CFA_RBP, 16, UNWIND_RBP_CFA, -16);
	unwind_table__free(t);
}

/* Stack realignment through a DRAP register: the CFA is r10, then an
 * expression, which the table marks. */
static void test_drap_marked(void **state)
{
	struct unwind_table *t = load(FIX_OMITFP);
	const struct unwind_row *r = unwind_table__find(t, sym_addr(FIX_OMITFP, "unw_realign"));
	bool other = false;

	(void)state;
	for (; r->kind != UNWIND_NONE && !other; r++)
		other = r->kind == UNWIND_CFA_OTHER;
	assert_true(other);
	unwind_table__free(t);
}

/* ---- hand-made sections ---- */

#define SEC_VADDR 0x1800

struct sec {
	uint8_t b[1 << 20];
	size_t n;
};

static void put(struct sec *s, uint64_t v, size_t n)
{
	assert_true(s->n + n <= sizeof(s->b));
	while (n--) {
		s->b[s->n++] = (uint8_t)v;
		v >>= 8;
	}
}

static void put_uleb(struct sec *s, uint64_t v)
{
	do {
		put(s, (v & 0x7f) | (v > 0x7f ? 0x80 : 0), 1);
		v >>= 7;
	} while (v);
}

static void put_sleb(struct sec *s, int64_t v)
{
	bool more;

	do {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
		put(s, byte | (more ? 0x80 : 0), 1);
	} while (more);
}

static void put_bytes(struct sec *s, const void *p, size_t n)
{
	assert_true(s->n + n <= sizeof(s->b));
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

/* A value in the format of a DW_EH_PE_* encoding's low nibble. */
static void put_format(struct sec *s, uint8_t enc, uint64_t v)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_uleb128:
		put_uleb(s, v);
		return;
	case DW_EH_PE_sleb128:
		put_sleb(s, (int64_t)v);
		return;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		put(s, v, 2);
		return;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		put(s, v, 4);
		return;
	}
	put(s, v, 8);
}

static void put_pointer(struct sec *s, uint8_t enc, uint64_t v)
{
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v -= SEC_VADDR + s->n;
	put_format(s, enc, v);
}

/* Starts an entry with a 32-bit length, patched by end_entry. */
static size_t begin_entry(struct sec *s)
{
	size_t at = s->n;

	put(s, 0, 4);
	return at;
}

static void end_entry(struct sec *s, size_t at)
{
	uint64_t len = s->n - at - 4;

	memcpy(s->b + at, &(uint32_t){ (uint32_t)len }, 4);
}

/* The usual x86-64 initial instructions: CFA = rsp + 8, RA at CFA - 8. */
static const uint8_t cie_init[] = { DW_CFA_def_cfa, 7, 8, DW_CFA_offset | RA_REG, 1 };

/* A CIE "zR" (or aug) with the given augmentation data; returns its offset. */
static size_t put_cie(struct sec *s, const char *aug, const uint8_t *data, size_t ndata,
		      const uint8_t *init, size_t ninit)
{
	size_t at = begin_entry(s);

	put(s, 0, 4); /* CIE id */
	put(s, 1, 1); /* version */
	put_bytes(s, aug, strlen(aug) + 1);
	put_uleb(s, 1);	 /* code alignment */
	put_sleb(s, -8); /* data alignment */
	put(s, RA_REG, 1);
	if (aug[0] == 'z') {
		put_uleb(s, ndata);
		put_bytes(s, data, ndata);
	}
	put_bytes(s, init, ninit);
	end_entry(s, at);
	return at;
}

static size_t put_cie_enc(struct sec *s, uint8_t enc)
{
	return put_cie(s, "zR", &enc, 1, cie_init, sizeof(cie_init));
}

static void put_fde(struct sec *s, size_t cie, uint8_t enc, uint64_t begin, uint64_t range,
		    const uint8_t *insns, size_t n)
{
	size_t at = begin_entry(s);

	put(s, s->n - cie, 4);
	put_pointer(s, enc, begin);
	put_format(s, enc, range);
	put_uleb(s, 0); /* augmentation data */
	put_bytes(s, insns, n);
	end_entry(s, at);
}

/* push %rbp at +0 (1 byte), then the usual frame from +1. */
static const uint8_t push_rbp[] = { DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16,
				    DW_CFA_offset | 6, 2 };

static struct unwind_table *parse_sec(const struct sec *s, int want)
{
	struct unwind_table *t = NULL;

	assert_int_equal(unwind_table__parse(s->b, s->n, SEC_VADDR, false, &t), want);
	if (want == 0)
		check_invariants(t);
	return t;
}

static void expect_push_rbp(const struct unwind_table *t, uint64_t begin, uint64_t end)
{
	size_t n;
	const struct unwind_row *rows = unwind_table__rows(t, &n);

	assert_int_equal(n, 3);
	assert_int_equal(rows[0].pc, begin);
	expect_row(t, begin, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(t, begin + 1, UNWIND_CFA_RSP, 16, UNWIND_RBP_CFA, -16);
	expect_row(t, end, UNWIND_NONE, 0, UNWIND_RBP_SAME, 0);
	assert_int_equal(unwind_table__stats(t)->nfdes, 1);
}

/* Every FDE pointer encoding: formats absolute and relative to the field. */
static void test_pointer_encodings(void **state)
{
	static const uint8_t formats[] = {
		DW_EH_PE_absptr, DW_EH_PE_uleb128, DW_EH_PE_udata2,
		DW_EH_PE_udata4, DW_EH_PE_udata8,  DW_EH_PE_sleb128,
		DW_EH_PE_sdata2, DW_EH_PE_sdata4,  DW_EH_PE_sdata8,
	};
	static struct sec s;
	struct unwind_table *t;
	size_t i, base;
	uint64_t begin;

	(void)state;
	for (i = 0; i < 2 * sizeof(formats); i++) {
		uint8_t enc = formats[i / 2] | (i % 2 ? DW_EH_PE_pcrel : 0);

		/* Below the section: a negative offset, for the signed formats. */
		begin = i % 2 && !(enc & 0x08) ? 0x9000 : 0x1000;
		s.n = 0;
		put_fde(&s, put_cie_enc(&s, enc), enc, begin, 0x20, push_rbp, sizeof(push_rbp));
		put(&s, 0, 4);
		t = parse_sec(&s, 0);
		expect_push_rbp(t, begin, begin + 0x20);
		unwind_table__free(t);
	}
	/* An unknown base (datarel) leaves the FDE out. */
	s.n = 0;
	base = put_cie_enc(&s, DW_EH_PE_datarel | DW_EH_PE_sdata4);
	put_fde(&s, base, DW_EH_PE_datarel | DW_EH_PE_sdata4, 0x1000, 0x20, push_rbp, 5);
	t = parse_sec(&s, -EBADMSG);
}

/* "zPLR": an aligned personality pointer and an LSDA before the FDE encoding;
 * FDEs carry the LSDA pointer in their augmentation data. */
static void test_augmentation_zplr(void **state)
{
	static struct sec s;
	struct unwind_table *t;
	uint8_t data[32];
	size_t n = 0, cie, at;

	(void)state;
	data[n++] = DW_EH_PE_aligned;
	/* SEC_VADDR + 4 (length) + 4 (id) + 1 + 5 ("zPLR\0") + 3 + 1 (length) + 1 (enc):
	 * the aligned pointer starts at 0x1813 and is padded to 0x1818. */
	memset(data + n, 0xee, 5);
	n += 5;
	memcpy(data + n, &(uint64_t){ 0x4242 }, 8);
	n += 8;
	data[n++] = DW_EH_PE_pcrel | DW_EH_PE_sdata4; /* L */
	data[n++] = DW_EH_PE_udata4;		      /* R */
	cie = put_cie(&s, "zPLR", data, n, cie_init, sizeof(cie_init));
	at = begin_entry(&s);
	put(&s, s.n - cie, 4);
	put(&s, 0x2000, 4);
	put(&s, 0x40, 4);
	put_uleb(&s, 4); /* the LSDA pointer */
	put(&s, 0xdeadbeef, 4);
	put_bytes(&s, push_rbp, sizeof(push_rbp));
	end_entry(&s, at);
	t = parse_sec(&s, 0);
	expect_push_rbp(t, 0x2000, 0x2040);
	unwind_table__free(t);
}

/* .debug_frame: CIE id all ones, version 4 with an address size, the CIE
 * pointer a section offset, and an entry in the 64-bit format. */
static void test_debug_frame_format(void **state)
{
	static const uint8_t prog[] = { DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16,
					DW_CFA_offset | 6, 2 };
	static struct sec s;
	struct unwind_table *t = NULL;
	size_t cie, at;

	(void)state;
	cie = begin_entry(&s);
	put(&s, 0xffffffff, 4);
	put(&s, 4, 1);
	put(&s, 0, 1); /* no augmentation */
	put(&s, 8, 1); /* address size */
	put(&s, 0, 1); /* segment selector size */
	put_uleb(&s, 1);
	put_sleb(&s, -8);
	put_uleb(&s, RA_REG);
	put_bytes(&s, cie_init, sizeof(cie_init));
	end_entry(&s, cie);
	at = s.n;
	put(&s, 0xffffffff, 4); /* 64-bit format */
	put(&s, 8 + 8 + 8 + sizeof(prog), 8);
	put(&s, cie, 8);
	put(&s, 0x3000, 8);
	put(&s, 0x10, 8);
	put_bytes(&s, prog, sizeof(prog));
	assert_int_equal(s.n - at, 12 + 8 + 8 + 8 + sizeof(prog));
	assert_int_equal(unwind_table__parse(s.b, s.n, 0, true, &t), 0);
	expect_push_rbp(t, 0x3000, 0x3010);
	assert_true(unwind_table__stats(t)->debug_frame);
	unwind_table__free(t);
}

/* FDEs out of order, with a gap and an overlap: sorted, "no info" in the gap,
 * the overlapping one left out. */
static void test_order_gaps_overlap(void **state)
{
	static struct sec s;
	struct unwind_table *t;
	size_t cie;

	(void)state;
	cie = put_cie_enc(&s, DW_EH_PE_udata4);
	put_fde(&s, cie, DW_EH_PE_udata4, 0x2000, 0x10, push_rbp, sizeof(push_rbp));
	put_fde(&s, cie, DW_EH_PE_udata4, 0x1000, 0x10, push_rbp, sizeof(push_rbp));
	put_fde(&s, cie, DW_EH_PE_udata4, 0x1008, 0x10, push_rbp, sizeof(push_rbp));
	put_fde(&s, cie, DW_EH_PE_udata4, 0x1010, 0x0, push_rbp, sizeof(push_rbp));
	put(&s, 0, 4);
	put_fde(&s, cie, DW_EH_PE_udata4, 0x4000, 0x10, push_rbp, 5); /* after the end */
	t = parse_sec(&s, 0);
	expect_row(t, 0x1001, UNWIND_CFA_RSP, 16, UNWIND_RBP_CFA, -16);
	expect_row(t, 0x100f, UNWIND_CFA_RSP, 16, UNWIND_RBP_CFA, -16);
	expect_row(t, 0x1010, UNWIND_NONE, 0, UNWIND_RBP_SAME, 0);
	expect_row(t, 0x1fff, UNWIND_NONE, 0, UNWIND_RBP_SAME, 0);
	expect_row(t, 0x2000, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(t, 0x4000, UNWIND_NONE, 0, UNWIND_RBP_SAME, 0);
	assert_null(unwind_table__find(t, 0xfff));
	assert_int_equal(unwind_table__stats(t)->nfdes, 2);
	assert_int_equal(unwind_table__stats(t)->nfdes_bad, 1);
	unwind_table__free(t);
}

/* One FDE [0x1000, 0x1000 + range) with prog, after the usual CIE. */
static struct unwind_table *one_fde(const uint8_t *prog, size_t n, uint64_t range)
{
	static struct sec s;

	s.n = 0;
	put_fde(&s, put_cie_enc(&s, DW_EH_PE_udata4), DW_EH_PE_udata4, 0x1000, range, prog, n);
	return parse_sec(&s, 0);
}

/* A program that fails keeps its rows before the failure; "no info" after. */
static void expect_cut_at(const uint8_t *prog, size_t n, uint64_t cut)
{
	struct unwind_table *t = one_fde(prog, n, 0x100);

	if (cut > 0x1000)
		expect_row(t, 0x1000, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(t, cut, UNWIND_NONE, 0, UNWIND_RBP_SAME, 0);
	assert_int_equal(unwind_table__stats(t)->nfdes_bad, 1);
	unwind_table__free(t);
}

static void test_bad_programs(void **state)
{
	static const uint8_t restore_empty[] = { DW_CFA_advance_loc | 4, DW_CFA_restore_state };
	static const uint8_t unknown_op[] = { DW_CFA_advance_loc | 2, 0x3f, 0x01 };
	static const uint8_t long_leb[] = { DW_CFA_advance_loc | 3,
					    DW_CFA_def_cfa_offset,
					    0xff,
					    0xff,
					    0xff,
					    0xff,
					    0xff,
					    0xff,
					    0xff,
					    0xff,
					    0xff,
					    0xff,
					    0x7f };
	static const uint8_t short_block[] = { DW_CFA_advance_loc | 5, DW_CFA_def_cfa_expression,
					       0x40, 0x77 };
	static const uint8_t truncated[] = { DW_CFA_advance_loc | 6, DW_CFA_advance_loc4, 1 };
	static const uint8_t backwards[] = {
		DW_CFA_advance_loc | 7, DW_CFA_set_loc, 0, 0x10, 0, 0
	};
	/* rbp at -(2^60 * -8): a negation of INT64_MIN (found by fuzz_unwind_parse) */
	static const uint8_t neg_min[] = { DW_CFA_advance_loc | 8,
					   DW_CFA_GNU_negative_offset_extended,
					   6,
					   0x80,
					   0x80,
					   0x80,
					   0x80,
					   0x80,
					   0x80,
					   0x80,
					   0x80,
					   0x10 };

	(void)state;
	expect_cut_at(restore_empty, sizeof(restore_empty), 0x1004);
	expect_cut_at(unknown_op, sizeof(unknown_op), 0x1002);
	expect_cut_at(long_leb, sizeof(long_leb), 0x1003);
	expect_cut_at(short_block, sizeof(short_block), 0x1005);
	expect_cut_at(truncated, sizeof(truncated), 0x1006);
	expect_cut_at(backwards, sizeof(backwards), 0x1007);
	expect_cut_at(neg_min, sizeof(neg_min), 0x1008);
}

/* The caps on saved states and on instructions per program. */
static void test_cap_program(void **state)
{
	static uint8_t prog[300001];
	size_t i, n = 0;

	(void)state;
	prog[n++] = DW_CFA_advance_loc | 1;
	for (i = 0; i < 100; i++)
		prog[n++] = DW_CFA_remember_state;
	expect_cut_at(prog, n, 0x1001);
	memset(prog, DW_CFA_nop, 300000);
	prog[300000] = DW_CFA_advance_loc | 1;
	expect_cut_at(prog, 300001, 0x1000);
}

/* 70000 rows in one FDE: cut after 65536, unless the FDE ends first. */
static void test_cap_rows(void **state)
{
	static uint8_t prog[3 * 70000];
	struct unwind_table *t;
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < 70000; i++) {
		prog[n++] = DW_CFA_def_cfa_offset;
		prog[n++] = i % 2 ? 8 : 16;
		prog[n++] = DW_CFA_advance_loc | 1;
	}
	t = one_fde(prog, n, 0x100);
	assert_int_equal(unwind_table__stats(t)->nfdes_bad, 0);
	unwind_table__free(t);
	t = one_fde(prog, n, 100000);
	expect_row(t, 0x1000 + 65535, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(t, 0x1000 + 65536, UNWIND_NONE, 0, UNWIND_RBP_SAME, 0);
	assert_int_equal(unwind_table__stats(t)->nfdes_bad, 1);
	unwind_table__free(t);
}

/* GNU ld's .plt program: PLT0's two rows, then from 0x1010 the expression
 * rsp + 8 + ((rip & 15) >= 11 ? 8 : 0), here with its K and register. */
#define PLT_PROG(at, reg, k, len)                                                                  \
	DW_CFA_def_cfa_offset, 16, DW_CFA_advance_loc | 6, DW_CFA_def_cfa_offset, 24,              \
		DW_CFA_advance_loc | ((at)-6), DW_CFA_def_cfa_expression, len, 0x70 + (reg), 8,    \
		DW_OP_breg16, 0, DW_OP_lit15, DW_OP_and, DW_OP_lit0 + (k), DW_OP_ge, DW_OP_lit3,   \
		DW_OP_shl, DW_OP_plus

static void expect_plt_entry(const struct unwind_table *t, uint64_t entry, int32_t off)
{
	expect_row(t, entry, UNWIND_CFA_RSP, off, UNWIND_RBP_SAME, 0);
	expect_row(t, entry + 10, UNWIND_CFA_RSP, off, UNWIND_RBP_SAME, 0);
	expect_row(t, entry + 11, UNWIND_CFA_RSP, off + 8, UNWIND_RBP_SAME, 0);
	expect_row(t, entry + 15, UNWIND_CFA_RSP, off + 8, UNWIND_RBP_SAME, 0);
}

/* The PLT's CFA expression becomes two exact rows per 16-byte entry, from
 * wherever it starts to wherever the FDE or the next rule ends it; any
 * other expression stays marked. */
static void test_plt_expression(void **state)
{
	static const uint8_t plt[] = { PLT_PROG(16, 7, 11, 11) };
	static const uint8_t mid[] = { PLT_PROG(0x1c, 7, 11, 11), DW_CFA_advance_loc | 0x24,
				       DW_CFA_def_cfa, 7, 8 };
	static const uint8_t k0[] = { PLT_PROG(16, 7, 0, 11) };
	static const uint8_t rbp[] = { PLT_PROG(16, 6, 11, 11) };
	static const uint8_t longer[] = { PLT_PROG(16, 7, 11, 12), DW_OP_nop };
	struct unwind_table *t;
	size_t n;

	(void)state;
	t = one_fde(plt, sizeof(plt), 0x50);
	expect_row(t, 0x1000, UNWIND_CFA_RSP, 16, UNWIND_RBP_SAME, 0);
	expect_row(t, 0x1006, UNWIND_CFA_RSP, 24, UNWIND_RBP_SAME, 0);
	for (uint64_t e = 0x1010; e < 0x1050; e += 16)
		expect_plt_entry(t, e, 8);
	expect_row(t, 0x1050, UNWIND_NONE, 0, UNWIND_RBP_SAME, 0);
	unwind_table__rows(t, &n);
	assert_int_equal(n, 2 + 4 * 2 + 1);
	assert_int_equal(unwind_table__stats(t)->nfdes, 1);
	unwind_table__free(t);

	/* from past an entry's split, up to a plain rule at 0x1040 */
	t = one_fde(mid, sizeof(mid), 0x50);
	expect_row(t, 0x101c, UNWIND_CFA_RSP, 16, UNWIND_RBP_SAME, 0);
	expect_row(t, 0x101b, UNWIND_CFA_RSP, 24, UNWIND_RBP_SAME, 0);
	expect_plt_entry(t, 0x1020, 8);
	expect_plt_entry(t, 0x1030, 8);
	expect_row(t, 0x1040, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	expect_row(t, 0x104b, UNWIND_CFA_RSP, 8, UNWIND_RBP_SAME, 0);
	unwind_table__free(t);

	/* alike but not it: no split, another register, an operation more */
	t = one_fde(k0, sizeof(k0), 0x50);
	expect_row(t, 0x1010, UNWIND_CFA_OTHER, 0, UNWIND_RBP_SAME, 0);
	unwind_table__free(t);
	t = one_fde(rbp, sizeof(rbp), 0x50);
	expect_row(t, 0x1010, UNWIND_CFA_OTHER, 0, UNWIND_RBP_SAME, 0);
	unwind_table__free(t);
	t = one_fde(longer, sizeof(longer), 0x50);
	expect_row(t, 0x1010, UNWIND_CFA_OTHER, 0, UNWIND_RBP_SAME, 0);
	unwind_table__free(t);

	/* 65536 entries need more rows than one FDE may have: none from 0x1010 */
	t = one_fde(plt, sizeof(plt), 0x10 + 65536 * 16);
	expect_row(t, 0x1006, UNWIND_CFA_RSP, 24, UNWIND_RBP_SAME, 0);
	expect_row(t, 0x1010, UNWIND_NONE, 0, UNWIND_RBP_SAME, 0);
	assert_int_equal(unwind_table__stats(t)->nfdes_bad, 1);
	unwind_table__free(t);
}

/* Lengths that do not fit: nothing before them, or the FDEs before them. */
static void test_bad_lengths(void **state)
{
	static struct sec s;
	struct unwind_table *t;

	(void)state;
	put(&s, 1000, 4); /* past the end of the section */
	put(&s, 0, 4);
	parse_sec(&s, -EBADMSG);
	s.n = 0;
	put(&s, 0xffffffff, 4); /* a 64-bit length cut short */
	put(&s, 0x10, 2);
	parse_sec(&s, -EBADMSG);
	s.n = 0;
	put_fde(&s, put_cie_enc(&s, DW_EH_PE_udata4), DW_EH_PE_udata4, 0x1000, 0x10, push_rbp,
		sizeof(push_rbp));
	put(&s, 0x7fffffff, 4);
	t = parse_sec(&s, 0);
	assert_true(unwind_table__stats(t)->truncated);
	assert_int_equal(unwind_table__stats(t)->nfdes, 1);
	unwind_table__free(t);
}

/* FDEs whose CIE cannot be used or found. */
static void test_bad_cies(void **state)
{
	static const uint8_t odd_init[] = { DW_CFA_def_cfa_register, 6 };
	static struct sec s;
	uint8_t enc = DW_EH_PE_udata4;
	size_t cie;

	(void)state;
	/* An unknown augmentation letter; a CFA register change before any CFA. */
	cie = put_cie(&s, "zXR", &enc, 1, cie_init, sizeof(cie_init));
	put_fde(&s, cie, enc, 0x1000, 0x10, push_rbp, sizeof(push_rbp));
	cie = put_cie(&s, "zR", &enc, 1, odd_init, sizeof(odd_init));
	put_fde(&s, cie, enc, 0x2000, 0x10, push_rbp, sizeof(push_rbp));
	/* A CIE pointer to nowhere, then one into an FDE. */
	put_fde(&s, s.n + 100, enc, 0x3000, 0x10, push_rbp, sizeof(push_rbp));
	put_fde(&s, s.n - 10, enc, 0x4000, 0x10, push_rbp, sizeof(push_rbp));
	assert_null(parse_sec(&s, -EBADMSG));
}

/* ---- corrupted copies ---- */

/* Parses .eh_frame bytes; true when they gave a table, which must be sound. */
static bool parse_checked(const uint8_t *buf, size_t len, uint64_t vaddr)
{
	struct unwind_table *t;

	if (unwind_table__parse(buf, len, vaddr, false, &t) != 0)
		return false;
	check_invariants(t);
	unwind_table__free(t);
	return true;
}

/* Random byte flips (1 to 8 per copy) in the .eh_frame of path. */
static void fuzz_flips(const char *path, size_t copies)
{
	struct sec_loc loc;
	size_t flen, i, k, ok = 0;
	uint8_t *file, *copy;
	unsigned int seed = 1;

	if (access(path, R_OK) != 0)
		return;
	assert_true(find_sec(path, ".eh_frame", &loc));
	file = read_whole(path, &flen);
	copy = malloc(loc.size);
	assert_non_null(copy);
	for (i = 0; i < copies; i++) {
		memcpy(copy, file + loc.off, loc.size);
		for (k = 0; k < 1 + i % 8; k++)
			copy[(size_t)rand_r(&seed) % loc.size] ^=
				(uint8_t)(1 + rand_r(&seed) % 255);
		ok += parse_checked(copy, loc.size, loc.addr);
	}
	print_message("%s: %zu of %zu corrupted copies gave a table\n", path, ok, copies);
	free(copy);
	free(file);
}

static void test_fuzz_eh_frame(void **state)
{
	struct sec_loc loc;
	size_t flen, i;
	uint8_t *file;

	(void)state;
	fuzz_flips(FIX_FP, 3000);
	fuzz_flips(LIBC, 100);
	/* Every truncation. */
	assert_true(find_sec(FIX_FP, ".eh_frame", &loc));
	file = read_whole(FIX_FP, &flen);
	for (i = 0; i <= loc.size; i++)
		parse_checked(file + loc.off, i, loc.addr);
	free(file);
}

static void put_at(uint8_t *file, size_t off, uint64_t v, size_t n)
{
	while (n--) {
		file[off++] = (uint8_t)v;
		v >>= 8;
	}
}

/* Builds from a copy of FIX_OMITFP changed by edit, cut in the middle of its
 * .eh_frame if cut; returns what the build returns, after checking the table
 * if there is one. */
static int build_edited(void (*edit)(uint8_t *file, const struct sec_loc *loc, unsigned int *seed),
			bool cut, unsigned int *seed, struct unwind_stats *st)
{
	struct unwind_table *t = NULL;
	struct sec_loc loc;
	uint8_t *file;
	size_t len;
	int err;

	assert_true(find_sec(FIX_OMITFP, ".eh_frame", &loc));
	file = read_whole(FIX_OMITFP, &len);
	edit(file, &loc, seed);
	err = build_bytes(file, cut ? loc.off + loc.size / 2 : len, &t);
	if (!err) {
		check_invariants(t);
		*st = *unwind_table__stats(t);
		unwind_table__free(t);
	}
	free(file);
	return err;
}

static void edit_none(uint8_t *file, const struct sec_loc *loc, unsigned int *seed)
{
	(void)file, (void)loc, (void)seed;
}

static void edit_size_huge(uint8_t *file, const struct sec_loc *loc, unsigned int *seed)
{
	(void)seed;
	put_at(file, loc->shdr_off + 32, (uint64_t)1 << 40, 8); /* sh_size */
}

static void edit_offset_past_end(uint8_t *file, const struct sec_loc *loc, unsigned int *seed)
{
	(void)seed;
	put_at(file, loc->shdr_off + 24, loc->off + (1 << 20), 8); /* sh_offset */
}

static void edit_size_half(uint8_t *file, const struct sec_loc *loc, unsigned int *seed)
{
	(void)seed;
	put_at(file, loc->shdr_off + 32, loc->size / 2, 8);
}

static void edit_flip(uint8_t *file, const struct sec_loc *loc, unsigned int *seed)
{
	file[loc->off + (size_t)rand_r(seed) % loc->size] ^= (uint8_t)(1 + rand_r(seed) % 255);
}

/* Whole files: section headers that lie, a cut file, flipped bytes. */
static void test_corrupt_files(void **state)
{
	struct unwind_stats st, full;
	unsigned int seed = 7;
	size_t i;

	(void)state;
	assert_int_equal(build_edited(edit_none, false, &seed, &full), 0);
	assert_int_equal(build_edited(edit_size_huge, false, &seed, &st), -EBADMSG);
	assert_int_equal(build_edited(edit_offset_past_end, false, &seed, &st), -EBADMSG);
	assert_int_equal(build_edited(edit_none, true, &seed, &st), -EBADMSG);
	/* Half the section: the FDEs of its first half. */
	assert_int_equal(build_edited(edit_size_half, false, &seed, &st), 0);
	assert_true(st.truncated);
	assert_in_range(st.nfdes, 1, full.nfdes - 1);
	for (i = 0; i < 300; i++)
		build_edited(edit_flip, false, &seed, &st);
}

/* Without section headers the table comes through PT_GNU_EH_FRAME, the same. */
static void test_no_section_headers(void **state)
{
	struct unwind_table *a = load(FIX_OMITFP), *b = NULL;
	const struct unwind_row *ra, *rb;
	size_t len, na, nb;
	uint8_t *file = read_whole(FIX_OMITFP, &len);

	(void)state;
	put_at(file, 40, 0, 8); /* e_shoff */
	put_at(file, 60, 0, 2); /* e_shnum */
	put_at(file, 62, 0, 2); /* e_shstrndx */
	assert_int_equal(build_bytes(file, len, &b), 0);
	ra = unwind_table__rows(a, &na);
	rb = unwind_table__rows(b, &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(ra, rb, na * sizeof(*ra));
	assert_true(unwind_table__stats(b)->code_bytes >= unwind_table__stats(a)->code_bytes);
	unwind_table__free(a);
	unwind_table__free(b);
	free(file);
}

static void test_errors(void **state)
{
	static const char text[] = "not an ELF file\n";
	struct unwind_table *t = NULL;
	struct sec_loc loc, strtab;
	uint8_t *file;
	size_t len;

	(void)state;
	assert_int_equal(build_bytes(text, sizeof(text), &t), -ENOEXEC);
	assert_null(t);
	file = read_whole(FIX_OMITFP, &len);
	put_at(file, 18, EM_AARCH64, 2); /* e_machine */
	assert_int_equal(build_bytes(file, len, &t), -EOPNOTSUPP);
	free(file);
	/* No .eh_frame (renamed) and no .debug_frame. */
	assert_false(find_sec(FIX_OMITFP, ".debug_frame", &loc));
	assert_true(find_sec(FIX_OMITFP, ".shstrtab", &strtab));
	assert_true(find_sec(FIX_OMITFP, ".eh_frame", &loc));
	file = read_whole(FIX_OMITFP, &len);
	file[strtab.off + loc.name_off] = 'X';
	assert_int_equal(build_bytes(file, len, &t), -ENOENT);
	assert_null(t);
	free(file);
}

/* ---- figures ---- */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double share(const struct unwind_stats *st, uint64_t bytes)
{
	return 100.0 * (double)bytes / (double)st->code_bytes;
}

static void print_figures(const char *path, const struct unwind_table *t, double ms)
{
	const struct unwind_stats *st = unwind_table__stats(t);
	size_t n;

	unwind_table__rows(t, &n);
	print_message(
		"%s: %zu FDEs, %zu rows (%zu bytes), %zu unsupported, %zu end; %.1f%% of "
		"%" PRIu64 " code bytes unwindable, %.1f%% no info; %.1f ms\n",
		path, st->nfdes, n, n * sizeof(struct unwind_row),
		st->nrows[UNWIND_CFA_OTHER] + st->nrows[UNWIND_RA_OTHER], st->nrows[UNWIND_END],
		share(st, st->code_bytes_by[UNWIND_CFA_RSP] + st->code_bytes_by[UNWIND_CFA_RBP]),
		st->code_bytes, share(st, st->code_bytes_by[UNWIND_NONE]), ms);
}

/* Prints the size and coverage of the tables of system binaries (the build
 * time here includes ASan's). */
static void test_system_figures(void **state)
{
	static const char *const paths[] = { LIBC, LIBSTDCXX, PYTHON, LS };
	struct unwind_table *t;
	double t0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (access(paths[i], R_OK) != 0)
			continue;
		t0 = now_ms();
		t = load(paths[i]);
		print_figures(paths[i], t, now_ms() - t0);
		assert_int_equal(unwind_table__stats(t)->nfdes_bad, 0);
		assert_false(unwind_table__stats(t)->truncated);
		unwind_table__free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_omitfp),
		cmocka_unit_test(test_fixture_fp),
		cmocka_unit_test(test_fixture_o1),
		cmocka_unit_test(test_fixture_cxx_eh),
		cmocka_unit_test(test_fixture_debug_frame),
		cmocka_unit_test(test_fixture_plt),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_ls),
		cmocka_unit_test(test_libstdcxx_python),
		cmocka_unit_test(test_cfi_ops_rows),
		cmocka_unit_test(test_leaf_without_frame),
		cmocka_unit_test(test_drap_marked),
		cmocka_unit_test(test_pointer_encodings),
		cmocka_unit_test(test_augmentation_zplr),
		cmocka_unit_test(test_debug_frame_format),
		cmocka_unit_test(test_order_gaps_overlap),
		cmocka_unit_test(test_bad_programs),
		cmocka_unit_test(test_cap_program),
		cmocka_unit_test(test_cap_rows),
		cmocka_unit_test(test_plt_expression),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_bad_cies),
		cmocka_unit_test(test_fuzz_eh_frame),
		cmocka_unit_test(test_corrupt_files),
		cmocka_unit_test(test_no_section_headers),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_system_figures),
	};

	elf_version(EV_CURRENT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
