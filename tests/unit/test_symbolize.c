/* Unit tests of the user-space symbolization chain: src/symbols/procs.c (snapshots of
 * a process's mappings), src/symbols/symcache.c (one symbol table per binary) and
 * src/symbols/symbolize.c (addresses to profile frames), against the fixture of
 * tests/fixtures/symfix.c run as a child process. The truth comes from
 * outside: the child prints its functions' run-time addresses
 * ("symfix_* addrs"), /proc/PID/maps gives a PIE's load address, and
 * /proc/kallsyms the kernel's. Also: stripped copies named through their
 * debug files, a process in another mount namespace, JIT code in anonymous
 * memory named by a perf map, and names left mangled.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile/profile.h"
#include "symbols/procs.h"
#include "symbols/symbolize.h"
#include "symbols/symcache.h"
#include "util.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the directory of the built fixtures"
#endif

#define FIX_PIE	     FIXTURE_DIR "/symfix_pie"
#define FIX_NOPIE    FIXTURE_DIR "/symfix_nopie"
#define FIX(name)    FIXTURE_DIR "/" name
#define NO_ROOT	     "/nonexistent/flamebpf-debug"
#define MAX_CHILDREN 4
#define JIT_SIZE     0x4000

/* Per test: the chain under test and the children to clean up. */
struct env {
	struct profile *p;
	struct procs *ps;
	struct symbolizer *s;
	struct u_fixture kids[MAX_CHILDREN];
	size_t nkids;
	char tmpdir[64];  /* "" unless the test made one */
	pid_t jit;	  /* a child with anonymous executable memory, or 0 */
	int jit_ctl;	  /* closing it lets the child exit */
	char perfmap[64]; /* the perf map a test wrote, or "" */
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	e->p = profile__new(UNIT_SAMPLES);
	e->ps = procs__new();
	e->s = e->p && e->ps ? symbolizer__new(e->p, e->ps) : NULL;
	*state = e;
	return e->s ? 0 : -1;
}

static void remove_tmpdir(const char *dir)
{
	static const char *const names[] = { "a_symfix", "b_symfix", "c_symfix", "ns_run" };
	char path[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/ns", dir);
	rmdir(path);
	rmdir(dir);
}

/* Lets the JIT child exit and waits for it. */
static void jit_reap(struct env *e)
{
	if (!e->jit)
		return;
	close(e->jit_ctl);
	assert_int_equal(waitpid(e->jit, NULL, 0), e->jit);
	e->jit = 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	for (size_t i = 0; i < e->nkids; i++)
		u_fixture_kill(&e->kids[i]);
	jit_reap(e);
	if (e->perfmap[0])
		unlink(e->perfmap);
	if (e->tmpdir[0])
		remove_tmpdir(e->tmpdir);
	symbolizer__free(e->s);
	procs__free(e->ps);
	profile__free(e->p);
	free(e);
	return 0;
}

/* Runs "PATH addrs" and reads what it prints; it stays alive until reaped. */
static struct u_fixture *spawn(struct env *e, const char *path)
{
	struct u_fixture *c;

	assert_true(e->nkids < MAX_CHILDREN);
	c = &e->kids[e->nkids++];
	u_fixture_spawn(c, path);
	assert_int_equal(c->n, U_SYMFIX_NSYMS);
	return c;
}

static const struct frame *user_frame(struct env *e, pid_t pid, uint64_t ip, bool is_return,
				      uint32_t *id)
{
	uint32_t tmp;
	uint32_t *idp = id ? id : &tmp;

	assert_int_equal(symbolizer__user(e->s, pid, ip, is_return, idp), 0);
	assert_true(*idp < profile__nr_frames(e->p));
	return profile__frame(e->p, *idp);
}

static void expect_frame(const struct frame *f, const char *name, const char *module,
			 enum frame_kind kind, const char *what)
{
	if (strcmp(f->name, name) || strcmp(f->module, module) || f->kind != kind)
		fail_msg("%s: got %s (module '%s', %s), expected %s (module '%s', %s)", what,
			 f->name, f->module, f->kind == FRAME_KERNEL ? "kernel" : "user", name,
			 module, kind == FRAME_KERNEL ? "kernel" : "user");
}

/* The frame at ip: its address as given and its offset into the symbol. */
static void expect_at(struct env *e, uint32_t id, uint64_t ip, uint64_t sym_off)
{
	const struct frame *f = profile__frame(e->p, id);

	if (f->addr != ip || f->sym_off != sym_off)
		fail_msg("%s: at 0x%" PRIx64 "+0x%" PRIx64 ", expected 0x%" PRIx64 "+0x%" PRIx64,
			 f->name, f->addr, f->sym_off, ip, sym_off);
}

static void expect_user(struct env *e, pid_t pid, uint64_t ip, bool is_return, const char *name,
			const char *module)
{
	char what[128];

	snprintf(what, sizeof(what), "pid %d, 0x%" PRIx64 "%s", (int)pid, ip,
		 is_return ? " (return address)" : "");
	expect_frame(user_frame(e, pid, ip, is_return, NULL), name, module, FRAME_USER, what);
}

/* Every printed address, and the byte after it as a return address. */
static void expect_all_names(struct env *e, const struct u_fixture *c, pid_t pid,
			     const char *module)
{
	for (size_t i = 0; i < c->n; i++) {
		const char *want = u_symfix_expected(c->names[i]);

		expect_user(e, pid, c->addrs[i], false, want, module);
		expect_user(e, pid, c->addrs[i] + 1, true, want, module);
	}
}

static void check_names(struct env *e, const char *path, const char *module)
{
	struct u_fixture *c = spawn(e, path);

	assert_int_equal(procs__snapshot(e->ps, c->pid), 0);
	assert_int_equal(procs__count(e->ps), 1);
	expect_all_names(e, c, c->pid, module);
	u_fixture_reap(c);
}

static void test_pie_names(void **state)
{
	check_names(*state, FIX_PIE, "symfix_pie");
}

static void test_nopie_names(void **state)
{
	check_names(*state, FIX_NOPIE, "symfix_nopie");
}

/* A return address right after a call that ends a function points at the
 * first byte of the next one: it belongs to the caller. At -O1 the
 * fixture's functions are packed: fixture_alpha ends where fixture_beta
 * starts, fixture_static where fixture_gamma starts. */
static void test_return_address(void **state)
{
	struct env *e = *state;
	struct u_fixture *c = spawn(e, FIX_PIE);
	uint64_t alpha = u_fixture_addr(c, "fixture_alpha"),
		 beta = u_fixture_addr(c, "fixture_beta");
	uint64_t gamma = u_fixture_addr(c, "fixture_gamma");
	uint32_t id_ret, id_alpha;

	assert_int_equal(procs__snapshot(e->ps, c->pid), 0);
	expect_user(e, c->pid, beta - 1, false, "fixture_alpha", "symfix_pie");
	expect_user(e, c->pid, beta, false, "fixture_beta", "symfix_pie");
	expect_user(e, c->pid, beta, true, "fixture_alpha", "symfix_pie");
	expect_user(e, c->pid, beta + 1, true, "fixture_beta", "symfix_pie");
	expect_user(e, c->pid, gamma - 1, false, "fixture_static", "symfix_pie");
	expect_user(e, c->pid, gamma, true, "fixture_static", "symfix_pie");
	expect_user(e, c->pid, gamma, false, "fixture_gamma", "symfix_pie");
	/* the caller's name, at the return address itself */
	user_frame(e, c->pid, beta, true, &id_ret);
	user_frame(e, c->pid, alpha, false, &id_alpha);
	assert_string_equal(profile__frame(e->p, id_ret)->name,
			    profile__frame(e->p, id_alpha)->name);
	expect_at(e, id_ret, beta, beta - alpha);
	expect_at(e, id_alpha, alpha, 0);
	u_fixture_reap(c);
}

/* A process that exits before the end of a capture keeps its names: the
 * snapshot taken while it ran is enough. One never snapshotted is not. */
static void test_exited_process(void **state)
{
	struct env *e = *state;
	struct u_fixture *c = spawn(e, FIX_PIE), *other = spawn(e, FIX_PIE);
	pid_t pid = c->pid, other_pid = other->pid;
	struct u_fixture saved = *c;

	assert_int_equal(procs__snapshot(e->ps, pid), 0);
	u_fixture_reap(c);
	u_fixture_reap(other);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(procs__snapshot(e->ps, pid), -ESRCH);
	expect_all_names(e, &saved, pid, "symfix_pie");
	/* the snapshot does not invent mappings */
	expect_user(e, pid, 0x10, false, "[unknown]", "");
	/* the control: gone, no snapshot, nothing to read any more */
	expect_user(e, other_pid, u_fixture_addr(&saved, "fixture_alpha"), false, "[unknown]", "");
	assert_int_equal(procs__count(e->ps), 1);
}

static void test_unmapped_address(void **state)
{
	struct env *e = *state;
	struct u_fixture *c = spawn(e, FIX_NOPIE), *fresh = spawn(e, FIX_NOPIE);
	uint32_t id;

	assert_int_equal(procs__snapshot(e->ps, c->pid), 0);
	expect_user(e, c->pid, 0, false, "[unknown]", "");
	expect_user(e, c->pid, 0x10, false, "[unknown]", "");
	expect_user(e, c->pid, 0x11, true, "[unknown]", "");
	expect_user(e, c->pid, 1ULL << 46, false, "[unknown]", "");
	user_frame(e, c->pid, 0x10, false, &id);
	assert_int_equal(profile__frame(e->p, id)->kind, FRAME_USER);
	/* a live process without a snapshot is looked at when first needed */
	expect_user(e, fresh->pid, u_fixture_addr(fresh, "fixture_beta"), false, "fixture_beta",
		    "symfix_nopie");
	expect_user(e, fresh->pid, 0x10, false, "[unknown]", "");
	u_fixture_reap(c);
	u_fixture_reap(fresh);
}

/* The load address of a PIE: where its first segment (file offset 0, link
 * address 0) is mapped, from /proc/PID/maps itself. SUFFIX is "/NAME". */
static uint64_t load_base(pid_t pid, const char *suffix)
{
	char maps[64], line[4096], file[4096];
	uint64_t start, end, off, base = UINT64_MAX;
	size_t slen = strlen(suffix);
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*u %4095s", &start,
			   &end, &off, file) != 4)
			continue;
		size_t flen = strlen(file);

		if (off == 0 && flen >= slen && strcmp(file + flen - slen, suffix) == 0 &&
		    start < base)
			base = start;
	}
	fclose(f);
	if (base == UINT64_MAX)
		fail_msg("no mapping of '*%s' at offset 0 in %s", suffix, maps);
	return base;
}

/* fx_halfsized_local covers 3 bytes of fixture_halfsized; the rest, up to
 * fixture_nosize, is alignment padding that no symbol covers: such an
 * address is BINARY+0xLINK_ADDRESS. */
static void check_no_symbol(struct env *e, const char *path, const char *module, bool pie)
{
	struct u_fixture *c = spawn(e, path);
	uint64_t half = u_fixture_addr(c, "fixture_halfsized");
	uint64_t base = pie ? load_base(c->pid, strrchr(path, '/')) : 0;
	char want[128];

	assert_true(u_fixture_addr(c, "fixture_nosize") - half >= 8);
	assert_int_equal(procs__snapshot(e->ps, c->pid), 0);
	expect_user(e, c->pid, half + 2, false, "fixture_halfsized", module);
	snprintf(want, sizeof(want), "%s+0x%" PRIx64, module, half + 3 - base);
	expect_user(e, c->pid, half + 3, false, want, module);
	/* a return address names the address itself, not the byte before */
	snprintf(want, sizeof(want), "%s+0x%" PRIx64, module, half + 5 - base);
	expect_user(e, c->pid, half + 5, true, want, module);
	u_fixture_reap(c);
}

static void test_no_symbol_pie(void **state)
{
	check_no_symbol(*state, FIX_PIE, "symfix_pie", true);
}

static void test_no_symbol_nopie(void **state)
{
	check_no_symbol(*state, FIX_NOPIE, "symfix_nopie", false);
}

/* Each frame is made once: the same address gives the same id, and so does
 * another address in the same function; other functions get other ids. */
static void test_same_address_same_id(void **state)
{
	struct env *e = *state;
	struct u_fixture *c = spawn(e, FIX_PIE);
	uint64_t alpha = u_fixture_addr(c, "fixture_alpha"),
		 beta = u_fixture_addr(c, "fixture_beta");
	uint32_t a1, a2, a3, b1;
	size_t nframes;

	assert_int_equal(procs__snapshot(e->ps, c->pid), 0);
	user_frame(e, c->pid, alpha, false, &a1);
	nframes = profile__nr_frames(e->p);
	user_frame(e, c->pid, alpha, false, &a2);
	assert_int_equal(a1, a2);
	assert_int_equal(profile__nr_frames(e->p), nframes);
	/* each address is a frame of its own, under the same name */
	user_frame(e, c->pid, alpha + 2, true, &a3);
	assert_int_not_equal(a1, a3);
	assert_string_equal(profile__frame(e->p, a1)->name, profile__frame(e->p, a3)->name);
	expect_at(e, a3, alpha + 2, 2);
	user_frame(e, c->pid, beta, false, &b1);
	assert_int_not_equal(a1, b1);
	assert_int_equal(profile__nr_frames(e->p), nframes + 2);
	u_fixture_reap(c);
}

/* Two processes of one binary: one symbol table for both. */
static void test_shared_binary(void **state)
{
	struct env *e = *state;
	struct u_fixture *c1 = spawn(e, FIX_PIE), *c2 = spawn(e, FIX_PIE);
	uint64_t a1 = u_fixture_addr(c1, "fixture_alpha"), a2 = u_fixture_addr(c2, "fixture_alpha");
	const struct map_entry *m1, *m2;
	struct symcache *cache = symcache__new(NULL);
	struct binary *b1, *b2;
	uint32_t id1, id2;

	assert_non_null(cache);
	assert_int_equal(procs__snapshot(e->ps, c1->pid), 0);
	assert_int_equal(procs__snapshot(e->ps, c2->pid), 0);
	assert_int_equal(procs__count(e->ps), 2);
	m1 = procs__find(e->ps, c1->pid, a1);
	m2 = procs__find(e->ps, c2->pid, a2);
	assert_non_null(m1);
	assert_non_null(m2);
	b1 = symcache__findnew(cache, m1, c1->pid, 0);
	b2 = symcache__findnew(cache, m2, c2->pid, 0);
	assert_non_null(b1);
	assert_ptr_equal(b1, b2);
	assert_non_null(b1->syms);
	assert_string_equal(b1->name, "symfix_pie");
	symcache__free(cache);
	expect_frame(user_frame(e, c1->pid, a1, false, &id1), "fixture_alpha", "symfix_pie",
		     FRAME_USER, "first process");
	expect_frame(user_frame(e, c2->pid, a2, false, &id2), "fixture_alpha", "symfix_pie",
		     FRAME_USER, "second process");
	assert_ptr_equal(profile__frame(e->p, id1)->build_id, profile__frame(e->p, id2)->build_id);
	assert_true(strlen(profile__frame(e->p, id1)->build_id) == 40);
	assert_ptr_equal(profile__frame(e->p, id1)->dso, profile__frame(e->p, id2)->dso);
	u_fixture_reap(c1);
	u_fixture_reap(c2);
}

/* A copy of a binary (the same build-id at another inode: another
 * container's file) is another binary, with its own name, whose symbol
 * table is the first one's, not read again. */
static void expect_table_shared(struct env *e, const struct u_fixture *ca,
				const struct u_fixture *cc)
{
	struct symcache *cache = symcache__new(NULL);
	const struct map_entry *ma =
		procs__find(e->ps, ca->pid, u_fixture_addr(ca, "fixture_gamma"));
	const struct map_entry *mc =
		procs__find(e->ps, cc->pid, u_fixture_addr(cc, "fixture_gamma"));
	struct binary *ba, *bc;

	assert_non_null(cache);
	assert_non_null(ma);
	assert_non_null(mc);
	ba = symcache__findnew(cache, ma, ca->pid, 0);
	bc = symcache__findnew(cache, mc, cc->pid, 0);
	assert_non_null(ba);
	assert_non_null(bc);
	assert_ptr_not_equal(ba, bc);
	assert_non_null(ba->syms);
	assert_ptr_equal(ba->syms, bc->syms);
	assert_false(ba->borrowed);
	assert_true(bc->borrowed);
	assert_string_equal(ba->name, "a_symfix");
	assert_string_equal(bc->name, "c_symfix");
	assert_string_equal(ba->build_id, bc->build_id);
	symcache__free(cache);
}

/* Sharing is by file (device and inode), not by path or by name: a hard
 * link is the same binary, so its process's frames are the very frames of
 * the first path's process (named after the path read first); a copy is
 * another binary, with its own name (and the first one's symbol table). */
static void test_shared_by_inode(void **state)
{
	struct env *e = *state;
	char a[96], b[96], c[96];
	struct u_fixture *ca, *cb, *cc;
	uint32_t ida, idb, idc;

	snprintf(e->tmpdir, sizeof(e->tmpdir), "/tmp/test_symbolize.XXXXXX");
	assert_non_null(mkdtemp(e->tmpdir));
	snprintf(a, sizeof(a), "%s/a_symfix", e->tmpdir);
	snprintf(b, sizeof(b), "%s/b_symfix", e->tmpdir);
	snprintf(c, sizeof(c), "%s/c_symfix", e->tmpdir);
	u_copy_file(FIX_PIE, a);
	assert_int_equal(link(a, b), 0);
	u_copy_file(FIX_PIE, c);
	ca = spawn(e, a);
	cb = spawn(e, b);
	cc = spawn(e, c);
	assert_int_equal(procs__snapshot(e->ps, ca->pid), 0);
	assert_int_equal(procs__snapshot(e->ps, cb->pid), 0);
	assert_int_equal(procs__snapshot(e->ps, cc->pid), 0);
	expect_frame(user_frame(e, ca->pid, u_fixture_addr(ca, "fixture_gamma"), false, &ida),
		     "fixture_gamma", "a_symfix", FRAME_USER, "a_symfix");
	expect_frame(user_frame(e, cb->pid, u_fixture_addr(cb, "fixture_gamma"), false, &idb),
		     "fixture_gamma", "a_symfix", FRAME_USER, "b_symfix, a hard link of a_symfix");
	assert_ptr_equal(profile__frame(e->p, ida)->dso, profile__frame(e->p, idb)->dso);
	expect_frame(user_frame(e, cc->pid, u_fixture_addr(cc, "fixture_gamma"), false, &idc),
		     "fixture_gamma", "c_symfix", FRAME_USER, "c_symfix, a copy of a_symfix");
	assert_int_not_equal(ida, idc);
	expect_table_shared(e, ca, cc);
	u_fixture_reap(ca);
	u_fixture_reap(cb);
	u_fixture_reap(cc);
}

/* path as a process would map its text: found by device and inode. */
static struct map_entry text_of(const char *path)
{
	struct map_entry m = { .start = 0x1000, .end = 0x2000, .path = (char *)path };
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	m.inode = st.st_ino;
	m.dev_major = major(st.st_dev);
	m.dev_minor = minor(st.st_dev);
	memcpy(m.perms, "r-xp", 5);
	return m;
}

/* The binary of path, found in the cache's current age. */
static struct binary *found(struct symcache *c, const struct map_entry *m)
{
	struct binary *b = symcache__findnew(c, m, getpid(), 0);

	assert_non_null(b);
	assert_non_null(b->syms);
	return b;
}

/* Beyond the byte budget the binaries found longest ago are evicted, but a
 * table is kept whole with every binary that borrows it, and its age is the
 * youngest of theirs: an owner found long ago whose copy (the same
 * build-id) ran just now stays, where a binary found in between goes. */
static void test_evict_budget(void **state)
{
	struct env *e = *state;
	struct symcache *c = symcache__new(NULL);
	struct map_entry owner, copy, other;
	struct binary *bo, *bc;
	char path[96];

	assert_non_null(c);
	snprintf(e->tmpdir, sizeof(e->tmpdir), "/tmp/test_symbolize.XXXXXX");
	assert_non_null(mkdtemp(e->tmpdir));
	snprintf(path, sizeof(path), "%s/copy_symfix", e->tmpdir);
	u_copy_file(FIX_PIE, path);
	owner = text_of(FIX_PIE);
	copy = text_of(path);
	other = text_of(FIX_NOPIE);
	bo = found(c, &owner);
	symcache__age(c);
	found(c, &other);
	symcache__age(c);
	bc = found(c, &copy);
	assert_true(bc->borrowed);
	assert_ptr_equal(bc->syms, bo->syms);
	/* all within budget and found lately: nothing goes */
	assert_int_equal(symcache__evict(c, 10, SIZE_MAX), 0);
	/* room for one table: the other binary's goes */
	assert_int_equal(symcache__evict(c, 10, elf_symtab__bytes(bo->syms)), 1);
	assert_ptr_equal(found(c, &copy), bc);
	assert_ptr_equal(found(c, &owner), bo);
	/* room for none: the owner goes with its copy */
	assert_int_equal(symcache__evict(c, 10, 0), 2);
	symcache__free(c);
}

/* The address of NAME (a text symbol) in /proc/kallsyms, 0 when hidden. */
static uint64_t kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	uint64_t addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) == 3 &&
		    (type == 'T' || type == 't') && strcmp(sym, name) == 0 && !strchr(line, '['))
			found = addr;
	}
	fclose(f);
	return found;
}

static void test_kernel_schedule(void **state)
{
	struct env *e = *state;
	uint64_t addr = kallsyms_addr("schedule");
	uint32_t id, id2;
	const struct frame *f;

	if (!addr) {
		print_message("SKIP: /proc/kallsyms shows no address for 'schedule' (not root, "
			      "or kernel.kptr_restrict)\n");
		skip();
	}
	assert_int_equal(symbolizer__kernel(e->s, addr, false, &id), 0);
	expect_frame(profile__frame(e->p, id), "schedule", "[kernel]", FRAME_KERNEL, "schedule");
	assert_int_equal(symbolizer__kernel_err(e->s), 0);
	assert_string_equal(profile__frame(e->p, id)->dso, "[kernel.kallsyms]");
	expect_at(e, id, addr, 0);
	assert_int_equal(symbolizer__kernel(e->s, addr + 1, true, &id2), 0);
	expect_frame(profile__frame(e->p, id2), "schedule", "[kernel]", FRAME_KERNEL, "+1");
	expect_at(e, id2, addr + 1, 1);
	assert_int_equal(symbolizer__kernel(e->s, addr + 4, false, &id2), 0);
	expect_frame(profile__frame(e->p, id2), "schedule", "[kernel]", FRAME_KERNEL, "+4");
	expect_at(e, id2, addr + 4, 4);
	/* the byte before belongs to whatever precedes schedule */
	assert_int_equal(symbolizer__kernel(e->s, addr, true, &id2), 0);
	f = profile__frame(e->p, id2);
	assert_int_equal(f->kind, FRAME_KERNEL);
	if (!strcmp(f->name, "schedule"))
		fail_msg("0x%" PRIx64 " as a return address is still 'schedule'", addr);
}

/* A new symbolizer on the same profile and processes. */
static void reopen(struct env *e, const struct symbolizer_opts *o)
{
	symbolizer__free(e->s);
	e->s = symbolizer__new_opts(e->p, e->ps, o);
	assert_non_null(e->s);
}

/* Stripped copies get their names back from their debug files (each route
 * in detail: test_debuginfo.c). */
static void test_stripped_build_id(void **state)
{
	struct env *e = *state;

	reopen(e, &(struct symbolizer_opts){ .debug_root = FIX("debugroot") });
	check_names(e, FIX("symfix_buildid"), "symfix_buildid");
}

static void test_stripped_debuglink(void **state)
{
	struct env *e = *state;

	reopen(e, &(struct symbolizer_opts){ .debug_root = NO_ROOT });
	check_names(e, FIX("symfix_debuglink"), "symfix_debuglink");
}

static void test_stripped_minidebuginfo(void **state)
{
	struct env *e = *state;

	reopen(e, &(struct symbolizer_opts){ .debug_root = NO_ROOT });
	check_names(e, FIX("symfix_mini"), "symfix_mini");
}

/* A debug file that is not the one linked (its CRC differs) names nothing. */
static void test_stripped_bad_crc(void **state)
{
	struct env *e = *state;
	struct u_fixture *c;
	uint32_t id;

	reopen(e, &(struct symbolizer_opts){ .debug_root = NO_ROOT });
	c = spawn(e, FIX("symfix_badcrc"));
	assert_int_equal(procs__snapshot(e->ps, c->pid), 0);
	user_frame(e, c->pid, u_fixture_addr(c, "fixture_alpha"), false, &id);
	if (strncmp(profile__frame(e->p, id)->name, "symfix_badcrc+0x", 16))
		fail_msg("named '%s' from a mismatched debug file", profile__frame(e->p, id)->name);
	u_fixture_reap(c);
}

/* A process in its own mount namespace runs a binary from a tmpfs that only
 * it sees, its debuglink file beside it: both are reached through
 * /proc/PID/root. */
static void test_other_mount_namespace(void **state)
{
	struct env *e = *state;
	char script[128], ns[128], text[1024];
	struct u_fixture *c;
	int fd;

	if (geteuid() != 0 || access("/usr/bin/unshare", X_OK)) {
		print_message("SKIP: needs root and unshare(1) for a mount namespace\n");
		skip();
	}
	snprintf(e->tmpdir, sizeof(e->tmpdir), "/tmp/test_symbolize.XXXXXX");
	assert_non_null(mkdtemp(e->tmpdir));
	snprintf(ns, sizeof(ns), "%s/ns", e->tmpdir);
	snprintf(script, sizeof(script), "%s/ns_run", e->tmpdir);
	assert_int_equal(mkdir(ns, 0755), 0);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\nexec /usr/bin/unshare --mount --propagation private /bin/sh -c "
		 "'mount -t tmpfs none \"$0\" && cp \"$1\" \"$1.debug\" \"$0\" && "
		 "exec \"$0/symfix_debuglink\" addrs' %s %s\n",
		 ns, FIX("symfix_debuglink"));
	fd = open(script, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
	reopen(e, &(struct symbolizer_opts){ .debug_root = NO_ROOT });
	c = spawn(e, script);
	snprintf(text, sizeof(text), "%s/symfix_debuglink", ns);
	assert_int_equal(access(text, F_OK), -1);
	assert_int_equal(procs__snapshot(e->ps, c->pid), 0);
	expect_all_names(e, c, c->pid, "symfix_debuglink");
	u_fixture_reap(c);
}

/* A child with anonymous executable memory, as a JIT maps it; returns its
 * start. */
static uint64_t spawn_jit(struct env *e)
{
	int up[2], down[2];
	uint64_t addr = 0;
	char c;

	assert_int_equal(pipe2(up, O_CLOEXEC), 0);
	assert_int_equal(pipe2(down, O_CLOEXEC), 0);
	e->jit = fork();
	assert_true(e->jit >= 0);
	if (e->jit == 0) {
		void *p = mmap(NULL, JIT_SIZE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		/* its copy of the parent's end would keep it waiting forever */
		close(down[1]);
		close(up[0]);
		addr = p == MAP_FAILED ? 0 : (uintptr_t)p;
		if (write(up[1], &addr, sizeof(addr)) == sizeof(addr))
			while (read(down[0], &c, 1) > 0)
				;
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	e->jit_ctl = down[1];
	assert_int_equal(read(up[0], &addr, sizeof(addr)), sizeof(addr));
	close(up[0]);
	assert_true(addr != 0);
	return addr;
}

static void write_perfmap(struct env *e, uint64_t addr)
{
	char text[512];
	int fd;

	snprintf(e->perfmap, sizeof(e->perfmap), "/tmp/perf-%d.map", (int)e->jit);
	snprintf(text, sizeof(text),
		 "%" PRIx64 " 40 jit_alpha\n"
		 "%" PRIx64 " 40 _ZN2ns3fooEv\n"
		 "20000 10 LazyCompile:~run /app/x.js:12\n",
		 addr, addr + 0x40);
	fd = open(e->perfmap, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
}

static void expect_jit(struct env *e, uint64_t ip, bool is_return, const char *name,
		       uint64_t sym_off)
{
	char module[32], dso[64];
	const struct frame *f;
	uint32_t id;

	snprintf(module, sizeof(module), "perf-%d.map", (int)e->jit);
	snprintf(dso, sizeof(dso), "/tmp/%s", module);
	f = user_frame(e, e->jit, ip, is_return, &id);
	expect_frame(f, name, module, FRAME_USER, "jit");
	assert_string_equal(f->dso, dso);
	expect_at(e, id, ip, sym_off);
}

static void check_jit_names(struct env *e, uint64_t addr)
{
	expect_jit(e, addr, false, "jit_alpha", 0);
	expect_jit(e, addr + 0x10, false, "jit_alpha", 0x10);
	expect_jit(e, addr + 0x40, true, "jit_alpha", 0x40);
	expect_jit(e, addr + 0x44, false, "ns::foo()", 4);
	/* no mapping at all: still the perf map's */
	expect_jit(e, 0x20004, false, "LazyCompile:~run /app/x.js:12", 4);
	/* mapped, but the JIT named nothing there */
	expect_user(e, e->jit, addr + 0x100, false, "[unknown]", "");
}

/* JIT code named by the map the process wrote; the map is read afresh at
 * symbolization (it may have grown since the snapshot). */
static void test_perfmap_names(void **state)
{
	struct env *e = *state;
	uint64_t addr = spawn_jit(e);

	assert_int_equal(procs__snapshot(e->ps, e->jit), 0);
	write_perfmap(e, addr);
	check_jit_names(e, addr);
	reopen(e, &(struct symbolizer_opts){ .no_demangle = true });
	expect_jit(e, addr + 0x44, false, "_ZN2ns3fooEv", 4);
}

/* A process that exited, its map deleted, keeps the names its snapshot read. */
static void test_perfmap_after_exit(void **state)
{
	struct env *e = *state;
	uint64_t addr = spawn_jit(e);
	pid_t pid = e->jit;

	write_perfmap(e, addr);
	assert_int_equal(procs__snapshot(e->ps, e->jit), 0);
	jit_reap(e);
	assert_int_equal(unlink(e->perfmap), 0);
	e->perfmap[0] = '\0';
	e->jit = pid;
	check_jit_names(e, addr);
	e->jit = 0;
}

/* --no-demangle keeps C++ symbols as the symbol table has them. */
static void test_no_demangle(void **state)
{
	struct env *e = *state;
	struct u_fixture *c = &e->kids[e->nkids++];
	const struct frame *f;
	uint32_t id;

	reopen(e, &(struct symbolizer_opts){ .no_demangle = true });
	u_fixture_spawn(c, FIX("cxxfix_cxx"));
	assert_true(c->n > 0);
	assert_int_equal(procs__snapshot(e->ps, c->pid), 0);
	for (size_t i = 0; i < c->n; i++) {
		f = user_frame(e, c->pid, c->addrs[i], false, &id);
		assert_string_equal(f->name, c->names[i]);
		assert_memory_equal(f->name, "_Z", 2);
	}
	u_fixture_reap(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pie_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nopie_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_return_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exited_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmapped_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_symbol_pie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_symbol_nopie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_address_same_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_binary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_by_inode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_schedule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stripped_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stripped_debuglink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stripped_minidebuginfo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stripped_bad_crc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_mount_namespace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perfmap_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perfmap_after_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_demangle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evict_budget, setup, teardown),
	};

	return cmocka_run_group_tests_name("symbolize", tests, NULL, NULL);
}
