/* Unit tests of src/util/name_pattern.c: --continuous's file names, made,
 * checked, and found again for rotation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/name_pattern.h"

static void test_check(void **state)
{
	static const struct {
		const char *pattern;
		const char *said; /* NULL: accepted */
	} cases[] = {
		{ "/var/lib/flamebpf/%Y%m%d-%H%M%S.pb.gz", NULL },
		{ "p-%s.folded", NULL },
		{ "{host}/%F_%T.svg", NULL },
		{ "x-%Y%m%d-%H%M.folded", "no field of seconds" },
		{ "x.folded", "no field of seconds" },
		{ "%Y/x-%S.folded", "not its directory" },
		{ "x-%D-%S.folded", "'%D' is not a field of a file name" },
		{ "x-%S%", "is not a field of a file name" },
	};
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = name_pattern__check(cases[i].pattern, why, sizeof(why));

		if (!cases[i].said && err)
			fail_msg("'%s' refused: %s", cases[i].pattern, why);
		if (cases[i].said && (!err || !strstr(why, cases[i].said)))
			fail_msg("'%s': expected '%s', got %d '%s'", cases[i].pattern,
				 cases[i].said, err, err ? why : "");
	}
}

static char dir[] = "/tmp/test_name_pattern.XXXXXX";

static void touch(const char *name, time_t mtime, size_t size)
{
	struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	fclose(f);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static bool exists(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

/* {host} replaced ('/' made '_'), the time in local time, and a counter
 * before the extension when the name is taken. */
static void test_make(void **state)
{
	struct name_pattern np;
	char pat[256], buf[512], want[512];
	time_t t = 1767225600; /* 2026-01-01 00:00:00 UTC */

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	snprintf(pat, sizeof(pat), "%s/{host}-%%Y%%m%%d-%%H%%M%%S.pb.gz", dir);
	assert_int_equal(name_pattern__init(&np, pat, "a/b%c"), 0);
	assert_int_equal(name_pattern__make(&np, t, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/a_b%%c-20260101-000000.pb.gz", dir);
	assert_string_equal(buf, want);
	touch("a_b%c-20260101-000000.pb.gz", t, 1);
	assert_int_equal(name_pattern__make(&np, t, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s/a_b%%c-20260101-000000-2.pb.gz", dir);
	assert_string_equal(buf, want);
	name_pattern__free(&np);
}

/* The newest N, or SIZE bytes, of the files the pattern names (counters
 * too); nothing else of the directory. */
static void test_rotate(void **state)
{
	const char *mine[] = { "h-20260101-000001.folded", "h-20260101-000002.folded",
			       "h-20260101-000002-2.folded", "h-20260101-000003.folded",
			       "h-20260101-000004.folded" };
	const char *others[] = { "h-20260101-000000.svg", "g-20260101-000000.folded",
				 "h-2026010-000000.folded", ".h-20260101-000000.folded.Xy12ab",
				 "h-20260101-000000.folded.bak" };
	struct name_pattern np;
	struct rotation r;
	char pat[256];

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		touch(mine[i], 1000 + (time_t)i, 100);
		touch(others[i], 10, 100);
	}
	snprintf(pat, sizeof(pat), "%s/{host}-%%Y%%m%%d-%%H%%M%%S.folded", dir);
	assert_int_equal(name_pattern__init(&np, pat, "h"), 0);
	name_pattern__rotate(&np, 4, 0, &r);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.removed, 1);
	assert_false(exists(mine[0]));
	name_pattern__rotate(&np, 0, 250, &r);
	assert_int_equal(r.removed, 2);
	assert_int_equal(r.bytes, 200);
	assert_false(exists(mine[1]) || exists(mine[2]));
	assert_true(exists(mine[3]) && exists(mine[4]));
	/* the newest stays, however large */
	name_pattern__rotate(&np, 0, 1, &r);
	assert_int_equal(r.removed, 1);
	assert_true(exists(mine[4]));
	for (size_t i = 0; i < 5; i++)
		if (!exists(others[i]))
			fail_msg("'%s' removed", others[i]);
	name_pattern__free(&np);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_make),
		cmocka_unit_test(test_rotate),
	};
	int ret;

	if (!mkdtemp(dir))
		return 1;
	ret = cmocka_run_group_tests_name("name_pattern", tests, NULL, NULL);
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	return ret;
}
