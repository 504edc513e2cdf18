/* Unit tests of src/symbols/elf_symtab.c against tests/fixtures/symfix.c built three
 * ways. The truth comes from outside the module: run-time addresses of the
 * fixture's functions (in this process through dlopen, in a child process for
 * the executables), and binutils' readelf for sizes, counts and build-ids.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <elf.h>
#include <gelf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf_file.h"
#include "symbols/elf_symtab.h"
#include "symbols/proc_maps.h"
#include "util.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the directory of the built fixtures"
#endif

#define FIX_PIE		   FIXTURE_DIR "/symfix_pie"
#define FIX_NOPIE	   FIXTURE_DIR "/symfix_nopie"
#define FIX_LIB		   FIXTURE_DIR "/libsymfix.so"
#define FIX_NAMES	   FIXTURE_DIR "/libnamefix.so"
#define FIX_NAMES_STRIPPED FIXTURE_DIR "/libnamefix_stripped.so"
#define FIX_PLT_PIE	   FIXTURE_DIR "/pltfix_pie"
#define FIX_PLT_NOPIE	   FIXTURE_DIR "/pltfix_nopie"
#define FIX_PLT_LIB	   FIXTURE_DIR "/libpltfix.so"
#define FIX_PLT_IBT	   FIXTURE_DIR "/libpltfix_ibt.so"
#define PY313_LIB	   "/root/.pyenv/versions/3.13.0/lib/libpython3.13.so.1.0"

/* Same layout as in tests/fixtures/symfix.c. */
struct fixture_sym {
	const char *name;
	void (*fn)(void);
};

typedef const struct fixture_sym *(*fixture_table_fn)(size_t *n);

static struct elf_symtab *load_path(const char *path)
{
	struct elf_symtab *t = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail_msg("cannot open '%s': %s (build the fixtures first)", path, strerror(errno));
	assert_int_equal(elf_symtab__load(fd, &t), 0);
	close(fd);
	assert_non_null(t);
	return t;
}

static size_t distinct_values(const struct u_readelf *r)
{
	size_t i, j, n = 0;

	for (i = 0; i < r->nsyms; i++) {
		for (j = 0; j < i && r->syms[j].value != r->syms[i].value; j++)
			;
		n += j == i;
	}
	return n;
}

static bool same_start(const struct u_readelf *r, uint64_t value, const char *name)
{
	size_t i;

	for (i = 0; i < r->nsyms; i++) {
		if (r->syms[i].value == value && strcmp(r->syms[i].name, name) == 0)
			return true;
	}
	return false;
}

/* Every readelf function resolves at its first and last byte to an alias at
 * its start, and its end byte does not belong to it any more.
 */
static void check_against_readelf(const char *path)
{
	struct elf_symtab *t = load_path(path);
	struct u_readelf r = u_readelf(path);
	const char *name;
	uint64_t off;
	size_t i;

	assert_true(r.nsyms > 0);
	assert_int_equal(elf_symtab__count(t), distinct_values(&r));
	for (i = 0; i < r.nsyms; i++) {
		const struct u_rsym *s = &r.syms[i];
		uint64_t last = s->size ? s->size - 1 : 0;

		name = elf_symtab__lookup(t, s->value, &off);
		if (!name || off || !same_start(&r, s->value, name))
			fail_msg("%s: %s resolves to %s+%" PRIu64, path, s->name,
				 name ? name : "(none)", off);
		name = elf_symtab__lookup(t, s->value + last, &off);
		if (!name || off != last || !same_start(&r, s->value, name))
			fail_msg("%s: %s+%" PRIu64 " resolves to %s+%" PRIu64, path, s->name, last,
				 name ? name : "(none)", off);
		if (!s->size)
			continue;
		name = elf_symtab__lookup(t, s->value + s->size, &off);
		/* Names repeat (static functions of several files): compare starts. */
		if (name && off == s->size)
			fail_msg("%s: %s+%" PRIu64 " still inside at its end", path, s->name,
				 s->size);
	}
	u_readelf_free(&r);
	elf_symtab__free(t);
}

static void test_counts_sizes_match_readelf(void **state)
{
	(void)state;
	check_against_readelf(FIX_PIE);
	check_against_readelf(FIX_NOPIE);
	check_against_readelf(FIX_LIB);
}

static void test_self_exe_matches_readelf(void **state)
{
	(void)state;
	check_against_readelf(u_self_exe());
}

/* A copy without .symtab: only .dynsym is left to read. */
static void test_stripped_matches_readelf(void **state)
{
	char path[] = "/tmp/test_elf_symtab.XXXXXX";
	char *argv[] = { "objcopy", "--strip-all", FIX_LIB, path, NULL };
	pid_t pid;
	FILE *out;

	(void)state;
	close(u_temp_file(path, NULL, 0));
	out = u_run_tool(argv, &pid);
	u_reap_tool(out, pid);
	check_against_readelf(path);
	unlink(path);
}

/* File offsets map into executable segments only, from first to last byte. */
static void check_segments(const char *path)
{
	struct elf_symtab *t = load_path(path);
	struct u_readelf r = u_readelf(path);
	uint64_t v;

	assert_true(r.nsegs > 0);
	/* Offset 0, the ELF header, sits in a read-only segment here. */
	assert_true(r.seg[0][0] > 0);
	assert_int_equal(elf_symtab__vaddr(t, 0, &v), -ENOENT);
	for (size_t i = 0; i < r.nsegs; i++) {
		uint64_t off = r.seg[i][0], vaddr = r.seg[i][1], size = r.seg[i][2];

		assert_int_equal(elf_symtab__vaddr(t, off, &v), 0);
		assert_true(v == vaddr);
		assert_int_equal(elf_symtab__vaddr(t, off + size - 1, &v), 0);
		assert_true(v == vaddr + size - 1);
		/* The linker puts read-only data, not code, around the text. */
		assert_int_equal(elf_symtab__vaddr(t, off + size, &v), -ENOENT);
		assert_int_equal(elf_symtab__vaddr(t, off - 1, &v), -ENOENT);
	}
	u_readelf_free(&r);
	elf_symtab__free(t);
}

static void test_segments_match_readelf(void **state)
{
	(void)state;
	check_segments(FIX_PIE);
	check_segments(FIX_NOPIE);
	check_segments(FIX_LIB);
}

/* Symbolizes addr of a process whose maps are m, as the profiler will: the
 * mapping gives a file offset, the segments a link-time address.
 */
static const char *symbolize(const struct proc_maps *m, const char *path,
			     const struct elf_symtab *t, uint64_t addr, uint64_t *vaddr,
			     uint64_t *off)
{
	const struct map_entry *e = proc_maps__find(m, addr);
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	if (!e)
		fail_msg("0x%" PRIx64 " is in no executable mapping", addr);
	assert_true(e->inode == (uint64_t)st.st_ino);
	assert_int_equal(elf_symtab__vaddr(t, addr - e->start + e->offset, vaddr), 0);
	return elf_symtab__lookup(t, *vaddr, off);
}

static void check_fixture_addr(const struct proc_maps *m, const char *path,
			       const struct elf_symtab *t, const char *taken, uint64_t addr)
{
	const char *want = u_symfix_expected(taken), *got;
	uint64_t vaddr, off;

	got = symbolize(m, path, t, addr, &vaddr, &off);
	if (!got || strcmp(got, want) || off)
		fail_msg("%s at 0x%" PRIx64 ": got %s+%" PRIu64 ", want %s+0", taken, addr,
			 got ? got : "(none)", got ? off : 0, want);
	got = symbolize(m, path, t, addr + 1, &vaddr, &off);
	assert_true(got && strcmp(got, want) == 0 && off == 1);
}

static void test_library_in_process(void **state)
{
	fixture_table_fn table;
	const struct fixture_sym *tab;
	struct elf_symtab *t = load_path(FIX_LIB);
	void *h = dlopen(FIX_LIB, RTLD_NOW | RTLD_LOCAL);
	struct proc_maps m;
	size_t i, n;

	(void)state;
	assert_non_null(h);
	table = (fixture_table_fn)dlsym(h, "fixture_table");
	assert_non_null(table);
	tab = table(&n);
	assert_int_equal(n, U_SYMFIX_NSYMS);
	/* The table's addresses are the ones the dynamic linker hands out. */
	assert_ptr_equal(dlsym(h, "fixture_alpha"), (void *)tab[0].fn);
	assert_ptr_equal(dlsym(h, "fixture_gamma_weak"), dlsym(h, "fixture_gamma"));
	assert_int_equal(proc_maps__read(getpid(), &m), 0);
	for (i = 0; i < n; i++)
		check_fixture_addr(&m, FIX_LIB, t, tab[i].name, (uint64_t)(uintptr_t)tab[i].fn);
	proc_maps__free(&m);
	dlclose(h);
	elf_symtab__free(t);
}

static void check_child(const char *path, bool identity)
{
	struct elf_symtab *t = load_path(path);
	uint64_t vaddr, off;
	struct proc_maps m;
	struct u_fixture c;

	u_fixture_spawn(&c, path);
	assert_int_equal(c.n, U_SYMFIX_NSYMS);
	/* The child waits on stdin, so its maps are still there. */
	assert_int_equal(proc_maps__read(c.pid, &m), 0);
	for (size_t i = 0; i < c.n; i++) {
		check_fixture_addr(&m, path, t, c.names[i], c.addrs[i]);
		assert_non_null(symbolize(&m, path, t, c.addrs[i], &vaddr, &off));
		if (identity)
			assert_true(vaddr == c.addrs[i]);
	}
	proc_maps__free(&m);
	u_fixture_reap(&c);
	elf_symtab__free(t);
}

static void test_pie_child(void **state)
{
	(void)state;
	check_child(FIX_PIE, false);
}

/* Without PIE, run-time, link-time and symbol addresses are all the same. */
static void test_nopie_child(void **state)
{
	(void)state;
	check_child(FIX_NOPIE, true);
}

/* This test binary resolves its own functions through /proc/self/exe. */
static void test_self_exe(void **state)
{
	uint64_t addr = (uint64_t)(uintptr_t)test_self_exe, vaddr, off;
	struct elf_symtab *t = load_path("/proc/self/exe");
	struct proc_maps m;
	const char *name;

	(void)state;
	assert_true(elf_symtab__count(t) > 10);
	assert_int_equal(proc_maps__read(getpid(), &m), 0);
	name = symbolize(&m, u_self_exe(), t, addr, &vaddr, &off);
	assert_non_null(name);
	assert_string_equal(name, "test_self_exe");
	assert_true(off == 0);
	proc_maps__free(&m);
	elf_symtab__free(t);
}

static void test_lookup_outside(void **state)
{
	struct elf_symtab *t = load_path(FIX_NOPIE);
	uint64_t vaddr = 1234, off = 5678;

	(void)state;
	assert_null(elf_symtab__lookup(t, 0, &off));
	assert_null(elf_symtab__lookup(t, UINT64_MAX, &off));
	assert_true(off == 5678);
	assert_int_equal(elf_symtab__vaddr(t, UINT64_MAX, &vaddr), -ENOENT);
	assert_true(vaddr == 1234);
	elf_symtab__free(t);
}

/* The entry point of the ELF file at path, from its header. */
static uint64_t entry_of(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	close(fd);
	return eh.e_entry;
}

/* Stripped of .symtab, an executable still has its entry code named, up to
 * the next symbol; with .symtab, _start is the real symbol. */
static void test_entry_named(void **state)
{
	char path[] = "/tmp/test_elf_symtab.XXXXXX";
	char *argv[] = { "objcopy", "--strip-all", FIX_NOPIE, path, NULL };
	struct elf_symtab *t;
	uint64_t entry = entry_of(FIX_NOPIE), off = 0;
	const char *name;
	pid_t pid;
	FILE *out;

	(void)state;
	t = load_path(FIX_NOPIE);
	name = elf_symtab__lookup(t, entry, &off);
	assert_non_null(name);
	assert_string_equal(name, "_start");
	elf_symtab__free(t);

	close(u_temp_file(path, NULL, 0));
	out = u_run_tool(argv, &pid);
	u_reap_tool(out, pid);
	t = load_path(path);
	assert_false(elf_symtab__has_symtab(t));
	name = elf_symtab__lookup(t, entry + 4, &off);
	assert_non_null(name);
	assert_string_equal(name, "_start");
	assert_true(off == 4);
	/* right below it: the last PLT stub, still named without .symtab */
	name = elf_symtab__lookup(t, entry - 1, NULL);
	assert_true(!name || strstr(name, "@plt"));
	elf_symtab__free(t);
	unlink(path);
}

/* The build-id as readelf -n reports it, in bytes; returns its length. */
static size_t readelf_build_id(const char *path, uint8_t *id, size_t max)
{
	char *argv[] = { "readelf", "-n", (char *)path, NULL };
	char line[512], hex[256];
	size_t n = 0;
	pid_t pid;
	FILE *f = u_run_tool(argv, &pid);

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " Build ID: %255s", hex) != 1)
			continue;
		for (n = 0; n < max && sscanf(hex + 2 * n, "%2hhx", &id[n]) == 1; n++)
			;
	}
	u_reap_tool(f, pid);
	return n;
}

static void check_build_id(const char *path)
{
	struct elf_symtab *t = load_path(path);
	uint8_t want[64];
	size_t want_len = readelf_build_id(path, want, sizeof(want)), len;
	const uint8_t *id = elf_symtab__build_id(t, &len);

	assert_int_equal(want_len, 20);
	assert_non_null(id);
	assert_int_equal(len, 20);
	assert_memory_equal(id, want, 20);
	elf_symtab__free(t);
}

static void test_build_id(void **state)
{
	(void)state;
	check_build_id(FIX_PIE);
	check_build_id(FIX_NOPIE);
	check_build_id(FIX_LIB);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* A temporary file holding buf, opened for reading, already unlinked. */
static int temp_with(const void *buf, size_t len)
{
	char path[] = "/tmp/test_elf_symtab.XXXXXX";
	int fd = u_temp_file(path, buf, len);

	unlink(path);
	return fd;
}

/* Loads buf; returns the error, and exercises the table when it loaded. */
static int load_bytes(const void *buf, size_t len, size_t *count)
{
	struct elf_symtab *t = (struct elf_symtab *)1;
	uint64_t a, v, off;
	size_t id_len;
	int fd = temp_with(buf, len), err;

	err = elf_symtab__load(fd, &t);
	close(fd);
	*count = 0;
	if (err) {
		assert_true(err < 0);
		assert_null(t);
		return err;
	}
	*count = elf_symtab__count(t);
	for (a = 0; a < 0x3000; a += 7) {
		elf_symtab__lookup(t, a + 0x400000, &off);
		if (elf_symtab__vaddr(t, a, &v) == 0)
			elf_symtab__lookup(t, v, &off);
	}
	elf_symtab__build_id(t, &id_len);
	elf_symtab__free(t);
	return 0;
}

static void test_not_elf(void **state)
{
	static const char text[] = "#!/bin/sh\necho this is not an ELF file\n";
	static const uint8_t magic_only[] = { 0x7f, 'E', 'L', 'F' };
	struct elf_symtab *t = (struct elf_symtab *)1;
	size_t count;

	(void)state;
	assert_int_equal(load_bytes(text, sizeof(text) - 1, &count), -ENOEXEC);
	assert_int_equal(load_bytes("", 0, &count), -ENOEXEC);
	assert_true(load_bytes(magic_only, sizeof(magic_only), &count) < 0);
	assert_int_equal(elf_symtab__load(-1, &t), -EBADF);
	assert_null(t);
}

static void check_truncations(const char *path)
{
	size_t len, count, i;
	uint8_t *buf = read_file(path, &len);
	const size_t cuts[] = { 1, 16, 52, 63, 64, 100, 1000, len / 2, len - 100, len - 1 };
	int err;

	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		err = load_bytes(buf, cuts[i], &count);
		/* Most of a file: its symbols (at the end) are cut off. */
		if (cuts[i] <= len / 2 && !(err < 0 || count == 0))
			fail_msg("%s cut to %zu bytes loaded %zu symbols", path, cuts[i], count);
	}
	assert_int_equal(load_bytes(buf, len, &count), 0);
	assert_true(count > 0);
	free(buf);
}

static void test_truncated(void **state)
{
	(void)state;
	check_truncations(FIX_PIE);
	check_truncations(FIX_NOPIE);
	check_truncations(FIX_LIB);
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Damages a few bytes, mostly in the headers where the offsets live. */
static void damage(uint8_t *buf, size_t len, uint64_t *rng)
{
	size_t k, hits = 1 + next_rand(rng) % 8;

	for (k = 0; k < hits; k++) {
		uint64_t r = next_rand(rng);
		size_t pos = r & 1 ? (r >> 8) % (len < 4096 ? len : 4096) : (r >> 8) % len;

		buf[pos] = r & 2 ? (uint8_t)(r >> 32) : (uint8_t)(r & 4 ? 0xff : 0);
	}
}

static void fuzz_file(const char *path, unsigned int rounds)
{
	size_t len, count, i;
	uint8_t *orig = read_file(path, &len), *buf = malloc(len);
	uint64_t rng = 0x2545f4914f6cdd1dULL;

	assert_non_null(buf);
	for (i = 0; i < rounds; i++) {
		memcpy(buf, orig, len);
		damage(buf, len, &rng);
		/* Any result will do; a crash or a sanitizer report will not. */
		load_bytes(buf, len, &count);
	}
	free(buf);
	free(orig);
}

static void test_damaged(void **state)
{
	(void)state;
	fuzz_file(FIX_PIE, 300);
	fuzz_file(FIX_NOPIE, 300);
	fuzz_file(FIX_LIB, 300);
}

/* Finds the build-id note in buf and changes its type: no build-id is left. */
static void test_no_build_id(void **state)
{
	struct elf_symtab *t = load_path(FIX_LIB);
	size_t len, id_len, i;
	const uint8_t *id = elf_symtab__build_id(t, &id_len);
	uint8_t *buf = read_file(FIX_LIB, &len);
	struct elf_symtab *u;
	uint32_t type = 0x4242;
	int fd;

	(void)state;
	assert_int_equal(id_len, 20);
	for (i = 16; i + id_len <= len && memcmp(buf + i, id, id_len); i++)
		;
	assert_true(i + id_len <= len);
	assert_memory_equal(buf + i - 4, "GNU", 4);
	memcpy(buf + i - 8, &type, sizeof(type)); /* n_type, before the name */
	fd = temp_with(buf, len);
	assert_int_equal(elf_symtab__load(fd, &u), 0);
	close(fd);
	assert_null(elf_symtab__build_id(u, &id_len));
	assert_int_equal(id_len, 0);
	assert_int_equal(elf_symtab__count(u), elf_symtab__count(t));
	elf_symtab__free(u);
	elf_symtab__free(t);
	free(buf);
}

/* Loads buf with its header edited by edit; returns the table. */
static struct elf_symtab *load_edited(uint8_t *buf, size_t len, void (*edit)(Elf64_Ehdr *eh))
{
	struct elf_symtab *t;
	Elf64_Ehdr eh;
	int fd;

	memcpy(&eh, buf, sizeof(eh));
	edit(&eh);
	memcpy(buf, &eh, sizeof(eh));
	fd = temp_with(buf, len);
	assert_int_equal(elf_symtab__load(fd, &t), 0);
	close(fd);
	return t;
}

static void drop_sections(Elf64_Ehdr *eh)
{
	eh->e_shoff = 0;
	eh->e_shnum = 0;
	eh->e_shstrndx = 0;
}

static void drop_segments(Elf64_Ehdr *eh)
{
	eh->e_phoff = 0;
	eh->e_phnum = 0;
}

/* Without section headers: no symbols, but the build-id comes from PT_NOTE
 * and the segments still translate; without program headers the other way.
 */
static void test_headers_missing(void **state)
{
	struct elf_symtab *t = load_path(FIX_LIB), *u;
	size_t len, want_len, got_len;
	uint8_t *buf = read_file(FIX_LIB, &len);
	const uint8_t *want = elf_symtab__build_id(t, &want_len);
	uint64_t v;

	(void)state;
	assert_int_equal(buf[EI_CLASS], ELFCLASS64);
	u = load_edited(buf, len, drop_sections);
	assert_int_equal(elf_symtab__count(u), 0);
	assert_null(elf_symtab__lookup(u, 0x1000, NULL));
	assert_memory_equal(elf_symtab__build_id(u, &got_len), want, want_len);
	assert_int_equal(got_len, want_len);
	assert_int_equal(elf_symtab__vaddr(u, 0x1000, &v), elf_symtab__vaddr(t, 0x1000, &v));
	elf_symtab__free(u);
	free(buf);
	buf = read_file(FIX_LIB, &len);
	u = load_edited(buf, len, drop_segments);
	assert_int_equal(elf_symtab__count(u), elf_symtab__count(t));
	assert_memory_equal(elf_symtab__build_id(u, &got_len), want, want_len);
	assert_int_equal(elf_symtab__vaddr(u, 0x1000, &v), -ENOENT);
	elf_symtab__free(u);
	free(buf);
	elf_symtab__free(t);
}

/* The i-th function by iteration: address order, the name lookup gives, the
 * extent lookup uses, and each alias once, never the best name again. */
static void check_iteration(const char *path, uint16_t type)
{
	struct elf_symtab *t = load_path(path);
	uint64_t off, v, prev = 0;
	const char *alias;
	struct elf_func f;
	size_t i, k;

	assert_int_equal(elf_symtab__type(t), type);
	for (i = 0; i < elf_symtab__count(t); i++) {
		assert_int_equal(elf_symtab__func(t, i, &f), 0);
		assert_true(i == 0 || f.vaddr > prev);
		prev = f.vaddr;
		assert_string_equal(elf_symtab__lookup(t, f.vaddr, &off), f.name);
		assert_true(f.size > 0 && off == 0);
		assert_ptr_equal(elf_symtab__lookup(t, f.vaddr + f.size - 1, &off), f.name);
		/* file offsets and link-time addresses are inverses */
		assert_int_equal(elf_symtab__file_offset(t, f.vaddr, &off), 0);
		assert_int_equal(elf_symtab__vaddr(t, off, &v), 0);
		assert_true(v == f.vaddr);
		for (k = 0; (alias = elf_symtab__alias(t, i, k)); k++) {
			assert_string_not_equal(alias, f.name);
			for (size_t j = 0; j < k; j++)
				assert_string_not_equal(alias, elf_symtab__alias(t, i, j));
		}
		assert_int_equal(k, f.nalias);
	}
	assert_int_equal(elf_symtab__func(t, i, &f), -ENOENT);
	assert_null(elf_symtab__alias(t, i, 0));
	assert_int_equal(elf_symtab__file_offset(t, 0, &off), -ENOENT);
	elf_symtab__free(t);
}

static const struct elf_func *find_func(const struct elf_symtab *t, const char *name,
					struct elf_func *f)
{
	for (size_t i = 0; !elf_symtab__func(t, i, f); i++) {
		if (!strcmp(f->name, name))
			return f;
	}
	fail_msg("no function '%s'", name);
	return NULL;
}

/* Other names at an address are kept, for matching by name. */
static void test_func_aliases(void **state)
{
	struct elf_symtab *t = load_path(FIX_PIE);
	struct elf_func f;
	size_t i;

	(void)state;
	check_iteration(FIX_PIE, ET_DYN);
	check_iteration(FIX_NOPIE, ET_EXEC);
	check_iteration(FIX_LIB, ET_DYN);
	find_func(t, "fixture_alpha", &f);
	assert_int_equal(f.nalias, 1);
	for (i = 0; elf_symtab__func(t, i, &f) == 0 && strcmp(f.name, "fixture_alpha"); i++)
		;
	assert_string_equal(elf_symtab__alias(t, i, 0), "__fixture_a");
	assert_true(find_func(t, "fixture_ifunc", &f)->ifunc);
	assert_false(find_func(t, "fixture_gamma", &f)->ifunc);
	assert_true(find_func(t, "fixture_halfsized", &f)->sized);
	assert_false(find_func(t, "fixture_nosize", &f)->sized);
	elf_symtab__free(t);
}

/* The index of the function named name (best or alias k: *k), or fails. */
static size_t find_name(const struct elf_symtab *t, const char *name, size_t *k)
{
	struct elf_func f;
	const char *alias;

	for (size_t i = 0; !elf_symtab__func(t, i, &f); i++) {
		*k = 0;
		if (!strcmp(f.name, name))
			return i;
		for (*k = 1; (alias = elf_symtab__alias(t, i, *k - 1)); ++*k)
			if (!strcmp(alias, name))
				return i;
	}
	fail_msg("no name '%s'", name);
	return 0;
}

/* fixture_ver@@NAMEFIX_2 is fixture_ver, fixture_ver@NAMEFIX_1 keeps its
 * version, from .symtab names as from .dynsym's version sections; the
 * address of each is readelf's. */
static void check_versions(const char *path)
{
	struct elf_symtab *t = load_path(path);
	struct u_readelf r = u_readelf(path);
	struct elf_func f;
	size_t k, i, found = 0;

	for (i = 0; i < r.nsyms; i++) {
		const char *name;
		size_t j;

		assert_int_equal(elf_symtab__find(t, r.syms[i].value, &j), 0);
		assert_int_equal(elf_symtab__func(t, j, &f), 0);
		for (k = 0, name = f.name; name && strcmp(name, r.syms[i].name); k++)
			name = elf_symtab__alias(t, j, k);
		if (!name)
			fail_msg("%s: no name '%s' at %#" PRIx64, path, r.syms[i].name,
				 r.syms[i].value);
		found += !strncmp(r.syms[i].name, "fixture_ver", 11);
	}
	assert_true(found >= 2);
	i = find_name(t, "fixture_ver", &k);
	assert_true(i != find_name(t, "fixture_ver@NAMEFIX_1", &k));
	for (i = 0; !elf_symtab__func(t, i, &f); i++)
		assert_null(strstr(f.name, "@@"));
	u_readelf_free(&r);
	elf_symtab__free(t);
}

static void test_versions(void **state)
{
	(void)state;
	check_versions(FIX_NAMES);
	check_versions(FIX_NAMES_STRIPPED);
}

/* Which names at an IFUNC's address are IFUNC symbols: not its resolver's
 * own name. */
static void test_ifunc_names(void **state)
{
	struct elf_symtab *t = load_path(FIX_NAMES);
	struct elf_func f;
	size_t k, i = find_name(t, "fixture_pick", &k);

	(void)state;
	assert_int_equal(elf_symtab__func(t, i, &f), 0);
	assert_true(f.ifunc);
	assert_true(elf_symtab__ifunc_name(t, i, k));
	assert_int_equal(find_name(t, "resolve_fixture_pick", &k), i);
	assert_false(elf_symtab__ifunc_name(t, i, k));
	assert_false(elf_symtab__ifunc_name(t, i, f.nalias + 1));
	i = find_name(t, "fixture_pick_fast", &k);
	assert_int_equal(elf_symtab__find(t, f.vaddr, &k), 0);
	assert_int_equal(elf_symtab__find(t, f.vaddr + 1, &k), -ENOENT);
	elf_symtab__free(t);
}

/* The name a PLT stub objdump names "<NAME@plt>" must have: the same, but
 * for "*ABS*+0xADDR", an IFUNC of the file, named after the resolver at
 * ADDR. Writes "" when the resolver has no name either. */
static void want_plt_name(const struct elf_symtab *t, const char *objdump, char *buf, size_t len)
{
	struct elf_func f;
	uint64_t addr;
	size_t i;

	if (sscanf(objdump, "*ABS*+%" SCNx64, &addr) != 1) {
		snprintf(buf, len, "%s@plt", objdump);
		return;
	}
	buf[0] = '\0';
	if (elf_symtab__find(t, addr, &i) == 0 && elf_symtab__func(t, i, &f) == 0)
		snprintf(buf, len, "%s@plt", f.name);
}

/* Every stub objdump names in the PLT sections of path, the table names
 * alike at its first and a later byte; returns how many. */
static size_t check_plt_objdump(const struct elf_symtab *t, const char *path)
{
	char *argv[] = { "objdump",  "-d", "-j",       ".plt",	     "-j",
			 ".plt.sec", "-j", ".plt.got", (char *)path, NULL };
	char line[1024], name[512], want[600];
	uint64_t addr, off;
	size_t n = 0;
	const char *got;
	pid_t pid;
	FILE *f = u_run_tool(argv, &pid);

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " <%511[^>]>:", &addr, name) != 2)
			continue;
		if (strlen(name) < 5 || strcmp(name + strlen(name) - 4, "@plt") != 0)
			continue; /* PLT0, "<x@plt-0x10>" */
		name[strlen(name) - 4] = '\0';
		want_plt_name(t, name, want, sizeof(want));
		if (!want[0])
			continue;
		for (uint64_t k = 0; k < 8; k += 5) {
			got = elf_symtab__lookup(t, addr + k, &off);
			if (!got || strcmp(got, want) != 0 || off != k)
				fail_msg("%s: %#" PRIx64 " is '%s'+%" PRIu64 ", objdump says '%s'",
					 path, addr + k, got ? got : "(none)", off, want);
		}
		n++;
	}
	u_reap_tool(f, pid);
	return n;
}

/* No byte of the PLT sections is named after a symbol before them (_init,
 * unsized, used to run over .plt): a name there is a stub's or none. */
static void check_plt_bytes(const struct elf_symtab *t, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *sec, *got;

	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		assert_non_null(gelf_getshdr(scn, &sh));
		sec = elf_strptr(elf, shstrndx, sh.sh_name);
		if (strncmp(sec, ".plt", 4) != 0 || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		for (uint64_t a = sh.sh_addr; a < sh.sh_addr + sh.sh_size; a++) {
			got = elf_symtab__lookup(t, a, NULL);
			if (got && !strstr(got, "@plt"))
				fail_msg("%s: %#" PRIx64 " in %s is '%s'", path, a, sec, got);
		}
	}
	elf_end(elf);
	close(fd);
}

static void check_plt(const char *path, size_t min)
{
	struct elf_symtab *t;
	size_t n;

	if (access(path, R_OK) != 0) {
		print_message("no %s: not checked\n", path);
		return;
	}
	t = load_path(path);
	n = check_plt_objdump(t, path);
	print_message("%s: %zu PLT stubs named as objdump names them\n", path, n);
	assert_true(n >= min);
	check_plt_bytes(t, path);
	elf_symtab__free(t);
}

/* PLT stubs are "FUNCTION@plt", as objdump (and perf) name them: the
 * fixture's calls to libc, and in the library to its own exported
 * function; .plt.got's __cxa_finalize; IBT's .plt.sec; libc's stubs of its
 * own IFUNCs. */
static void test_plt_names(void **state)
{
	struct elf_symtab *t = load_path(FIX_PLT_LIB);
	uint64_t off;

	(void)state;
	check_plt(FIX_PLT_PIE, 4);
	check_plt(FIX_PLT_NOPIE, 3);
	check_plt(FIX_PLT_LIB, 5);
	check_plt(FIX_PLT_IBT, 5);
	check_plt("/lib/x86_64-linux-gnu/libc.so.6", 20);
	check_plt("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 1000);
	check_plt("/usr/bin/python3.11", 400);
	check_plt(PY313_LIB, 1000);
	/* what names a stub is its own table, not the sections' order */
	assert_int_equal(elf_symtab__find(t, 0, &(size_t){ 0 }), -ENOENT);
	assert_null(strstr(elf_symtab__lookup(t, 0x1000, &off) ?: "", "@plt"));
	elf_symtab__free(t);
}

/* Every function of path named the same when its table leaves the names
 * in the file as when it copies them: each read back where the table says,
 * versioned names ("name@VERSION", composed) and PLT stubs kept copied.
 * Returns how many names were read from the file. */
static size_t expect_names_left(const char *path)
{
	struct elf_symtab *eager = load_path(path), *left = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = elf_symtab__count(eager), from_file = 0;
	struct elf_func f;

	assert_true(fd >= 0);
	assert_int_equal(elf_symtab__load_as(fd, NULL, true, &left), 0);
	assert_int_equal(elf_symtab__count(left), n);
	for (size_t i = 0; i < n; i++) {
		uint64_t off_e, off_l, in_file;
		const char *want, *got;
		char *read = NULL;

		assert_int_equal(elf_symtab__func(eager, i, &f), 0);
		want = elf_symtab__lookup(eager, f.vaddr, &off_e);
		got = elf_symtab__lookup_ref(left, f.vaddr, &off_l, &in_file);
		assert_non_null(want);
		if (!got) {
			assert_int_not_equal(in_file, 0);
			assert_int_equal(elf_symtab__read_name(fd, in_file, &read), 0);
			got = read;
			from_file++;
		}
		if (strcmp(want, got))
			fail_msg("%s at 0x%" PRIx64 ": '%s' left in the file, '%s' copied", path,
				 f.vaddr, got, want);
		assert_int_equal(off_e, off_l);
		free(read);
	}
	if (from_file)
		assert_true(elf_symtab__bytes(left) < elf_symtab__bytes(eager));
	close(fd);
	elf_symtab__free(eager);
	elf_symtab__free(left);
	return from_file;
}

/* The fixtures (.symtab with versions and PLT stubs), the C library
 * (.dynsym names of non-default versions, memcpy@GLIBC_2.2.5) and a C++
 * library (long mangled names). */
static void test_names_left(void **state)
{
	static const char *const more[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6",
					    "/usr/lib/x86_64-linux-gnu/libstdc++.so.6" };

	(void)state;
	assert_true(expect_names_left(FIX_PIE) > 0);
	assert_true(expect_names_left(FIX_PLT_LIB) > 0);
	assert_true(expect_names_left(FIX_NAMES) > 0);
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		if (!access(more[i], R_OK))
			assert_true(expect_names_left(more[i]) > 100);
}

/* The sanitizer allocator's hooks (declared in compiler-rt's
 * sanitizer/allocator_interface.h, which gcc does not install): weak, so
 * NULL in a build without ASan. */
int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
					      void (*f)(const volatile void *))
	__attribute__((weak));
size_t __sanitizer_get_allocated_size(const volatile void *p) __attribute__((weak));

/* The heap in use and its peak while counting: the hooks cannot be
 * removed, nor take an argument. */
static struct {
	bool on;
	size_t now, peak;
} heap;

static void heap_malloc(const volatile void *p, size_t size)
{
	(void)p;
	if (!heap.on)
		return;
	heap.now += size;
	if (heap.now > heap.peak)
		heap.peak = heap.now;
}

static void heap_free(const volatile void *p)
{
	size_t size = p ? __sanitizer_get_allocated_size(p) : 0;

	if (heap.on)
		heap.now = heap.now > size ? heap.now - size : 0;
}

/* The most heap that loading path took at once, the table's names copied
 * or left in the file. */
static size_t load_peak(const char *path, bool names_left)
{
	struct elf_symtab *t = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	heap.now = heap.peak = 0;
	heap.on = true;
	assert_int_equal(elf_symtab__load_as(fd, NULL, names_left, &t), 0);
	heap.on = false;
	close(fd);
	elf_symtab__free(t);
	return heap.peak;
}

#define LONG_ADDRS 100
#define LONG_NAME  2000

/* Into path, a copy of FIX_LIB with three functions of LONG_NAME-byte
 * names at each of LONG_ADDRS addresses: "aX", "bX" and "_aX", where
 * the best ("aX") is chosen by comparing the names themselves. */
static void long_names_lib(const char *path)
{
	char *argv[3 * LONG_ADDRS * 2 + 4] = { "objcopy" }, *arg;
	size_t n = 1;
	FILE *out;
	pid_t pid;

	for (size_t i = 0; i < 3 * LONG_ADDRS; i++) {
		size_t addr = i % LONG_ADDRS, len = LONG_NAME + 64, at;

		arg = malloc(len);
		assert_non_null(arg);
		at = (size_t)snprintf(arg, len, "%s", i / LONG_ADDRS == 2 ? "_" : "");
		arg[at++] = i / LONG_ADDRS == 1 ? 'b' : 'a';
		memset(arg + at, 'x', LONG_NAME);
		snprintf(arg + at + LONG_NAME, len - at - LONG_NAME, "%zu=.text:%#zx,function,global",
			 addr, addr);
		argv[n++] = "--add-symbol";
		argv[n++] = arg;
	}
	argv[n++] = FIX_LIB;
	argv[n++] = (char *)path;
	argv[n] = NULL;
	out = u_run_tool(argv, &pid);
	for (size_t i = 2; i < n - 2; i += 2)
		free(argv[i]);
	u_reap_tool(out, pid);
}

/* A table that leaves its names in the file does not hold them while it
 * loads either: names that dwarf the symbols (600 KB of them) cost a copy
 * loading them, nothing loading them left; the best of each address's
 * names is the same. */
static void test_names_left_load(void **state)
{
	char path[] = "/tmp/test_elf_symtab.XXXXXX";
	size_t names = 3 * LONG_ADDRS * LONG_NAME, copied, left;

	(void)state;
	if (!__sanitizer_install_malloc_and_free_hooks)
		skip(); /* no allocator hooks without ASan */
	close(u_temp_file(path, NULL, 0));
	long_names_lib(path);
	assert_true(expect_names_left(path) >= LONG_ADDRS);
	assert_int_equal(__sanitizer_install_malloc_and_free_hooks(heap_malloc, heap_free), 1);
	copied = load_peak(path, false);
	left = load_peak(path, true);
	print_message("%s: %zu bytes of names, loaded with them at a peak of %zu bytes, %zu "
		      "without\n",
		      path, names, copied, left);
	assert_true(copied > names);
	assert_true(left < names / 8);
	unlink(path);
}

/* This process's RssFile, in KiB. */
static long rss_file_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "RssFile:", 8))
			kib = atol(line + 8);
	fclose(f);
	return kib;
}

/* A sum of every 64th byte, to check that bytes read again are the same. */
static uint64_t touch_sum(const unsigned char *p, size_t len)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < len; i += 64)
		sum = sum * 31 + p[i];
	return sum;
}

/* The largest section of path: its section, and its data into *data, *len. */
static Elf_Scn *largest_section(Elf *elf, const unsigned char **data, size_t *len)
{
	Elf_Scn *scn = NULL, *largest = NULL;
	Elf_Data *d;

	*len = 0;
	while ((scn = elf_nextscn(elf, scn)))
		if ((d = elf_getdata(scn, NULL)) && d->d_buf && d->d_size > *len) {
			*data = d->d_buf;
			*len = d->d_size;
			largest = scn;
		}
	assert_non_null(largest);
	return largest;
}

/* Pages of the file given back leave our RSS and read again the same; the
 * file read into the heap is left alone (dropping its pages would zero
 * them). */
static void test_release(void **state)
{
	int fd = open(u_self_exe(), O_RDONLY | O_CLOEXEC);
	const unsigned char *data;
	Elf_Scn *scn;
	uint64_t sum;
	long touched;
	size_t len;
	Elf *elf;

	(void)state;
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL); /* read, not mapped */
	assert_non_null(elf);
	scn = largest_section(elf, &data, &len);
	assert_true(len >= 1 << 20);
	sum = touch_sum(data, len);
	elf_file__release(elf, scn);
	assert_true(touch_sum(data, len) == sum);
	elf_end(elf);
	assert_int_equal(elf_file__open(fd, &elf), 0);
	scn = largest_section(elf, &data, &len);
	sum = touch_sum(data, len);
	touched = rss_file_kib();
	elf_file__release(elf, scn);
	print_message("%s: %zu KiB section read, RssFile %ld KiB, then %ld\n", u_self_exe(),
		      len >> 10, touched, rss_file_kib());
	assert_true(rss_file_kib() < touched - (long)(len >> 11));
	assert_true(touch_sum(data, len) == sum);
	elf_end(elf);
	close(fd);
}

/* A name left in the file is read as the table gives it (a .symtab name
 * without its default version), and bytes that are not a name (the file
 * changed since) are refused. */
static void test_read_name(void **state)
{
	char path[] = "/tmp/test_elf_symtab.XXXXXX", *name = NULL;
	static const char text[] = "ab\0@@V\0memcpy@@GLIBC_2.14\0";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	assert_int_equal(elf_symtab__read_name(fd, 0, &name), 0);
	assert_string_equal(name, "ab");
	free(name);
	assert_int_equal(elf_symtab__read_name(fd, 7, &name), 0);
	assert_string_equal(name, "memcpy");
	free(name);
	assert_int_equal(elf_symtab__read_name(fd, 3, &name), -EINVAL);	  /* "@@V" */
	assert_int_equal(elf_symtab__read_name(fd, 2, &name), -EINVAL);	  /* "" */
	assert_int_equal(elf_symtab__read_name(fd, 100, &name), -EINVAL); /* past the end */
	assert_null(name);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_library_in_process),
		cmocka_unit_test(test_pie_child),
		cmocka_unit_test(test_nopie_child),
		cmocka_unit_test(test_self_exe),
		cmocka_unit_test(test_counts_sizes_match_readelf),
		cmocka_unit_test(test_self_exe_matches_readelf),
		cmocka_unit_test(test_stripped_matches_readelf),
		cmocka_unit_test(test_segments_match_readelf),
		cmocka_unit_test(test_headers_missing),
		cmocka_unit_test(test_lookup_outside),
		cmocka_unit_test(test_entry_named),
		cmocka_unit_test(test_func_aliases),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_ifunc_names),
		cmocka_unit_test(test_plt_names),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_no_build_id),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_names_left),
		cmocka_unit_test(test_names_left_load),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_read_name),
	};

	return cmocka_run_group_tests_name("elf_symtab", tests, NULL, NULL);
}
