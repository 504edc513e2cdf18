// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the unit tests; see util.h. */
#include "util.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- binutils ---- */

FILE *u_run_reader(const char *path, char *const argv[], pid_t *pid)
{
	int fds[2];
	FILE *f;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execv(path, argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	assert_non_null(f);
	return f;
}

FILE *u_run_tool(char *const argv[], pid_t *pid)
{
	char tool[64];

	snprintf(tool, sizeof(tool), "/usr/bin/%s", argv[0]);
	if (access(tool, X_OK) != 0) {
		print_message("SKIP: %s (binutils) is not installed\n", argv[0]);
		skip();
	}
	return u_run_reader(tool, argv, pid);
}

void u_reap_tool(FILE *f, pid_t pid)
{
	int status;

	fclose(f);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* "Num: Value Size Type Bind Vis Ndx Name" rows of FUNC/IFUNC, defined. */
static void parse_sym_line(const char *line, struct u_readelf *r)
{
	char type[16], bind[16], vis[16], ndx[16], *name = NULL;
	uint64_t value, size;
	unsigned int num;

	if (sscanf(line, " %u: %" SCNx64 " %" SCNu64 " %15s %15s %15s %15s %ms", &num, &value,
		   &size, type, bind, vis, ndx, &name) != 8)
		return;
	if ((strcmp(type, "FUNC") && strcmp(type, "IFUNC")) || !strcmp(ndx, "UND") || !value) {
		free(name);
		return;
	}
	/* a default version is the plain name; another keeps its "@VERSION" */
	if (strstr(name, "@@"))
		*strstr(name, "@@") = '\0';
	r->syms = reallocarray(r->syms, r->nsyms + 1, sizeof(*r->syms));
	assert_non_null(r->syms);
	r->syms[r->nsyms++] = (struct u_rsym){ value, size, name };
}

static void parse_seg_line(const char *line, struct u_readelf *r)
{
	uint64_t off, vaddr, paddr, filesz, memsz;
	char flags[16];

	if (sscanf(line,
		   " LOAD 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64
		   " %15[RWE ]",
		   &off, &vaddr, &paddr, &filesz, &memsz, flags) != 6 ||
	    !strchr(flags, 'E'))
		return;
	assert_true(r->nsegs < 8);
	r->seg[r->nsegs][0] = off;
	r->seg[r->nsegs][1] = vaddr;
	r->seg[r->nsegs][2] = filesz;
	r->nsegs++;
}

struct u_readelf u_readelf(const char *path)
{
	char *argv[] = { "readelf", "-sW", "-lW", (char *)path, NULL };
	struct u_readelf r = { 0 };
	char *line = NULL;
	size_t cap = 0;
	pid_t pid;
	FILE *f = u_run_tool(argv, &pid);

	while (getline(&line, &cap, f) > 0) {
		parse_sym_line(line, &r);
		parse_seg_line(line, &r);
	}
	free(line);
	u_reap_tool(f, pid);
	return r;
}

void u_readelf_free(struct u_readelf *r)
{
	for (size_t i = 0; i < r->nsyms; i++)
		free(r->syms[i].name);
	free(r->syms);
}

/* ---- fixtures ---- */

/* Reads "name 0xaddr" lines up to "end". */
static void read_addrs(struct u_fixture *c)
{
	char line[256];

	c->n = 0;
	while (fgets(line, sizeof(line), c->out) && strcmp(line, "end\n") != 0) {
		assert_true(c->n < U_MAX_ADDRS);
		assert_int_equal(sscanf(line, "%63s %" SCNx64, c->names[c->n], &c->addrs[c->n]), 2);
		c->n++;
	}
}

void u_fixture_spawn(struct u_fixture *c, const char *path)
{
	int out[2], in[2];
	pid_t pid;

	if (access(path, X_OK))
		fail_msg("cannot run '%s': %s (build the fixtures first)", path, strerror(errno));
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		dup2(in[0], STDIN_FILENO);
		execl(path, path, "addrs", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);
	c->in = in[1];
	c->out = fdopen(out[0], "r");
	assert_non_null(c->out);
	c->pid = pid;
	/* its maps are complete once it printed */
	read_addrs(c);
}

uint64_t u_fixture_addr(const struct u_fixture *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->names[i], name) == 0)
			return c->addrs[i];
	fail_msg("the fixture printed no address for '%s'", name);
	return 0;
}

void u_fixture_reap(struct u_fixture *c)
{
	int status;

	if (!c->pid)
		return;
	close(c->in);
	fclose(c->out);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	c->pid = 0;
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

void u_fixture_kill(struct u_fixture *c)
{
	if (!c->pid)
		return;
	kill(c->pid, SIGKILL);
	close(c->in);
	fclose(c->out);
	waitpid(c->pid, NULL, 0);
	c->pid = 0;
}

/* Which name each address of symfix must resolve to. */
static const struct {
	const char *taken, *expect;
} symfix_names[] = {
	{ "fixture_alpha", "fixture_alpha" },
	{ "__fixture_a", "fixture_alpha" }, /* shorter, but leading underscores */
	{ "fixture_beta", "fixture_beta" },
	{ "fixture_b_longer_alias", "fixture_beta" }, /* sorts first, but longer */
	{ "fixture_static", "fixture_static" },
	{ "fixture_gamma", "fixture_gamma" },
	{ "fixture_gamma_weak", "fixture_gamma" }, /* weak alias */
	{ "fx_local", "fixture_exported_name" },   /* local under a global alias */
	{ "fixture_exported_name", "fixture_exported_name" },
	{ "fx_weak_local", "fixture_weak_of_local" }, /* local under a weak alias */
	{ "fixture_weak_of_local", "fixture_weak_of_local" },
	{ "fixture_weak", "fixture_weak" },
	{ "resolve_fixture_ifunc", "fixture_ifunc" }, /* STT_GNU_IFUNC over its resolver */
	{ "fixture_halfsized", "fixture_halfsized" }, /* size 0, but its alias has one */
	{ "fx_halfsized_local", "fixture_halfsized" },
	{ "fixture_nosize", "fixture_nosize" }, /* size 0: runs to the next symbol */
};

_Static_assert(sizeof(symfix_names) / sizeof(symfix_names[0]) == U_SYMFIX_NSYMS,
	       "U_SYMFIX_NSYMS is not the size of the table");

const char *u_symfix_expected(const char *taken)
{
	for (size_t i = 0; i < U_SYMFIX_NSYMS; i++)
		if (strcmp(symfix_names[i].taken, taken) == 0)
			return symfix_names[i].expect;
	fail_msg("fixture symbol '%s' has no expected name", taken);
	return NULL;
}

/* ---- files ---- */

const char *u_self_exe(void)
{
	static char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	assert_true(n > 0);
	exe[n] = '\0';
	return exe;
}

const char *u_repo_file(const char *dir, const char *name)
{
	static char path[PATH_MAX + 128];
	char exe[PATH_MAX];
	char *cut;

	snprintf(exe, sizeof(exe), "%s", u_self_exe());
	cut = strstr(exe, "/build/tests/unit/");
	if (cut)
		*cut = '\0';
	snprintf(path, sizeof(path), "%s/%s/%.60s", cut ? exe : ".", dir, name);
	return path;
}

int u_temp_file(char *template, const void *buf, size_t len)
{
	int fd = mkstemp(template);

	assert_true(fd >= 0);
	if (len)
		assert_int_equal(write(fd, buf, len), (ssize_t)len);
	return fd;
}

void u_copy_to(const char *from, int out)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(in >= 0);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	assert_int_equal(fchmod(out, 0755), 0);
	close(in);
	assert_int_equal(close(out), 0);
}

void u_copy_file(const char *from, const char *to)
{
	u_copy_to(from, open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755));
}
