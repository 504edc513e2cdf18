// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture/fragments.h"
#include "capture/go_prologue.h"
#include "capture/disasm.h"
#include "capture/ret_sites.h"
#include "capture/stack_walkers.h"
#include "symbols/elf_symtab.h"
#include "symbols/proc_maps.h"

#define LIB FIXTURE_DIR "/libretfix.so"

struct fixture {
	void *handle;
	int fd;
	struct proc_maps maps;
	struct disasm *d;
};

static int setup(void **state)
{
	static struct fixture f;

	f.handle = dlopen(LIB, RTLD_NOW);
	f.fd = open(LIB, O_RDONLY);
	if (!f.handle || f.fd < 0 || proc_maps__read(getpid(), &f.maps) || disasm__new(&f.d))
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	disasm__free(f->d);
	proc_maps__free(&f->maps);
	close(f->fd);
	dlclose(f->handle);
	return 0;
}

/* Finds the function's sites, using its run-time address as its link
 * address (only differences between addresses matter). */
static void sites_of(struct fixture *f, const char *name, uint64_t size, struct ret_sites *rs,
		     uint64_t *file_off)
{
	uint64_t addr = (uintptr_t)dlsym(f->handle, name);
	const struct map_entry *m = proc_maps__find(&f->maps, addr);
	struct code_range body = { addr, size, 0 };

	assert_true(addr && m);
	body.file_off = *file_off = addr - m->start + m->offset;
	memset(rs, 0, sizeof(*rs));
	assert_int_equal(ret_sites__find(f->d, f->fd, &body, NULL, NULL, rs), 0);
}

static void test_two_rets(void **state)
{
	struct ret_sites rs;
	uint64_t off;

	sites_of(*state, "two_rets", 13, &rs, &off);
	assert_int_equal(rs.n, 2);
	assert_true(rs.off[0] == off + 9 && rs.off[1] == off + 12);
	assert_true(rs.leaf && rs.complete);
	ret_sites__free(&rs);
}

static void test_tail_jump(void **state)
{
	struct ret_sites rs;
	uint64_t off;

	sites_of(*state, "tail_jumper", 5, &rs, &off);
	assert_int_equal(rs.n, 1);
	assert_true(rs.off[0] == off && rs.kind[0] == SITE_JMP);
	/* the function it jumps to returns with its caller's return address */
	assert_false(rs.leaf);
	ret_sites__free(&rs);
}

static void test_caller(void **state)
{
	struct ret_sites rs;
	uint64_t off;

	sites_of(*state, "caller_fn", 11, &rs, &off);
	assert_int_equal(rs.n, 1);
	assert_true(rs.off[0] == off + 10);
	assert_false(rs.leaf);
	ret_sites__free(&rs);
}

static void test_indirect_jump(void **state)
{
	struct ret_sites rs;
	uint64_t off;

	sites_of(*state, "switcher", 3, &rs, &off);
	assert_int_equal(rs.n, 2);
	assert_true(rs.off[0] == off && rs.kind[0] == SITE_JMP_REG + 7); /* rdi */
	assert_true(rs.off[1] == off + 2 && rs.kind[1] == SITE_RET);
	assert_false(rs.leaf);
	ret_sites__free(&rs);
	sites_of(*state, "jumps", 14, &rs, &off);
	assert_int_equal(rs.n, 2);
	assert_true(rs.off[0] == off && rs.kind[0] == SITE_JMP);
	assert_true(rs.off[1] == off + 9 && rs.kind[1] == SITE_JMP_REG + 11); /* r11 */
	assert_false(rs.leaf);
	ret_sites__free(&rs);
}

/* A conditional jump elsewhere is a tail call when taken: no leaf. */
static void test_conditional_exit(void **state)
{
	struct ret_sites rs;
	uint64_t off;

	sites_of(*state, "cond_exit", 5, &rs, &off);
	assert_int_equal(rs.n, 2);
	assert_true(rs.off[0] == off + 2 && rs.kind[0] == SITE_JCC + 5); /* jne */
	assert_true(rs.off[1] == off + 4 && rs.kind[1] == SITE_RET);
	assert_false(rs.leaf);
	assert_true(rs.complete);
	ret_sites__free(&rs);
}

static void test_leaves(void **state)
{
	struct ret_sites rs;
	uint64_t off;

	sites_of(*state, "looper", 9, &rs, &off);
	assert_true(rs.leaf && rs.complete);
	assert_int_equal(rs.n, 1);
	assert_true(rs.off[0] == off + 8);
	ret_sites__free(&rs);
	sites_of(*state, "sys_leaf", 8, &rs, &off);
	assert_true(rs.leaf && rs.complete);
	ret_sites__free(&rs);
	/* ud2 raises SIGILL: a handler may throw or longjmp */
	sites_of(*state, "trapper", 7, &rs, &off);
	assert_false(rs.leaf);
	ret_sites__free(&rs);
}

struct frags {
	struct elf_symtab *t;
	const char *sym;
	int calls;
};

/* A fragment_fn as the tracer's: by the name of the function at vaddr. */
static bool find_frag(void *arg, uint64_t vaddr, struct code_range *out)
{
	struct frags *fr = arg;
	struct elf_func ef;

	fr->calls++;
	if (elf_symtab__func_at(fr->t, vaddr, &ef) || !fragment__of(ef.name, fr->sym))
		return false;
	*out = (struct code_range){ ef.vaddr, ef.size, 0 };
	return !elf_symtab__file_offset(fr->t, ef.vaddr, &out->file_off);
}

static void func_named(struct elf_symtab *t, const char *name, struct code_range *r)
{
	struct elf_func ef;

	for (size_t i = 0; !elf_symtab__func(t, i, &ef); i++) {
		if (strcmp(ef.name, name))
			continue;
		*r = (struct code_range){ ef.vaddr, ef.size, 0 };
		assert_int_equal(elf_symtab__file_offset(t, ef.vaddr, &r->file_off), 0);
		return;
	}
	fail_msg("no function %s in the fixture", name);
}

/* hot_fn jumps to its .cold part, which returns or jumps back: with the
 * part followed, both rets are its returns and it is still a leaf. */
static void test_cold_fragment(void **state)
{
	struct fixture *f = *state;
	struct frags fr = { .sym = "hot_fn" };
	struct code_range hot, cold;
	struct ret_sites rs = {};

	assert_int_equal(elf_symtab__load(f->fd, &fr.t), 0);
	func_named(fr.t, "hot_fn", &hot);
	func_named(fr.t, "hot_fn.cold", &cold);
	assert_int_equal(ret_sites__find(f->d, f->fd, &hot, find_frag, &fr, &rs), 0);
	assert_true(rs.leaf && rs.complete);
	assert_int_equal(rs.nfrags, 1);
	assert_int_equal(rs.n, 2);
	assert_true(rs.off[0] == hot.file_off + 4 && rs.off[1] == cold.file_off + 10);
	ret_sites__free(&rs);
	/* not followed: the jump leaves the function, like a tail call */
	assert_int_equal(ret_sites__find(f->d, f->fd, &hot, NULL, NULL, &rs), 0);
	assert_false(rs.leaf);
	assert_int_equal(rs.n, 2);
	assert_true(rs.kind[0] == SITE_JCC + 5 && rs.kind[1] == SITE_RET);
	ret_sites__free(&rs);
	elf_symtab__free(fr.t);
}

static void test_fragment_names(void **state)
{
	(void)state;
	assert_true(fragment__is("_ZN2NS5innerEi.cold"));
	assert_true(fragment__is("f.cold.12"));
	assert_true(fragment__is("f.part.0.cold"));
	assert_false(fragment__is(".cold"));
	assert_false(fragment__is("f.colder"));
	assert_false(fragment__is("f.cold."));
	assert_false(fragment__is("f.cold.1a"));
	assert_false(fragment__is("f.part.0"));
	assert_true(fragment__of("f.cold", "f"));
	assert_true(fragment__of("f.cold.3", "f"));
	assert_false(fragment__of("g.cold", "f"));
	assert_false(fragment__of("ff.cold", "f"));
	assert_false(fragment__of("f.cold", ""));
}

static void test_bad_sizes(void **state)
{
	struct fixture *f = *state;
	struct ret_sites rs = {};
	struct code_range none = { 0, 0, 0 }, huge = { 0, 1 << 21, 0 }, far = { 0, 16, 1ULL << 40 };

	assert_int_equal(ret_sites__find(f->d, f->fd, &none, NULL, NULL, &rs), -EFBIG);
	assert_int_equal(ret_sites__find(f->d, f->fd, &huge, NULL, NULL, &rs), -EFBIG);
	/* past the end of the file */
	assert_int_equal(ret_sites__find(f->d, f->fd, &far, NULL, NULL, &rs), -EIO);
	assert_int_equal(rs.n, 0);
}

static enum entry_kind entry_of(struct fixture *f, const char *name, uint64_t *delta)
{
	uint64_t addr = (uintptr_t)dlsym(f->handle, name), site;
	const struct map_entry *m = proc_maps__find(&f->maps, addr);
	uint64_t off;
	enum entry_kind k;

	assert_true(addr && m);
	off = addr - m->start + m->offset;
	k = disasm__entry(f->d, f->fd, off, &site);
	*delta = site - off;
	return k;
}

static void test_entry_kinds(void **state)
{
	struct fixture *f = *state;
	uint64_t delta;

	assert_int_equal(entry_of(f, "e_endbr_push", &delta), ENTRY_EMULATED);
	assert_int_equal(delta, 4);
	assert_int_equal(entry_of(f, "e_endbr_mov", &delta), ENTRY_STEPPED);
	assert_int_equal(delta, 0);
	assert_int_equal(entry_of(f, "e_lock", &delta), ENTRY_REFUSED);
	assert_int_equal(entry_of(f, "e_mov", &delta), ENTRY_STEPPED);
	assert_int_equal(entry_of(f, "e_nop5", &delta), ENTRY_EMULATED);
	assert_int_equal(delta, 0);
	assert_int_equal(entry_of(f, "e_jmp", &delta), ENTRY_EMULATED);
	assert_int_equal(entry_of(f, "e_xchg", &delta), ENTRY_REFUSED);
	assert_int_equal(entry_of(f, "caller_fn", &delta), ENTRY_EMULATED);
	assert_int_equal(entry_of(f, "two_rets", &delta), ENTRY_STEPPED);
}

/* How far past the start of the function NAME go_prologue__end puts the
 * entry. */
static uint64_t go_entry_of(struct fixture *f, const char *name)
{
	uint64_t addr = (uintptr_t)dlsym(f->handle, name);
	const struct map_entry *m = proc_maps__find(&f->maps, addr);
	uint64_t off;

	assert_true(addr && m);
	off = addr - m->start + m->offset;
	return go_prologue__end(f->d, f->fd, off, 64, NULL) - off;
}

static uint64_t distance(struct fixture *f, const char *from, const char *to)
{
	return (uintptr_t)dlsym(f->handle, to) - (uintptr_t)dlsym(f->handle, from);
}

static void test_go_prologue(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(go_entry_of(f, "go_small"), distance(f, "go_small", "go_small_body"));
	assert_int_equal(go_entry_of(f, "go_big"), distance(f, "go_big", "go_big_body"));
	assert_int_equal(go_entry_of(f, "go_huge"), distance(f, "go_huge", "go_huge_body"));
	assert_int_equal(go_entry_of(f, "go_not"), 0);
	assert_int_equal(go_entry_of(f, "go_moved"), 0);
	assert_int_equal(go_entry_of(f, "e_mov"), 0);
}

/* Go's register ABI has the goroutine in r14, which the check reads. */
static void test_go_prologue_g(void **state)
{
	struct fixture *f = *state;
	uint64_t addr = (uintptr_t)dlsym(f->handle, "go_big");
	const struct map_entry *m = proc_maps__find(&f->maps, addr);
	bool g_r14 = false;

	assert_true(addr && m);
	go_prologue__end(f->d, f->fd, addr - m->start + m->offset, 64, &g_r14);
	assert_true(g_r14);
	addr = (uintptr_t)dlsym(f->handle, "go_not");
	go_prologue__end(f->d, f->fd, addr - m->start + m->offset, 64, &g_r14);
	assert_false(g_r14);
}

static unsigned int walkers_of(const char *path)
{
	int fd = open(path, O_RDONLY);
	unsigned int w;

	if (fd < 0)
		skip();
	w = stack_walkers__of_file(fd);
	close(fd);
	return w;
}

static void test_walkers(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(stack_walkers__of_file(f->fd), 0);
	assert_int_equal(stack_walkers__of_file(-1), 0);
	assert_int_equal(walkers_of(FIXTURE_DIR "/retfix_go"), WALKER_GO);
	assert_int_equal(walkers_of(FIXTURE_DIR "/ctxfix_pie"), WALKER_UNWINDER);
	/* libc defines swapcontext() but calls no unwinder */
	assert_int_equal(walkers_of("/lib/x86_64-linux-gnu/libc.so.6"), 0);
	assert_int_equal(walkers_of("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"), WALKER_UNWINDER);
	assert_int_equal(walkers_of("/lib/x86_64-linux-gnu/libgcc_s.so.1"), WALKER_UNWINDER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_rets),	 cmocka_unit_test(test_tail_jump),
		cmocka_unit_test(test_caller),		 cmocka_unit_test(test_indirect_jump),
		cmocka_unit_test(test_conditional_exit), cmocka_unit_test(test_leaves),
		cmocka_unit_test(test_cold_fragment),	 cmocka_unit_test(test_fragment_names),
		cmocka_unit_test(test_bad_sizes),	 cmocka_unit_test(test_walkers),
		cmocka_unit_test(test_entry_kinds),	 cmocka_unit_test(test_go_prologue),
		cmocka_unit_test(test_go_prologue_g),
	};

	return cmocka_run_group_tests_name("ret_sites", tests, setup, teardown);
}
