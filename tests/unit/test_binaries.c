/* Unit tests of src/symbols/binaries.c. The truth comes from outside the module: the
 * kernel's /proc/PID/maps of processes that really run (this one, and the
 * fixtures of tests/fixtures/ as children), and the dynamic loader's own
 * answer (`ld.so --list`) for what a command maps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbols/binaries.h"
#include "util.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the directory of the built fixtures"
#endif

#define FIX_PIE	    FIXTURE_DIR "/symfix_pie"
#define FIX_LIB	    FIXTURE_DIR "/libsymfix.so"
#define FIX_RUNPATH FIXTURE_DIR "/symfix_runpath"
#define LD_SO	    "/lib64/ld-linux-x86-64.so.2"

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static ssize_t find_base(const struct binaries *b, const char *base)
{
	for (size_t i = 0; i < b->n; i++) {
		if (!strcmp(base_of(b->v[i].path), base))
			return (ssize_t)i;
	}
	return -1;
}

static void expect_base(const struct binaries *b, const char *base)
{
	if (find_base(b, base) < 0)
		fail_msg("no binary named '%s' among %zu", base, b->n);
}

/* Every entry a distinct file, its open_path that file (when readable). */
static void check_entries(const struct binaries *b)
{
	struct stat st;

	for (size_t i = 0; i < b->n; i++) {
		const struct target_binary *e = &b->v[i];

		assert_true(e->path[0] == '/');
		assert_null(strstr(e->path, " (deleted)"));
		assert_true(binaries__find(b, e->dev, e->ino) == (ssize_t)i);
		assert_int_equal(stat(e->open_path, &st), 0);
		if (st.st_ino != e->ino || st.st_dev != e->dev)
			fail_msg("%s: %s is another file", e->path, e->open_path);
	}
}

/* Both lists hold the same files. */
static void expect_same_files(const struct binaries *a, const struct binaries *b)
{
	for (size_t i = 0; i < a->n; i++) {
		if (binaries__find(b, a->v[i].dev, a->v[i].ino) < 0)
			fail_msg("%s is only on one side", a->v[i].path);
	}
	for (size_t i = 0; i < b->n; i++) {
		if (binaries__find(a, b->v[i].dev, b->v[i].ino) < 0)
			fail_msg("%s is only on one side", b->v[i].path);
	}
	assert_int_equal(a->n, b->n);
}

static void add_file(struct binaries *b, const char *path, dev_t dev, ino_t ino)
{
	struct target_binary e = { (char *)path, (char *)path, dev, ino };

	assert_int_equal(binaries__add(b, &e), 0);
}

/* The executable file mappings of pid, read here independently. */
static void maps_files(pid_t pid, struct binaries *out)
{
	char name[64], line[4096], perms[8], path[4096];
	unsigned int major, minor;
	unsigned long inode;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", pid);
	f = fopen(name, "r");
	assert_non_null(f);
	*out = (struct binaries){ 0 };
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %lu %4095[^\n]", perms, &major, &minor,
			   &inode, path) < 4)
			continue;
		if (perms[2] == 'x' && path[0] == '/')
			add_file(out, path, makedev(major, minor), inode);
	}
	fclose(f);
}

static void test_self_pid(void **state)
{
	struct binaries b = { 0 }, truth;

	(void)state;
	assert_int_equal(binaries__of_pid(getpid(), &b), 0);
	assert_string_equal(b.v[0].path, u_self_exe());
	expect_base(&b, "libc.so.6");
	expect_base(&b, "ld-linux-x86-64.so.2");
	check_entries(&b);
	maps_files(getpid(), &truth);
	expect_same_files(&b, &truth);
	binaries__free(&truth);
	binaries__free(&b);
}

static void test_pid_gone(void **state)
{
	struct binaries b = { 0 };
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(binaries__of_pid(pid, &b), -ESRCH);
	assert_null(b.v);
	assert_int_equal(b.n, 0);
}

/* A running binary deleted since: named by its old path, read through the
 * mapping itself (root only: /proc/PID/map_files needs CAP_SYS_ADMIN). */
static void test_deleted_binary(void **state)
{
	char path[] = "/tmp/test_binaries.XXXXXX";
	struct binaries b = { 0 };
	struct u_fixture c;
	struct stat st;

	(void)state;
	u_copy_to(FIX_PIE, u_temp_file(path, NULL, 0));
	assert_int_equal(stat(path, &st), 0);
	u_fixture_spawn(&c, path);
	unlink(path);
	assert_int_equal(binaries__of_pid(c.pid, &b), 0);
	assert_true(b.n > 0);
	assert_string_equal(b.v[0].path, path);
	assert_true(b.v[0].ino == st.st_ino);
	if (geteuid() == 0) {
		assert_int_equal(strncmp(b.v[0].open_path, "/proc/", 6), 0);
		check_entries(&b);
	}
	binaries__free(&b);
	u_fixture_reap(&c);
}

/* What the dynamic loader itself says path maps: `ld.so --list path`. */
static void ldso_list(const char *path, struct binaries *out)
{
	char *argv[] = { LD_SO, "--list", (char *)path, NULL };
	char line[4096], *p;
	struct stat st;
	pid_t pid;
	FILE *f;

	if (access(LD_SO, X_OK))
		skip();
	f = u_run_reader(LD_SO, argv, &pid);
	*out = (struct binaries){ 0 };
	assert_int_equal(binaries__add_path(out, path), 0);
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "=> ") ? strstr(line, "=> ") + 3 : line + strspn(line, " \t");
		p[strcspn(p, " \t\n")] = '\0';
		if (*p == '/' && !stat(p, &st))
			assert_int_equal(binaries__add_path(out, p), 0);
	}
	fclose(f);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

static void check_command(const char *file, const char *exe)
{
	struct binaries b = { 0 }, truth;
	char *real = realpath(exe, NULL);

	assert_int_equal(binaries__of_command(file, &b), 0);
	assert_non_null(real);
	assert_string_equal(b.v[0].path, real);
	check_entries(&b);
	ldso_list(exe, &truth);
	expect_same_files(&b, &truth);
	binaries__free(&truth);
	binaries__free(&b);
	free(real);
}

static void test_command_true(void **state)
{
	struct binaries b = { 0 };
	size_t n;

	(void)state;
	check_command("/bin/true", "/bin/true");
	assert_int_equal(binaries__of_command("true", &b), 0);
	expect_base(&b, "libc.so.6");
	expect_base(&b, "ld-linux-x86-64.so.2");
	binaries__free(&b);
	/* Lists accumulate: a process and a command share libc and ld.so. */
	assert_int_equal(binaries__of_pid(getpid(), &b), 0);
	n = b.n;
	assert_int_equal(binaries__of_command("/bin/true", &b), 0);
	assert_int_equal(b.n, n + 1);
	assert_string_equal(base_of(b.v[n].path), "true");
	assert_int_equal(binaries__of_command("/bin/true", &b), 0);
	assert_int_equal(binaries__of_pid(getpid(), &b), 0);
	assert_int_equal(b.n, n + 1);
	assert_int_equal(binaries__of_command("/nonexistent", &b), -ENOENT);
	assert_int_equal(b.n, n + 1);
	binaries__free(&b);
}

/* The test binary needs many libraries (libelf, libz, cmocka, the sanitizers,
 * ...): the closure is what this very process mapped. */
static void test_command_self(void **state)
{
	struct binaries b = { 0 }, running;

	(void)state;
	check_command(u_self_exe(), u_self_exe());
	assert_int_equal(binaries__of_command(u_self_exe(), &b), 0);
	maps_files(getpid(), &running);
	expect_same_files(&b, &running);
	binaries__free(&running);
	binaries__free(&b);
}

/* libsymfix.so is found through DT_RUNPATH $ORIGIN only. */
static void test_command_runpath(void **state)
{
	struct binaries b = { 0 }, running;
	struct u_fixture c;

	(void)state;
	check_command(FIX_RUNPATH, FIX_RUNPATH);
	assert_int_equal(binaries__of_command(FIX_RUNPATH, &b), 0);
	expect_base(&b, "libsymfix.so");
	u_fixture_spawn(&c, FIX_RUNPATH);
	maps_files(c.pid, &running);
	expect_same_files(&b, &running);
	u_fixture_reap(&c);
	binaries__free(&running);
	binaries__free(&b);
}

static void with_env(const char *name, const char *value, const char *file, const char *want)
{
	char *old = getenv(name) ? strdup(getenv(name)) : NULL;
	struct binaries b = { 0 };

	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
	assert_int_equal(binaries__of_command(file, &b), 0);
	if (want)
		expect_base(&b, want);
	else
		assert_int_equal(find_base(&b, "libsymfix.so"), -1);
	binaries__free(&b);
	if (old)
		setenv(name, old, 1);
	else
		unsetenv(name);
	free(old);
}

static void test_command_env(void **state)
{
	(void)state;
	with_env("LD_PRELOAD", NULL, FIX_PIE, NULL);
	with_env("LD_PRELOAD", FIX_LIB, FIX_PIE, "libsymfix.so");
	/* A bare name is searched like a DT_NEEDED one. */
	with_env("LD_PRELOAD", "libsymfix.so", FIX_PIE, NULL);
	setenv("LD_LIBRARY_PATH", "/nonexistent:" FIXTURE_DIR, 1);
	with_env("LD_PRELOAD", "libsymfix.so", FIX_PIE, "libsymfix.so");
	unsetenv("LD_LIBRARY_PATH");
	/* PATH is searched like execvp does. */
	with_env("PATH", "/nonexistent:" FIXTURE_DIR, "symfix_runpath", "libsymfix.so");
}

static void write_script(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void check_first(const char *file, const char *want)
{
	char *real = realpath(want, NULL);
	struct binaries b = { 0 };

	assert_non_null(real);
	assert_int_equal(binaries__of_command(file, &b), 0);
	assert_string_equal(b.v[0].path, real);
	binaries__free(&b);
	free(real);
}

/* A script runs its #! interpreter; another non-ELF file runs /bin/sh. */
static void test_command_script(void **state)
{
	static const char *const texts[] = { "#!/bin/sh\necho hi\n", "#!  /bin/sh -e\n",
					     "echo no interpreter line\n", "#!\n" };
	char path[] = "/tmp/test_binaries.XXXXXX";
	char *sh = realpath("/bin/sh", NULL);
	struct binaries b = { 0 };

	(void)state;
	assert_non_null(sh);
	close(u_temp_file(path, NULL, 0));
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		write_script(path, texts[i], 0755);
		assert_int_equal(binaries__of_command(path, &b), 0);
		assert_string_equal(b.v[0].path, sh);
		expect_base(&b, "libc.so.6");
		binaries__free(&b);
	}
	/* env execs its argument, found along PATH. */
	write_script(path, "#!/usr/bin/env -S sh -e\n", 0755);
	check_first(path, "/bin/sh");
	write_script(path, "#!/usr/bin/env true\n", 0755);
	check_first(path, "/bin/true");
	write_script(path, "#!/usr/bin/env -i\n", 0755);
	check_first(path, "/usr/bin/env");
	write_script(path, "#!/nonexistent/interpreter\n", 0755);
	assert_int_equal(binaries__of_command(path, &b), -ENOENT);
	write_script(path, "#!/bin/sh\n", 0644);
	assert_int_equal(binaries__of_command(path, &b), -EACCES);
	unlink(path);
	free(sh);
}

static void test_command_not_found(void **state)
{
	char *old = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	struct binaries b = { 0 };

	(void)state;
	assert_int_equal(binaries__of_command("no-such-command-flamebpf", &b), -ENOENT);
	assert_null(b.v);
	assert_int_equal(binaries__of_command("/nonexistent/prog", &b), -ENOENT);
	assert_int_equal(binaries__of_command("", &b), -ENOENT);
	assert_int_equal(binaries__of_command("/tmp", &b), -EACCES);
	/* A non-executable file is skipped along PATH, and reported if alone. */
	setenv("PATH", "/etc", 1);
	assert_int_equal(binaries__of_command("passwd", &b), -EACCES);
	setenv("PATH", old, 1);
	free(old);
}

static void test_name_rank(void **state)
{
	static const struct {
		const char *spec, *path;
		int rank;
	} cases[] = {
		{ "libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0 },
		{ "libc", "/usr/lib/x86_64-linux-gnu/libc.so.6", 1 },
		{ "libc", "libc.so", 1 },
		{ "libc", "/lib/libc-2.31.so", 2 },
		{ "libc.so", "libc.so.6", 1 },
		{ "libfoo.so.1", "libfoo.so.1.2.3", 1 },
		{ "libpython3.11", "libpython3.11.so.1.0", 1 },
		{ "ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2", 0 },
		{ "python3.11", "/usr/bin/python3.11", 0 },
		{ "libc", "/usr/lib/x86_64-linux-gnu/libcrypto.so.3", -1 },
		{ "libc", "libcap.so.2", -1 },
		{ "libc", "libc.a", -1 },
		{ "libc", "libc-client", -1 },
		{ "libc.so", "libc.sox", -1 },
		{ "lib", "libc.so.6", -1 },
		{ "c", "libc.so.6", -1 },
		{ "", "libc.so.6", -1 },
		{ "libc.so.6", "/usr/lib/libc.so.6/", -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = binaries__name_rank(cases[i].spec, cases[i].path);

		if (got != cases[i].rank)
			fail_msg("'%s' for '%s': %d, want %d", cases[i].spec, cases[i].path, got,
				 cases[i].rank);
	}
}

static void expect_resolves(const char *spec, const struct binaries *target,
			    const struct target_binary *want)
{
	struct binaries out = { 0 };

	assert_int_equal(binaries__resolve(spec, target, &out), 0);
	assert_int_equal(out.n, 1);
	if (out.v[0].dev != want->dev || out.v[0].ino != want->ino)
		fail_msg("'%s' resolves to %s, want %s", spec, out.v[0].path, want->path);
	binaries__free(&out);
}

/* In a target, and system-wide: the same libc this process maps. */
static void test_resolve_libc(void **state)
{
	struct binaries self = { 0 }, cmd = { 0 };
	const struct target_binary *libc, *ld;

	(void)state;
	assert_int_equal(binaries__of_pid(getpid(), &self), 0);
	libc = &self.v[find_base(&self, "libc.so.6")];
	ld = &self.v[find_base(&self, "ld-linux-x86-64.so.2")];
	expect_resolves("libc", &self, libc);
	expect_resolves("libc.so.6", &self, libc);
	expect_resolves("libc.so", &self, libc);
	expect_resolves("ld-linux-x86-64.so.2", &self, ld);
	expect_resolves("libc", NULL, libc);
	expect_resolves("libc.so.6", NULL, libc);
	assert_int_equal(binaries__of_command("/bin/true", &cmd), 0);
	expect_resolves("libc", &cmd, libc);
	binaries__free(&cmd);
	binaries__free(&self);
}

static void test_resolve_target_first(void **state)
{
	struct binaries cmd = { 0 }, out = { 0 };

	(void)state;
	/* Not in any library directory: only a target that maps it has it. */
	assert_int_equal(binaries__resolve("libsymfix.so", NULL, &out), -ENOENT);
	assert_int_equal(binaries__resolve("libsymfix", NULL, &out), -ENOENT);
	assert_int_equal(binaries__of_command(FIX_RUNPATH, &cmd), 0);
	expect_resolves("libsymfix", &cmd, &cmd.v[find_base(&cmd, "libsymfix.so")]);
	expect_resolves("symfix_runpath", &cmd, &cmd.v[0]);
	assert_int_equal(binaries__resolve("libnosuchlib-flamebpf", &cmd, &out), -ENOENT);
	assert_int_equal(out.n, 0);
	binaries__free(&cmd);
}

/* A program's name, not a library's: found along PATH, as execvp finds
 * it, after the target and the library directories. */
static void test_resolve_along_path(void **state)
{
	struct binaries out = { 0 }, sh = { 0 };
	char *path = NULL;

	(void)state;
	assert_int_equal(binaries__find_program("sh", &path), 0);
	assert_int_equal(binaries__add_path(&sh, path), 0);
	expect_resolves("sh", NULL, &sh.v[0]);
	assert_int_equal(binaries__resolve("nosuchprog-flamebpf", NULL, &out), -ENOENT);
	assert_int_equal(out.n, 0);
	binaries__free(&sh);
	free(path);
}

static void test_resolve_paths(void **state)
{
	struct binaries out = { 0 };
	char *real = realpath(FIX_PIE, NULL);

	(void)state;
	assert_int_equal(binaries__resolve(FIX_PIE, NULL, &out), 0);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.v[0].path, real);
	assert_int_equal(binaries__resolve("/etc/passwd", NULL, &out), -ENOEXEC);
	assert_int_equal(binaries__resolve("/nonexistent/libx.so", NULL, &out), -ENOENT);
	assert_int_equal(binaries__resolve("/usr", NULL, &out), -EISDIR);
	assert_int_equal(binaries__resolve("/dev/null", NULL, &out), -ENOEXEC);
	assert_int_equal(binaries__resolve("", NULL, &out), -ENOENT);
	assert_int_equal(out.n, 1);
	binaries__free(&out);
	free(real);
}

/* One file, however many paths name it. */
static void test_add_path_dedup(void **state)
{
	char dir[] = "/tmp/test_binaries.XXXXXX", link[64];
	struct binaries b = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/alias", dir);
	assert_int_equal(symlink(FIX_PIE, link), 0);
	assert_int_equal(binaries__add_path(&b, FIX_PIE), 0);
	assert_int_equal(binaries__add_path(&b, link), 0);
	assert_int_equal(binaries__add_path(&b, FIX_LIB), 0);
	assert_int_equal(binaries__add_path(&b, FIX_PIE), 0);
	assert_int_equal(b.n, 2);
	assert_int_equal(binaries__add_path(&b, "/etc/passwd"), -ENOEXEC);
	assert_int_equal(b.n, 2);
	binaries__free(&b);
	unlink(link);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_pid),
		cmocka_unit_test(test_pid_gone),
		cmocka_unit_test(test_deleted_binary),
		cmocka_unit_test(test_command_true),
		cmocka_unit_test(test_command_self),
		cmocka_unit_test(test_command_runpath),
		cmocka_unit_test(test_command_env),
		cmocka_unit_test(test_command_script),
		cmocka_unit_test(test_command_not_found),
		cmocka_unit_test(test_name_rank),
		cmocka_unit_test(test_resolve_libc),
		cmocka_unit_test(test_resolve_target_first),
		cmocka_unit_test(test_resolve_along_path),
		cmocka_unit_test(test_resolve_paths),
		cmocka_unit_test(test_add_path_dedup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
