/* Unit tests of src/symbols/perfmap.c: the perf map parser and lookup, then reading a
 * map file the way flamebpf must, as root, from a file another user wrote:
 * hostile lines, overlapping regions, links, FIFOs, foreign owners and
 * files too large.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbols/perfmap.h"
#include "symbols/proc_start.h"
#include "util.h"

static struct perfmap *parse(const char *text)
{
	struct perfmap *m = NULL;

	assert_int_equal(perfmap__parse(text, strlen(text), &m), 0);
	assert_non_null(m);
	return m;
}

/* addr resolves to name at offset off, or to nothing when name is NULL. */
static void expect(const struct perfmap *m, uint64_t addr, const char *name, uint64_t off)
{
	uint64_t got_off = 12345;
	const char *got = perfmap__lookup(m, addr, &got_off);

	if (!name && got)
		fail_msg("0x%" PRIx64 ": got '%s', expected nothing", addr, got);
	if (name && (!got || strcmp(got, name) || got_off != off))
		fail_msg("0x%" PRIx64 ": got '%s'+0x%" PRIx64 ", expected '%s'+0x%" PRIx64, addr,
			 got ? got : "(none)", got_off, name, off);
}

/* perf's format: hex without 0x, the name the rest of the line. */
static void test_basic(void **state)
{
	struct perfmap *m = parse("7f0000001000 40 LazyCompile:~main /app/x.js:1\n"
				  "7f0000001040 10 Interpreter\n"
				  "0x7f0000002000 0x20 py::f:/tmp/a.py\n"
				  "7F0000003000 8 upper\r\n"
				  "7f0000004000\t8\tjava.lang.String::hashCode  \n"
				  "7f0000005000 8 last without newline");

	(void)state;
	assert_int_equal(perfmap__count(m), 6);
	expect(m, 0x7f0000001000, "LazyCompile:~main /app/x.js:1", 0);
	expect(m, 0x7f000000103f, "LazyCompile:~main /app/x.js:1", 0x3f);
	expect(m, 0x7f0000001040, "Interpreter", 0);
	expect(m, 0x7f000000104f, "Interpreter", 0xf);
	expect(m, 0x7f0000001050, NULL, 0);
	expect(m, 0x7f0000000fff, NULL, 0);
	expect(m, 0x7f0000002010, "py::f:/tmp/a.py", 0x10);
	expect(m, 0x7f0000003004, "upper", 4);
	expect(m, 0x7f0000004000, "java.lang.String::hashCode", 0);
	expect(m, 0x7f0000005007, "last without newline", 7);
	expect(m, 0, NULL, 0);
	expect(m, UINT64_MAX, NULL, 0);
	perfmap__free(m);
}

static void test_empty(void **state)
{
	struct perfmap *m = parse("");

	(void)state;
	assert_int_equal(perfmap__count(m), 0);
	expect(m, 0x1000, NULL, 0);
	perfmap__free(m);
	m = parse("\n\n\n");
	assert_int_equal(perfmap__count(m), 0);
	perfmap__free(m);
}

/* Every malformed line is skipped, and only it. */
static void test_bad_lines(void **state)
{
	struct perfmap *m = parse("zz 10 bad_start\n"
				  "1000 zz bad_size\n"
				  "1000 10\n"
				  "1000 10   \n"
				  "1000\n"
				  "1000 0 empty_region\n"
				  "0x 10 no_digits\n"
				  "12g4 10 junk_in_number\n"
				  " 1000 10 leading_space\n"
				  "-1000 10 negative\n"
				  "11112222333344445 10 seventeen_digits\n"
				  "1000 11112222333344445 seventeen_digits\n"
				  "1000 10 good\n"
				  "\x01\x02\xff\n"
				  "2000 10 also good\n");

	(void)state;
	assert_int_equal(perfmap__count(m), 2);
	expect(m, 0x1008, "good", 8);
	expect(m, 0x2000, "also good", 0);
	perfmap__free(m);
}

/* A region running past the end of the address space ends there (ends
 * are exclusive: the very last byte has no name). */
static void test_overflow(void **state)
{
	struct perfmap *m = parse("ffffffffffff0000 ffffffffffffffff top\n"
				  "ffffffffffffffff 1 last_byte\n"
				  "fffffffffff00000 10 low\n");

	(void)state;
	expect(m, 0xffffffffffff0000, "top", 0);
	expect(m, 0xfffffffffffffffe, "top", 0xfffe);
	expect(m, 0xffffffffffffffff, NULL, 0);
	expect(m, 0xfffffffffff00008, "low", 8);
	perfmap__free(m);
}

/* Later lines win where they overlap earlier ones (a JIT reuses memory);
 * the earlier region still names what is left of it, on both sides. */
static void test_overlap(void **state)
{
	struct perfmap *m = parse("1000 100 old\n"
				  "1040 20 newer\n"
				  "1050 40 newest\n"
				  "1000 10 replaced_start\n"
				  "3000 10 a\n"
				  "3000 10 b\n"
				  "5000 100 big_later\n"
				  "4f00 400 big_earlier_but_later_line\n");

	(void)state;
	expect(m, 0x1000, "replaced_start", 0);
	expect(m, 0x100f, "replaced_start", 0xf);
	expect(m, 0x1010, "old", 0x10);
	expect(m, 0x103f, "old", 0x3f);
	expect(m, 0x1040, "newer", 0);
	expect(m, 0x104f, "newer", 0xf);
	expect(m, 0x1050, "newest", 0);
	expect(m, 0x108f, "newest", 0x3f);
	expect(m, 0x1090, "old", 0x90);
	expect(m, 0x10ff, "old", 0xff);
	expect(m, 0x1100, NULL, 0);
	expect(m, 0x3005, "b", 5);
	expect(m, 0x5050, "big_earlier_but_later_line", 0x150);
	expect(m, 0x52ff, "big_earlier_but_later_line", 0x3ff);
	perfmap__free(m);
}

/* A name is cut to PERFMAP_MAX_NAME bytes, never inside a UTF-8 sequence;
 * a NUL ends it. */
static void test_long_names(void **state)
{
	size_t len = 3 * PERFMAP_MAX_NAME, i;
	char *text = malloc(len + 64), *p = text;
	struct perfmap *m;
	const char *name;

	(void)state;
	assert_non_null(text);
	p += sprintf(p, "1000 10 ");
	/* "é" (2 bytes) from an odd offset: the cut falls inside one */
	*p++ = 'x';
	for (i = 0; i < len / 2; i++) {
		*p++ = (char)0xc3;
		*p++ = (char)0xa9;
	}
	memcpy(p, "\n2000 10 before\0after\n", 22);
	p += 22;
	m = NULL;
	assert_int_equal(perfmap__parse(text, (size_t)(p - text), &m), 0);
	name = perfmap__lookup(m, 0x1000, NULL);
	assert_non_null(name);
	assert_true(strlen(name) <= PERFMAP_MAX_NAME);
	assert_true(strlen(name) >= PERFMAP_MAX_NAME - 1);
	assert_int_equal((unsigned char)name[strlen(name) - 1], 0xa9);
	expect(m, 0x2000, "before", 0);
	perfmap__free(m);
	free(text);
}

/* At most PERFMAP_MAX_ENTRIES lines are taken. */
static void test_entry_cap(void **state)
{
	size_t n = PERFMAP_MAX_ENTRIES + 1000, i;
	char *text = malloc(n * 16), *p = text;
	struct perfmap *m = NULL;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < n; i++)
		p += sprintf(p, "%zx 1 f\n", i * 2);
	assert_int_equal(perfmap__parse(text, (size_t)(p - text), &m), 0);
	assert_int_equal(perfmap__count(m), PERFMAP_MAX_ENTRIES);
	expect(m, 0, "f", 0);
	expect(m, 1, NULL, 0);
	expect(m, (PERFMAP_MAX_ENTRIES - 1) * 2, "f", 0);
	expect(m, PERFMAP_MAX_ENTRIES * 2, NULL, 0);
	perfmap__free(m);
	free(text);
}

/* A map file in a directory of its own. */
struct dir {
	char path[64];
	char file[96];
};

static void make_dir(struct dir *d)
{
	snprintf(d->path, sizeof(d->path), "/tmp/test_perfmap.XXXXXX");
	assert_non_null(mkdtemp(d->path));
	snprintf(d->file, sizeof(d->file), "%s/perf-1.map", d->path);
}

static void remove_dir(struct dir *d)
{
	char other[128];

	unlink(d->file);
	snprintf(other, sizeof(other), "%s/target", d->path);
	unlink(other);
	rmdir(d->path);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
}

static void test_read(void **state)
{
	struct perfmap *m = NULL;
	struct dir d;

	(void)state;
	make_dir(&d);
	write_file(d.file, "1000 10 jitted\n");
	assert_int_equal(perfmap__read(0, d.file, geteuid(), 0, &m), 0);
	expect(m, 0x1001, "jitted", 1);
	perfmap__free(m);
	remove_dir(&d);
	assert_int_equal(perfmap__read(0, d.file, geteuid(), 0, &m), -ENOENT);
	assert_null(m);
	assert_int_equal(perfmap__read(0, "relative/perf-1.map", geteuid(), 0, &m), -EINVAL);
}

/* A map last written before the process started is an earlier process's
 * (its pid reused): not read. */
static void test_read_stale(void **state)
{
	struct timespec times[2] = { { .tv_nsec = UTIME_OMIT } };
	struct perfmap *m = NULL;
	time_t now = time(NULL), start;
	struct dir d;

	(void)state;
	make_dir(&d);
	write_file(d.file, "1000 10 jitted\n");
	times[1].tv_sec = now - 1000;
	assert_int_equal(utimensat(AT_FDCWD, d.file, times, 0), 0);
	assert_int_equal(perfmap__read(0, d.file, geteuid(), now - 10, &m), -ESTALE);
	assert_null(m);
	assert_int_equal(perfmap__read(0, d.file, geteuid(), now - 2000, &m), 0);
	expect(m, 0x1001, "jitted", 1);
	perfmap__free(m);
	/* this process began after boot and before now */
	assert_int_equal(proc_start__wall(getpid(), &start), 0);
	assert_true(start <= now);
	assert_true(start >= now - 24 * 3600);
	assert_int_equal(proc_start__wall(-1, &start), -ESRCH);
	remove_dir(&d);
}

/* Only a regular file itself: not through a link (to a file the target
 * could not read), not a FIFO (whose open or read would wait). */
static void test_read_not_regular(void **state)
{
	struct perfmap *m = NULL;
	char target[128];
	struct dir d;

	(void)state;
	make_dir(&d);
	snprintf(target, sizeof(target), "%s/target", d.path);
	write_file(target, "1000 10 secret\n");
	assert_int_equal(symlink(target, d.file), 0);
	assert_int_equal(perfmap__read(0, d.file, geteuid(), 0, &m), -ELOOP);
	assert_null(m);
	unlink(d.file);
	assert_int_equal(mkfifo(d.file, 0644), 0);
	assert_int_equal(perfmap__read(0, d.file, geteuid(), 0, &m), -EINVAL);
	unlink(d.file);
	assert_int_equal(mkdir(d.file, 0755), 0);
	assert_int_not_equal(perfmap__read(0, d.file, geteuid(), 0, &m), 0);
	assert_null(m);
	rmdir(d.file);
	remove_dir(&d);
}

/* Root's files and the process owner's only. */
static void test_read_owner(void **state)
{
	struct perfmap *m = NULL;
	struct dir d;

	(void)state;
	if (geteuid() != 0) {
		print_message("SKIP: chown needs root\n");
		skip();
	}
	make_dir(&d);
	write_file(d.file, "1000 10 jitted\n");
	assert_int_equal(chown(d.file, 12345, 12345), 0);
	assert_int_equal(perfmap__read(0, d.file, 12345, 0, &m), 0);
	perfmap__free(m);
	m = NULL;
	assert_int_equal(perfmap__read(0, d.file, 54321, 0, &m), -EPERM);
	assert_null(m);
	assert_int_equal(chown(d.file, 0, 0), 0);
	assert_int_equal(perfmap__read(0, d.file, 54321, 0, &m), 0);
	perfmap__free(m);
	remove_dir(&d);
}

/* A file far above the cap (sparse: no disk used) is read up to the cap,
 * whole lines only. */
static void test_read_huge(void **state)
{
	struct perfmap *m = NULL;
	struct dir d;
	int fd;

	(void)state;
	make_dir(&d);
	write_file(d.file, "1000 10 first\n2000 10 second\n");
	fd = open(d.file, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\n3000 10 cut", 12, PERFMAP_MAX_BYTES - 6), 12);
	assert_int_equal(pwrite(fd, "\n4000 10 beyond\n", 16, 1ULL << 32), 16);
	assert_int_equal(close(fd), 0);
	assert_int_equal(perfmap__read(0, d.file, geteuid(), 0, &m), 0);
	expect(m, 0x1000, "first", 0);
	expect(m, 0x2000, "second", 0);
	expect(m, 0x3000, NULL, 0);
	expect(m, 0x4000, NULL, 0);
	perfmap__free(m);
	remove_dir(&d);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* A JVM's map of a million lines (83 MB; JIT code recycled, so
 * later lines overlap earlier ones) is read in linear-logarithmic time: a
 * quadratic reading would take hours. Prints the time it took. */
static void test_read_million(void **state)
{
	const size_t n = 1000000;
	struct perfmap *m = NULL;
	struct dir d;
	double t0, secs;
	FILE *f;

	(void)state;
	make_dir(&d);
	f = fopen(d.file, "w");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "7f%010zx %zx Lcom/example/service/Handler%zu;::process(Ljava/lang/String;)V\n",
			(i * 0x140) % (n * 0x100), (size_t)0x100 + i % 0x80, i);
	assert_int_equal(fclose(f), 0);
	t0 = now();
	assert_int_equal(perfmap__read(0, d.file, geteuid(), 0, &m), 0);
	secs = now() - t0;
	print_message("1M-line perf map read in %.2f s\n", secs);
	assert_int_equal(perfmap__count(m), n);
	/* the last line written over an address wins */
	expect(m, 0x7f0000000000 + (n - 1) * 0x140 % (n * 0x100),
	       "Lcom/example/service/Handler999999;::process(Ljava/lang/String;)V", 0);
	assert_true(secs < 30);
	perfmap__free(m);
	remove_dir(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_entry_cap),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_read_stale),
		cmocka_unit_test(test_read_not_regular),
		cmocka_unit_test(test_read_owner),
		cmocka_unit_test(test_read_huge),
		cmocka_unit_test(test_read_million),
	};

	return cmocka_run_group_tests_name("perfmap", tests, NULL, NULL);
}
