/* Unit tests of src/symbols/debuginfo.c: stripped copies of tests/fixtures/symfix.c
 * (built by the Makefile with objcopy and xz) get back every name of the
 * unstripped build, by each route, and only from a debug file that matches.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "symbols/elf_symtab.h"
#include "util.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the directory of the built fixtures"
#endif

#define FIX(name)  FIXTURE_DIR "/" name
#define DEBUG_ROOT FIXTURE_DIR "/debugroot"
#define NO_ROOT	   "/nonexistent/flamebpf-debug"

static const char *const from_names[] = { "none", "build-id", "debuglink", "minidebuginfo" };

static struct elf_symtab *load_as(const char *path, const char *as, const char *root,
				  enum debuginfo_from want)
{
	struct debuginfo_where w = { .path = as, .debug_root = root };
	enum debuginfo_from from = 99;
	struct elf_symtab *t = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail_msg("cannot open '%s': %s (build the fixtures first)", path, strerror(errno));
	assert_int_equal(debuginfo__load(fd, &w, &t, &from), 0);
	close(fd);
	assert_non_null(t);
	if (from != want)
		fail_msg("%s: symbols from %s, expected %s", path,
			 from <= DEBUGINFO_MINI ? from_names[from] : "?", from_names[want]);
	return t;
}

static struct elf_symtab *load(const char *path, const char *root, enum debuginfo_from want)
{
	return load_as(path, path, root, want);
}

/* Every function of the unstripped build, at its first and last byte. */
static void expect_same_names(const struct elf_symtab *t, const char *full_path)
{
	struct elf_symtab *full = load(full_path, NO_ROOT, DEBUGINFO_NONE);
	struct elf_func f;
	const char *name;
	uint64_t off;

	assert_true(elf_symtab__count(full) > 10);
	for (size_t i = 0; !elf_symtab__func(full, i, &f); i++) {
		name = elf_symtab__lookup(t, f.vaddr, &off);
		if (!name || strcmp(name, f.name) || off)
			fail_msg("0x%" PRIx64 ": got %s+%" PRIu64 ", expected %s", f.vaddr,
				 name ? name : "(none)", off, f.name);
		name = elf_symtab__lookup(t, f.vaddr + f.size - 1, &off);
		if (!name || strcmp(name, f.name) || off != f.size - 1)
			fail_msg("0x%" PRIx64 ": got %s+%" PRIu64 ", expected %s+%" PRIu64,
				 f.vaddr + f.size - 1, name ? name : "(none)", off, f.name,
				 f.size - 1);
	}
	assert_int_equal(elf_symtab__count(t), elf_symtab__count(full));
	assert_true(elf_symtab__has_symtab(t));
	elf_symtab__free(full);
}

/* The stripped file alone: no name for the fixture's functions. */
static void expect_stripped(const struct elf_symtab *t)
{
	struct elf_symtab *full = load(FIX("symfix_pie"), NO_ROOT, DEBUGINFO_NONE);
	struct elf_func f;
	const char *name;

	assert_false(elf_symtab__has_symtab(t));
	for (size_t i = 0; !elf_symtab__func(full, i, &f); i++) {
		if (strncmp(f.name, "fixture_", 8))
			continue;
		name = elf_symtab__lookup(t, f.vaddr, NULL);
		if (name)
			fail_msg("stripped, yet 0x%" PRIx64 " is %s", f.vaddr, name);
	}
	elf_symtab__free(full);
}

static void test_not_stripped(void **state)
{
	struct elf_symtab *t = load(FIX("symfix_pie"), DEBUG_ROOT, DEBUGINFO_NONE);

	(void)state;
	assert_true(elf_symtab__has_symtab(t));
	elf_symtab__free(t);
}

static void test_stripped_alone(void **state)
{
	struct elf_symtab *t = load(FIX("symfix_buildid"), NO_ROOT, DEBUGINFO_NONE);

	(void)state;
	expect_stripped(t);
	elf_symtab__free(t);
}

static void test_build_id(void **state)
{
	struct elf_symtab *t = load(FIX("symfix_buildid"), DEBUG_ROOT, DEBUGINFO_BUILD_ID);
	size_t len;

	(void)state;
	expect_same_names(t, FIX("symfix_pie"));
	/* the binary's own build-id and segments stay */
	assert_non_null(elf_symtab__build_id(t, &len));
	assert_int_equal(len, 20);
	elf_symtab__free(t);
}

static void test_debuglink(void **state)
{
	struct elf_symtab *t = load(FIX("symfix_debuglink"), NO_ROOT, DEBUGINFO_LINK);

	(void)state;
	expect_same_names(t, FIX("symfix_pie"));
	elf_symtab__free(t);
}

static void test_debuglink_dotdebug(void **state)
{
	struct elf_symtab *t = load(FIX("symfix_dotdebug"), NO_ROOT, DEBUGINFO_LINK);

	(void)state;
	expect_same_names(t, FIX("symfix_pie"));
	elf_symtab__free(t);
}

/* A debug file changed since the link was made does not count. */
static void test_crc_mismatch(void **state)
{
	struct elf_symtab *t = load(FIX("symfix_badcrc"), NO_ROOT, DEBUGINFO_NONE);

	(void)state;
	expect_stripped(t);
	elf_symtab__free(t);
}

static void test_minidebuginfo(void **state)
{
	struct elf_symtab *t = load(FIX("symfix_mini"), NO_ROOT, DEBUGINFO_MINI);

	(void)state;
	expect_same_names(t, FIX("symfix_pie"));
	elf_symtab__free(t);
}

/* A library's MiniDebugInfo holds only what .dynsym lacks (its local
 * functions): both together name everything. */
static void test_minidebuginfo_complements_dynsym(void **state)
{
	struct elf_symtab *dyn = NULL, *t;
	int fd = open(FIX("libsymfix_mini.so"), O_RDONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(elf_symtab__load(fd, &dyn), 0);
	close(fd);
	t = load(FIX("libsymfix_mini.so"), NO_ROOT, DEBUGINFO_MINI);
	expect_same_names(t, FIX("libsymfix.so"));
	/* .dynsym alone names the exported functions only */
	assert_true(elf_symtab__count(dyn) > 0);
	assert_true(elf_symtab__count(dyn) < elf_symtab__count(t));
	elf_symtab__free(dyn);
	elf_symtab__free(t);
}

/* Temporary directories, removed with everything in them. */
struct tmp {
	char dir[64];
};

static void tmp_make(struct tmp *d)
{
	snprintf(d->dir, sizeof(d->dir), "/tmp/test_debuginfo.XXXXXX");
	assert_non_null(mkdtemp(d->dir));
}

static void tmp_remove(struct tmp *d)
{
	char *argv[] = { "rm", "-rf", d->dir, NULL };
	pid_t pid;
	FILE *f = u_run_tool(argv, &pid);

	u_reap_tool(f, pid);
}

/* mkdir -p of DIR/sub */
static void make_dirs(const char *dir, const char *sub, char *out, size_t size)
{
	char *argv[] = { "mkdir", "-p", out, NULL };
	pid_t pid;
	FILE *f;

	snprintf(out, size, "%s/%s", dir, sub);
	f = u_run_tool(argv, &pid);
	u_reap_tool(f, pid);
}

/* The third place of a debuglink: DEBUG_ROOT/<the binary's dir>/NAME. */
static void test_debuglink_under_root(void **state)
{
	char bin_dir[256], dbg_dir[512], bin[512], dbg[1024];
	struct elf_symtab *t;
	struct tmp d;

	(void)state;
	tmp_make(&d);
	make_dirs(d.dir, "bin", bin_dir, sizeof(bin_dir));
	make_dirs(d.dir, "root", dbg_dir, sizeof(dbg_dir));
	snprintf(bin, sizeof(bin), "%s/symfix_debuglink", bin_dir);
	u_copy_file(FIX("symfix_debuglink"), bin);
	/* without it: nothing */
	t = load(bin, dbg_dir, DEBUGINFO_NONE);
	elf_symtab__free(t);
	make_dirs(dbg_dir, bin_dir + 1, dbg, sizeof(dbg));
	strcat(dbg, "/symfix_debuglink.debug");
	u_copy_file(FIX("symfix_debuglink.debug"), dbg);
	t = load(bin, dbg_dir, DEBUGINFO_LINK);
	expect_same_names(t, FIX("symfix_pie"));
	elf_symtab__free(t);
	tmp_remove(&d);
}

/* A FIFO where the debug file should be must not hang the search. */
static void test_debuglink_fifo(void **state)
{
	char bin[128], dbg[128];
	struct elf_symtab *t;
	struct tmp d;

	(void)state;
	tmp_make(&d);
	snprintf(bin, sizeof(bin), "%s/symfix_debuglink", d.dir);
	snprintf(dbg, sizeof(dbg), "%s/symfix_debuglink.debug", d.dir);
	u_copy_file(FIX("symfix_debuglink"), bin);
	assert_int_equal(mkfifo(dbg, 0644), 0);
	t = load(bin, NO_ROOT, DEBUGINFO_NONE);
	expect_stripped(t);
	elf_symtab__free(t);
	/* a link to the right file is followed (build-id trees are links) */
	unlink(dbg);
	assert_int_equal(symlink(FIX("symfix_debuglink.debug"), dbg), 0);
	t = load(bin, NO_ROOT, DEBUGINFO_LINK);
	elf_symtab__free(t);
	tmp_remove(&d);
}

/* A debug file of another build at the binary's build-id path. */
static void test_build_id_mismatch(void **state)
{
	struct elf_symtab *full = load(FIX("symfix_pie"), NO_ROOT, DEBUGINFO_NONE), *t;
	char sub[64], dir[256], path[512];
	const uint8_t *id;
	struct tmp d;
	size_t len;

	(void)state;
	id = elf_symtab__build_id(full, &len);
	assert_non_null(id);
	tmp_make(&d);
	snprintf(sub, sizeof(sub), ".build-id/%02x", id[0]);
	make_dirs(d.dir, sub, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/", dir);
	for (size_t i = 1; i < len; i++)
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%02x", id[i]);
	strcat(path, ".debug");
	u_copy_file(FIX("libsymfix.so"), path);
	t = load(FIX("symfix_buildid"), d.dir, DEBUGINFO_NONE);
	expect_stripped(t);
	elf_symtab__free(t);
	/* the right one there is taken */
	unlink(path);
	assert_int_equal(symlink(FIX("symfix_debuglink.debug"), path), 0);
	t = load(FIX("symfix_buildid"), d.dir, DEBUGINFO_BUILD_ID);
	elf_symtab__free(t);
	elf_symtab__free(full);
	tmp_remove(&d);
}

static void *xz(const void *in, size_t len, size_t *out_len)
{
	size_t cap = len / 2 + 4096;
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	*out_len = 0;
	assert_int_equal(
		lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, len, out, out_len, cap),
		LZMA_OK);
	return out;
}

/* Decompression is bounded, and bad input is an error, not a crash. */
static void test_unxz_bounds(void **state)
{
	size_t big = 4 << 20, zlen, len;
	char *zeros = calloc(1, big);
	uint8_t *z;
	void *out;

	(void)state;
	assert_non_null(zeros);
	z = xz(zeros, big, &zlen);
	assert_true(zlen < 4096);
	assert_int_equal(debuginfo__unxz(z, zlen, big, &out, &len), 0);
	assert_int_equal(len, big);
	assert_memory_equal(out, zeros, big);
	free(out);
	assert_int_equal(debuginfo__unxz(z, zlen, big - 1, &out, &len), -EFBIG);
	assert_null(out);
	assert_int_equal(debuginfo__unxz(z, zlen, 1 << 20, &out, &len), -EFBIG);
	assert_int_equal(debuginfo__unxz(z, zlen / 2, big, &out, &len), -EINVAL);
	assert_int_equal(debuginfo__unxz(z, 0, big, &out, &len), -EINVAL);
	assert_int_equal(debuginfo__unxz(zeros, 4096, big, &out, &len), -EINVAL);
	z[zlen / 2] ^= 0x55;
	assert_int_not_equal(debuginfo__unxz(z, zlen, big, &out, &len), 0);
	assert_null(out);
	free(z);
	free(zeros);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_stripped),
		cmocka_unit_test(test_stripped_alone),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_debuglink_dotdebug),
		cmocka_unit_test(test_crc_mismatch),
		cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_minidebuginfo_complements_dynsym),
		cmocka_unit_test(test_debuglink_under_root),
		cmocka_unit_test(test_debuglink_fifo),
		cmocka_unit_test(test_build_id_mismatch),
		cmocka_unit_test(test_unxz_bounds),
	};

	return cmocka_run_group_tests_name("debuginfo", tests, NULL, NULL);
}
