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

#include "proc_maps.h"
#include "ret_sites.h"

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

	assert_true(addr && m);
	*file_off = addr - m->start + m->offset;
	memset(rs, 0, sizeof(*rs));
	assert_int_equal(ret_sites__find(f->d, f->fd, *file_off, addr, size, rs), 0);
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
	assert_true(rs.off[0] == off);
	assert_true(rs.leaf);
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
	assert_int_equal(rs.n, 1);
	assert_true(rs.off[0] == off + 2);
	assert_false(rs.leaf);
	ret_sites__free(&rs);
}

static void test_bad_sizes(void **state)
{
	struct fixture *f = *state;
	struct ret_sites rs = {};

	assert_int_equal(ret_sites__find(f->d, f->fd, 0, 0, 0, &rs), -EFBIG);
	assert_int_equal(ret_sites__find(f->d, f->fd, 0, 0, 1 << 21, &rs), -EFBIG);
	/* past the end of the file */
	assert_int_equal(ret_sites__find(f->d, f->fd, 1ULL << 40, 0, 16, &rs), -EIO);
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
	assert_int_equal(entry_of(f, "caller_fn", &delta), ENTRY_EMULATED);
	assert_int_equal(entry_of(f, "two_rets", &delta), ENTRY_STEPPED);
}

static void test_unwinds(void **state)
{
	struct fixture *f = *state;
	int fd = open("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", O_RDONLY);

	assert_false(ret_sites__unwinds(f->fd));
	if (fd >= 0) {
		assert_true(ret_sites__unwinds(fd));
		close(fd);
	}
	assert_false(ret_sites__unwinds(-1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_rets),    cmocka_unit_test(test_tail_jump),
		cmocka_unit_test(test_caller),	    cmocka_unit_test(test_indirect_jump),
		cmocka_unit_test(test_bad_sizes),   cmocka_unit_test(test_unwinds),
		cmocka_unit_test(test_entry_kinds),
	};

	return cmocka_run_group_tests_name("ret_sites", tests, setup, teardown);
}
