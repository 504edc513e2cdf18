/* Unit tests of src/symbols/proc_maps.c: line parsing, lookup edges, and reading the
 * maps of live processes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/proc_maps.h"

static void parse_ok(const char *line, struct map_entry *e)
{
	assert_int_equal(proc_maps__parse_line(line, e), 0);
	assert_non_null(e->path);
}

static void test_parse_file_mapping(void **state)
{
	struct map_entry e;

	(void)state;
	parse_ok("00400000-00452000 r-xp 0000a000 08:02 173521      /usr/bin/dbus-daemon\n", &e);
	assert_int_equal(e.start, 0x400000);
	assert_int_equal(e.end, 0x452000);
	assert_int_equal(e.offset, 0xa000);
	assert_int_equal(e.dev_major, 8);
	assert_int_equal(e.dev_minor, 2);
	assert_int_equal(e.inode, 173521);
	assert_string_equal(e.perms, "r-xp");
	assert_string_equal(e.path, "/usr/bin/dbus-daemon");
	free(e.path);
}

static void test_parse_full_width(void **state)
{
	struct map_entry e;

	(void)state;
	parse_ok(
		"7ffff7fc3000-ffffffffffffffff r-xs ffffffff00000000 fd:1f 18446744073709551615 /x",
		&e);
	assert_true(e.start == 0x7ffff7fc3000ULL);
	assert_true(e.end == UINT64_MAX);
	assert_true(e.offset == 0xffffffff00000000ULL);
	assert_int_equal(e.dev_major, 0xfd);
	assert_int_equal(e.dev_minor, 0x1f);
	assert_true(e.inode == UINT64_MAX);
	assert_string_equal(e.perms, "r-xs");
	assert_string_equal(e.path, "/x");
	free(e.path);
}

static void test_parse_path_with_spaces(void **state)
{
	struct map_entry e;

	(void)state;
	parse_ok("7f0000000000-7f0000001000 r-xp 00001000 08:01 42   /opt/my app/lib x.so\n", &e);
	assert_string_equal(e.path, "/opt/my app/lib x.so");
	free(e.path);
	parse_ok("7f0000000000-7f0000001000 r-xp 00000000 08:01 42 /tmp/a b (deleted)", &e);
	assert_string_equal(e.path, "/tmp/a b (deleted)");
	free(e.path);
	/* Trailing spaces belong to the name. */
	parse_ok("7f0000000000-7f0000001000 r-xp 00000000 08:01 42 /tmp/t  \n", &e);
	assert_string_equal(e.path, "/tmp/t  ");
	free(e.path);
}

static void test_parse_special_and_anonymous(void **state)
{
	struct map_entry e;

	(void)state;
	parse_ok(
		"7ffd4b7f1000-7ffd4b7f3000 r-xp 00000000 00:00 0                          [vdso]\n",
		&e);
	assert_string_equal(e.path, "[vdso]");
	assert_int_equal(e.inode, 0);
	free(e.path);
	parse_ok("7f12a0000000-7f12a0021000 rw-p 00000000 00:00 0 \n", &e);
	assert_string_equal(e.path, "");
	free(e.path);
	parse_ok("7f12a0000000-7f12a0021000 ---p 00000000 00:00 0", &e);
	assert_string_equal(e.path, "");
	assert_string_equal(e.perms, "---p");
	free(e.path);
}

static void test_parse_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"\n",
		"garbage",
		"00400000-00452000",
		"00400000-00452000 r-xp",
		"00400000-00452000 r-xp 00000000 08:02",
		"00400000 00452000 r-xp 00000000 08:02 1 /x",
		"0x400000-00452000 r-xp 00000000 08:02 1 /x",
		"-0400000-00452000 r-xp 00000000 08:02 1 /x",
		"00452000-00400000 r-xp 00000000 08:02 1 /x",		   /* start > end */
		"00400000-00400000 r-xp 00000000 08:02 1 /x",		   /* empty */
		"100000000000400000-100000000000452000 r-xp 0 08:02 1 /x", /* > 64 bits */
		"00400000-00452000 r-xp 00000000 100000000:02 1 /x",
		"00400000-00452000 rwzp 00000000 08:02 1 /x",
		"00400000-00452000 r-x 00000000 08:02 1 /x",
		"00400000-00452000 r-xpp 00000000 08:02 1 /x",
		"00400000-00452000 r-xp 0000000g 08:02 1 /x",
		"00400000-00452000 r-xp 00000000 0802 1 /x",
		"00400000-00452000 r-xp 00000000 08:02 x /x",
		"00400000-00452000 r-xp 00000000 08:02 -1 /x",
		"00400000-00452000 r-xp 00000000 08:02 1/x",
		"00400000-00452000 r-xp 00000000 08:02 18446744073709551616 /x",
		"00400000-00452000  r-xp 00000000 08:02 1 /x",
		" 00400000-00452000 r-xp 00000000 08:02 1 /x",
	};
	struct map_entry e = { .path = NULL };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (proc_maps__parse_line(bad[i], &e) != -EINVAL)
			fail_msg("accepted malformed line %zu: '%s'", i, bad[i]);
		assert_null(e.path);
	}
}

static const char maps_text[] = "7f0000003000-7f0000004000 r-xp 00000000 08:01 7 /lib/c.so\n"
				"00400000-00401000 r--p 00000000 08:01 9 /bin/prog\n"
				"00401000-00402000 r-xp 00001000 08:01 9 /bin/prog\n"
				"00500000-00600000 rw-p 00000000 00:00 0 \n"
				"\n"
				"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]\n"
				"7f0000001000-7f0000002000 r-xp 00000000 00:00 0 \n"
				"7f0000000000-7f0000001000 r-xp 00000000 08:01 8 /lib/d.so";

static void test_parse_keeps_executable_sorted(void **state)
{
	static const uint64_t starts[] = { 0x401000, 0x7f0000000000, 0x7f0000001000, 0x7f0000003000,
					   0x7ffd00000000 };
	struct proc_maps m;
	size_t i;

	(void)state;
	assert_int_equal(proc_maps__parse(maps_text, strlen(maps_text), &m), 0);
	assert_int_equal(m.n, 5);
	for (i = 0; i < m.n; i++) {
		assert_true(m.v[i].start == starts[i]);
		assert_int_equal(m.v[i].perms[2], 'x');
	}
	assert_string_equal(m.v[1].path, "/lib/d.so");
	assert_string_equal(m.v[2].path, "");
	assert_string_equal(m.v[4].path, "[vdso]");
	proc_maps__free(&m);
	assert_null(m.v);
	assert_int_equal(m.n, 0);
}

/* len bounds the text: what follows it, even without a NUL, is not read. */
static void test_parse_respects_length(void **state)
{
	const char *line = "00401000-00402000 r-xp 00001000 08:01 9 /bin/prog\n";
	size_t len = strlen(line);
	char *buf = malloc(len);
	struct proc_maps m;

	(void)state;
	assert_non_null(buf);
	memcpy(buf, line, len);
	assert_int_equal(proc_maps__parse(buf, len - 1, &m), 0);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.v[0].path, "/bin/prog");
	proc_maps__free(&m);
	assert_int_equal(proc_maps__parse(buf, 30, &m), -EINVAL);
	assert_int_equal(proc_maps__parse(buf, 0, &m), 0);
	assert_int_equal(m.n, 0);
	free(buf);
}

static void test_parse_error_leaves_empty(void **state)
{
	const char *text = "00401000-00402000 r-xp 00001000 08:01 9 /bin/prog\n"
			   "00402000-00403000 r-xp 00002000 08:01 9 /bin/prog\n"
			   "this is not a maps line\n";
	static const char nul[] = "00401000-00402000 r-xp 0 08:01 9 /a\0b\n";
	struct proc_maps m;

	(void)state;
	assert_int_equal(proc_maps__parse(text, strlen(text), &m), -EINVAL);
	assert_null(m.v);
	assert_int_equal(m.n, 0);
	/* A NUL inside the text is malformed too. */
	assert_int_equal(proc_maps__parse(nul, sizeof(nul) - 1, &m), -EINVAL);
}

static void test_find_edges(void **state)
{
	struct proc_maps m;
	const struct map_entry *e;

	(void)state;
	assert_int_equal(proc_maps__parse(maps_text, strlen(maps_text), &m), 0);
	assert_null(proc_maps__find(&m, 0));
	assert_null(proc_maps__find(&m, 0x400fff));
	e = proc_maps__find(&m, 0x401000);
	assert_non_null(e);
	assert_true(e->start == 0x401000);
	assert_ptr_equal(proc_maps__find(&m, 0x401fff), e);
	assert_null(proc_maps__find(&m, 0x402000));
	/* Adjacent mappings: the end of one is the start of the next. */
	e = proc_maps__find(&m, 0x7f0000001000);
	assert_non_null(e);
	assert_true(e->start == 0x7f0000001000);
	assert_true(proc_maps__find(&m, 0x7f0000000fff)->start == 0x7f0000000000);
	assert_null(proc_maps__find(&m, 0x7f0000002000));
	assert_non_null(proc_maps__find(&m, 0x7ffd00001fff));
	assert_null(proc_maps__find(&m, 0x7ffd00002000));
	assert_null(proc_maps__find(&m, UINT64_MAX));
	proc_maps__free(&m);
	assert_null(proc_maps__find(&m, 0x401000));
}

static void test_read_self_finds_own_code(void **state)
{
	uint64_t addr = (uint64_t)(uintptr_t)test_read_self_finds_own_code;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const struct map_entry *e;
	struct proc_maps m;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(proc_maps__read(getpid(), &m), 0);
	assert_true(m.n > 0);
	e = proc_maps__find(&m, addr);
	assert_non_null(e);
	assert_true(e->start <= addr && addr < e->end);
	assert_int_equal(e->perms[2], 'x');
	assert_string_equal(e->path, exe);
	assert_true(e->inode != 0);
	proc_maps__free(&m);
}

/* Enough alternating mappings to make the file several read chunks long. */
static void test_read_large_maps(void **state)
{
	const size_t pages = 6000, psz = (size_t)sysconf(_SC_PAGESIZE);
	char *base = mmap(NULL, pages * psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const struct map_entry *e;
	struct proc_maps m;
	size_t i;

	(void)state;
	assert_true(base != MAP_FAILED);
	if (mprotect(base, psz, PROT_READ | PROT_EXEC) && (errno == EACCES || errno == EPERM)) {
		munmap(base, pages * psz);
		print_message("SKIP: executable anonymous memory is not allowed here\n");
		skip();
	}
	for (i = 0; i < pages; i += 2)
		assert_int_equal(mprotect(base + i * psz, psz, PROT_READ | PROT_EXEC), 0);
	assert_int_equal(proc_maps__read(getpid(), &m), 0);
	assert_true(m.n >= pages / 2);
	for (i = 0; i < pages; i++) {
		e = proc_maps__find(&m, (uint64_t)(uintptr_t)(base + i * psz) + 1);
		if (i % 2) {
			assert_null(e);
			continue;
		}
		assert_non_null(e);
		assert_true(e->start == (uint64_t)(uintptr_t)(base + i * psz));
		assert_true(e->end == e->start + psz);
	}
	proc_maps__free(&m);
	munmap(base, pages * psz);
}

static void test_read_missing_pid(void **state)
{
	struct proc_maps m;
	long pid_max = 0;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &pid_max), 1);
	fclose(f);
	/* Process ids stay below pid_max, so this one never exists. */
	assert_int_equal(proc_maps__read((pid_t)pid_max, &m), -ESRCH);
	assert_null(m.v);
	assert_int_equal(proc_maps__read(0, &m), -EINVAL);
	assert_int_equal(proc_maps__read(-1, &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_file_mapping),
		cmocka_unit_test(test_parse_full_width),
		cmocka_unit_test(test_parse_path_with_spaces),
		cmocka_unit_test(test_parse_special_and_anonymous),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_parse_keeps_executable_sorted),
		cmocka_unit_test(test_parse_respects_length),
		cmocka_unit_test(test_parse_error_leaves_empty),
		cmocka_unit_test(test_find_edges),
		cmocka_unit_test(test_read_self_finds_own_code),
		cmocka_unit_test(test_read_large_maps),
		cmocka_unit_test(test_read_missing_pid),
	};

	return cmocka_run_group_tests_name("proc_maps", tests, NULL, NULL);
}
