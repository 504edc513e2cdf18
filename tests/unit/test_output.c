/* Unit tests of src/util/output.c: the output file appears whole on commit, and
 * never partly, in a fresh temporary directory per test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/output.h"

struct dir {
	char path[64];
};

static int setup_dir(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	strcpy(d->path, "/tmp/test_output.XXXXXX");
	if (!mkdtemp(d->path)) {
		free(d);
		return -1;
	}
	*state = d;
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Removes the directory and whatever a test left in it, even after a failure. */
static int teardown_dir(void **state)
{
	struct dir *d = *state;

	nftw(d->path, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(d);
	return 0;
}

static void join(char *out, const struct dir *d, const char *name)
{
	assert_true(snprintf(out, PATH_MAX, "%s/%s", d->path, name) < PATH_MAX);
}

/* The names in the directory, sorted and joined with '|' ("" when empty). */
static void list_dir(const char *path, char *out, size_t size)
{
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);

	assert_true(n >= 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
			if (out[0])
				strncat(out, "|", size - strlen(out) - 1);
			strncat(out, names[i]->d_name, size - strlen(out) - 1);
		}
		free(names[i]);
	}
	free(names);
}

static void expect_dir(const struct dir *d, const char *want)
{
	char got[1024];

	list_dir(d->path, got, sizeof(got));
	if (strcmp(got, want))
		fail_msg("%s holds \"%s\", expected \"%s\"", d->path, got, want);
}

static void expect_file(const char *path, const char *want)
{
	char got[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("cannot open '%s': %s", path, strerror(errno));
	n = fread(got, 1, sizeof(got) - 1, f);
	fclose(f);
	got[n] = '\0';
	assert_int_equal(n, strlen(want));
	assert_string_equal(got, want);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void test_commit(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX];
	struct output o;
	struct stat st;
	mode_t old_mask = umask(022);

	join(path, d, "out.folded");
	assert_int_equal(output__open(&o, path), 0);
	assert_non_null(o.f);
	assert_ptr_not_equal(o.f, stdout);
	assert_string_equal(o.path, path);
	assert_int_equal(fputs("bash;main 3\n", o.f) >= 0, 1);
	assert_int_equal(fprintf(o.f, "bash;run %d\n", 4), 11);
	assert_int_equal(output__commit(&o), 0);
	assert_null(o.path);
	assert_null(o.tmp);
	expect_file(path, "bash;main 3\nbash;run 4\n");
	expect_dir(d, "out.folded");
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	umask(old_mask);
}

/* Until the commit, the work goes to a file without a name (O_TMPFILE:
 * a killed run leaves nothing), or to ".NAME.XXXXXX" beside NAME. */
static void test_temporary_name(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX], got[1024];
	struct output o;

	join(path, d, "prof.txt");
	assert_int_equal(output__open(&o, path), 0);
	assert_int_equal(fputs("x 1\n", o.f) >= 0, 1);
	assert_int_equal(fflush(o.f), 0);
	list_dir(d->path, got, sizeof(got));
	if (o.tmp) {
		assert_int_equal(strlen(got), strlen(".prof.txt.XXXXXX"));
		assert_memory_equal(got, ".prof.txt.", strlen(".prof.txt."));
		assert_string_equal(strrchr(o.tmp, '/') + 1, got);
	} else {
		assert_string_equal(got, "");
	}
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(output__commit(&o), 0);
	expect_dir(d, "prof.txt");
	expect_file(path, "x 1\n");
}

static void test_commit_empty(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX];
	struct output o;

	join(path, d, "empty");
	assert_int_equal(output__open(&o, path), 0);
	assert_int_equal(output__commit(&o), 0);
	expect_file(path, "");
	expect_dir(d, "empty");
}

static void test_abort(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX];
	struct output o;

	join(path, d, "out.folded");
	assert_int_equal(output__open(&o, path), 0);
	assert_int_equal(fputs("partial", o.f) >= 0, 1);
	output__abort(&o);
	assert_null(o.f);
	assert_null(o.path);
	assert_null(o.tmp);
	assert_int_equal(access(path, F_OK), -1);
	expect_dir(d, "");
}

static void test_abort_keeps_old_file(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX];
	struct output o;

	join(path, d, "keep.folded");
	write_file(path, "old 1\n");
	assert_int_equal(output__open(&o, path), 0);
	assert_int_equal(fputs("new 2\n", o.f) >= 0, 1);
	assert_int_equal(fflush(o.f), 0);
	expect_file(path, "old 1\n");
	output__abort(&o);
	expect_file(path, "old 1\n");
	expect_dir(d, "keep.folded");
}

static void test_commit_replaces_old_file(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX];
	struct output o;

	join(path, d, "replace.folded");
	write_file(path, "old content that is longer 1\n");
	assert_int_equal(output__open(&o, path), 0);
	assert_int_equal(fputs("new 2\n", o.f) >= 0, 1);
	assert_int_equal(output__commit(&o), 0);
	expect_file(path, "new 2\n");
	expect_dir(d, "replace.folded");
}

static void test_directory(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX], inside[1024];
	struct output o;

	join(path, d, "sub");
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(output__open(&o, path), -EISDIR);
	assert_null(o.f);
	assert_int_equal(output__open(&o, d->path), -EISDIR);
	assert_null(o.f);
	expect_dir(d, "sub");
	list_dir(path, inside, sizeof(inside));
	assert_string_equal(inside, "");
}

/* A commit that cannot rename still removes the temporary file. */
static void test_commit_failure_cleans_up(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX], inner[PATH_MAX];
	struct output o;

	join(path, d, "late");
	assert_int_equal(output__open(&o, path), 0);
	assert_int_equal(fputs("lost 1\n", o.f) >= 0, 1);
	/* Someone makes the target a directory meanwhile. */
	assert_int_equal(mkdir(path, 0755), 0);
	join(inner, d, "late/file");
	write_file(inner, "keep\n");
	assert_int_equal(output__commit(&o), -EISDIR);
	assert_null(o.f);
	assert_null(o.path);
	assert_null(o.tmp);
	expect_dir(d, "late");
	expect_file(inner, "keep\n");
	unlink(inner);
}

static void test_missing_directory(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX];
	struct output o;

	join(path, d, "nonexistent/out.folded");
	assert_int_equal(output__open(&o, path), -ENOENT);
	assert_null(o.f);
	assert_null(o.path);
	assert_null(o.tmp);
	expect_dir(d, "");
}

/* A file that exists in a directory where no file can be made (/proc): the
 * file system's refusal, not ENOENT (procfs's answer for the temporary
 * name beside it), and the error in words says why. */
static void test_no_new_files(void **state)
{
	static const char *const paths[] = { "/proc/version", "/proc/test_output.folded" };
	struct output o;

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		int err = output__open(&o, paths[i]);

		if (err != -EOPNOTSUPP && err != -EACCES) /* EACCES: not root */
			fail_msg("'%s': %d (%s)", paths[i], err, strerror(-err));
		assert_null(o.f);
		assert_null(o.tmp);
	}
	assert_non_null(strstr(output__strerror(-EOPNOTSUPP), "takes no new files"));
}

/* A bare name goes into the current directory. */
static void test_relative_path(void **state)
{
	struct dir *d = *state;
	char cwd[PATH_MAX], path[PATH_MAX];
	struct output o;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(d->path), 0);
	assert_int_equal(output__open(&o, "rel.folded"), 0);
	assert_int_equal(fputs("r 1\n", o.f) >= 0, 1);
	assert_int_equal(output__commit(&o), 0);
	assert_int_equal(chdir(cwd), 0);
	join(path, d, "rel.folded");
	expect_file(path, "r 1\n");
	expect_dir(d, "rel.folded");
}

static void test_stdout(void **state)
{
	struct output o;

	(void)state;
	assert_int_equal(output__open(&o, "-"), 0);
	assert_non_null(o.f);
	assert_null(o.path);
	assert_null(o.tmp);
	assert_int_equal(output__commit(&o), 0);
	assert_int_equal(output__open(&o, "-"), 0);
	output__abort(&o);
	/* stdout stays open and usable. */
	assert_true(fflush(stdout) == 0);
	assert_int_equal(fileno(stdout), STDOUT_FILENO);
}

/* Run as root under sudo, the file goes to the user who ran sudo. */
static void test_sudo_owner(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX];
	struct output o;
	struct stat st;

	if (geteuid() != 0) {
		print_message("SKIP: needs root to change a file's owner\n");
		skip();
	}
	join(path, d, "owned.folded");
	assert_int_equal(setenv("SUDO_UID", "4321", 1), 0);
	assert_int_equal(setenv("SUDO_GID", "8765", 1), 0);
	assert_int_equal(output__open(&o, path), 0);
	assert_int_equal(output__commit(&o), 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 4321);
	assert_int_equal(st.st_gid, 8765);

	/* Without sudo's variables, root keeps the file. */
	join(path, d, "root.folded");
	assert_int_equal(output__open(&o, path), 0);
	assert_int_equal(output__commit(&o), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 0);
}

/* A link is followed: the file it points to is replaced, the link stays;
 * one that points nowhere yet makes its target. */
static void test_link_followed(void **state)
{
	struct dir *d = *state;
	char link[PATH_MAX], target[PATH_MAX];
	struct output o;
	struct stat st;

	join(link, d, "latest.folded");
	join(target, d, "run1.folded");
	write_file(target, "old 1\n");
	assert_int_equal(symlink("run1.folded", link), 0);
	assert_int_equal(output__open(&o, link), 0);
	assert_int_equal(fputs("new 2\n", o.f) >= 0, 1);
	assert_int_equal(output__commit(&o), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	expect_file(target, "new 2\n");
	expect_dir(d, "latest.folded|run1.folded");
	assert_int_equal(unlink(target), 0);
	assert_int_equal(output__open(&o, link), 0);
	assert_int_equal(fputs("made 3\n", o.f) >= 0, 1);
	assert_int_equal(output__commit(&o), 0);
	expect_file(target, "made 3\n");
	expect_dir(d, "latest.folded|run1.folded");
}

/* In a world-writable directory, another user's link is refused; ours is
 * followed. */
static void test_planted_link(void **state)
{
	struct dir *d = *state;
	char link[PATH_MAX], target[PATH_MAX];
	struct output o;

	if (geteuid() != 0) {
		print_message("SKIP: needs root to make a link of another user\n");
		skip();
	}
	assert_int_equal(chmod(d->path, 01777), 0);
	join(link, d, "x.folded");
	join(target, d, "victim");
	write_file(target, "precious\n");
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(lchown(link, 4321, 4321), 0);
	assert_int_equal(output__open(&o, link), -ELOOP);
	assert_null(o.f);
	assert_non_null(strstr(output__strerror(-ELOOP), "world-writable"));
	expect_file(target, "precious\n");
	expect_dir(d, "victim|x.folded");
	assert_int_equal(lchown(link, 0, 0), 0);
	assert_int_equal(output__open(&o, link), 0);
	assert_int_equal(output__commit(&o), 0);
	expect_file(target, "");
	assert_int_equal(chmod(d->path, 0700), 0);
}

/* /dev/fd/N is descriptor N, written at its offset, never replaced. */
static void test_descriptor(void **state)
{
	struct dir *d = *state;
	char path[PATH_MAX], name[64];
	struct output o;
	int fd;

	join(path, d, "fd.txt");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "head\n", 5), 5);
	snprintf(name, sizeof(name), "/dev/fd/%d", fd);
	assert_int_equal(output__open(&o, name), 0);
	assert_null(o.path);
	assert_int_equal(fputs("tail\n", o.f) >= 0, 1);
	assert_int_equal(output__commit(&o), 0);
	assert_int_equal(close(fd), 0);
	expect_file(path, "head\ntail\n");
	expect_dir(d, "fd.txt");
}

/* A write error keeps its errno, for the message. */
static void test_write_error(void **state)
{
	struct output o;

	(void)state;
	if (access("/dev/full", W_OK)) {
		print_message("SKIP: no /dev/full\n");
		skip();
	}
	assert_int_equal(output__open(&o, "/dev/full"), 0);
	for (int i = 0; i < 10000; i++)
		fputs("stack;frame 1\n", o.f);
	assert_true(ferror(o.f));
	assert_int_equal(output__error(&o), -ENOSPC);
	assert_int_equal(output__commit(&o), -ENOSPC);
}

#define DIR_TEST(f) cmocka_unit_test_setup_teardown(f, setup_dir, teardown_dir)

int main(void)
{
	const struct CMUnitTest tests[] = {
		DIR_TEST(test_commit),
		DIR_TEST(test_temporary_name),
		DIR_TEST(test_commit_empty),
		DIR_TEST(test_abort),
		DIR_TEST(test_abort_keeps_old_file),
		DIR_TEST(test_commit_replaces_old_file),
		DIR_TEST(test_directory),
		DIR_TEST(test_commit_failure_cleans_up),
		DIR_TEST(test_missing_directory),
		cmocka_unit_test(test_no_new_files),
		DIR_TEST(test_relative_path),
		cmocka_unit_test(test_stdout),
		DIR_TEST(test_sudo_owner),
		DIR_TEST(test_link_followed),
		DIR_TEST(test_planted_link),
		DIR_TEST(test_descriptor),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
