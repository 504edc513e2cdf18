/* Unit tests of src/demangle.c: literal C++ and Rust names, every mangled
 * symbol of libstdc++ against binutils' `nm -C`, and the symbolizer naming a
 * frame of the C++ fixture (tests/fixtures/cxxfix.cpp) by its demangled name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "demangle.h"
#include "procs.h"
#include "profile.h"
#include "symbolize.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the directory of the built fixtures"
#endif

#define FIX_CXX	  FIXTURE_DIR "/cxxfix_cxx"
#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"

static void expect(const char *mangled, const char *full, const char *brief)
{
	char *got = demangle(mangled), *got_short = demangle__short(mangled);

	if (!full) {
		if (got || got_short)
			fail_msg("'%s' demangled to '%s' / '%s', want nothing", mangled,
				 got ? got : "", got_short ? got_short : "");
		return;
	}
	if (!got || strcmp(got, full))
		fail_msg("'%s': got '%s', want '%s'", mangled, got ? got : "(null)", full);
	if (!got_short || strcmp(got_short, brief))
		fail_msg("'%s' (short): got '%s', want '%s'", mangled,
			 got_short ? got_short : "(null)", brief);
	free(got);
	free(got_short);
}

static void test_cxx(void **state)
{
	(void)state;
	expect("_Z3fooi", "foo(int)", "foo");
	expect("_ZN2ns4funcEv", "ns::func()", "ns::func");
	expect("_ZN8flamefix4evalEPKc", "flamefix::eval(char const*)", "flamefix::eval");
	expect("_ZNK8flamefix6Parser10parse_exprEi", "flamefix::Parser::parse_expr(int) const",
	       "flamefix::Parser::parse_expr");
	expect("_ZNKSt6vectorIiSaIiEE4sizeEv",
	       "std::vector<int, std::allocator<int> >::size() const",
	       "std::vector<int, std::allocator<int> >::size");
	expect("_ZN8flamefix5twiceIiEET_S1_", "int flamefix::twice<int>(int)",
	       "flamefix::twice<int>");
	/* gcc's clones keep the function's name */
	expect("_ZN8flamefix4evalEi.cold", "flamefix::eval(int) [clone .cold]", "flamefix::eval");
	expect("_ZdlPv", "operator delete(void*)", "operator delete");
	expect("_ZNSt8ios_base4InitC1Ev", "std::ios_base::Init::Init()",
	       "std::ios_base::Init::Init");
}

/* Legacy names end in a hash, which is dropped; v0 names have none. */
static void test_rust(void **state)
{
	(void)state;
	expect("_ZN3std2rt10lang_start17h8b7c3a4e5f6d1a2bE", "std::rt::lang_start",
	       "std::rt::lang_start");
	expect("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$"
	       "closure$u7d$$u7d$$GT$17h0123456789abcdefE",
	       "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>",
	       "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");
	expect("_RNvC7mycrate3foo", "mycrate::foo", "mycrate::foo");
	expect("_RNvCsbmNqQUJIY6D_4core3foo", "core::foo", "core::foo");
}

static void test_not_mangled(void **state)
{
	static const char *const plain[] = { "main",
					     "",
					     "_start",
					     "malloc",
					     "_Z",
					     "_Zfoo",
					     "_R",
					     "_RX",
					     "__Z3fooi",
					     "Z3fooi",
					     "_GLOBAL__sub_I_main" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		expect(plain[i], NULL, NULL);
	assert_false(demangle__is_mangled("main"));
	assert_false(demangle__is_mangled(""));
	assert_false(demangle__is_mangled("_"));
	assert_true(demangle__is_mangled("_Z3fooi"));
	assert_true(demangle__is_mangled("_RNvC7mycrate3foo"));
}

/* Runs /usr/bin/argv[0] without a shell; the returned stream reads its stdout. */
static FILE *run_reader(char *const argv[], pid_t *pid)
{
	char tool[64];
	int fds[2];
	FILE *f;

	snprintf(tool, sizeof(tool), "/usr/bin/%s", argv[0]);
	if (access(tool, X_OK) != 0) {
		print_message("SKIP: %s (binutils) is not installed\n", argv[0]);
		skip();
	}
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execv(tool, argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	assert_non_null(f);
	return f;
}

static void reap(FILE *f, pid_t pid)
{
	int status;

	fclose(f);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The name column of "ADDR TYPE NAME" (nm), or NULL. */
static char *nm_name(char *line)
{
	char *p = strchr(line, ' ');

	line[strcspn(line, "\n")] = '\0';
	if (!p || !p[1] || p[2] != ' ')
		return NULL;
	return p + 3;
}

/* nm -p keeps the symbol table's order, so line i of `nm` and of `nm -C`
 * describe the same symbol. */
static size_t compare_with_nm(const char *path, const char *table)
{
	char *raw_argv[] = { "nm", "-p", "--defined-only", (char *)table, (char *)path, NULL };
	char *dem_argv[] = {
		"nm", "-p", "-C", "--defined-only", (char *)table, (char *)path, NULL
	};
	char *raw = NULL, *dem = NULL, *r, *d, *got;
	size_t rcap = 0, dcap = 0, mangled = 0;
	pid_t rpid, dpid;
	FILE *rf = run_reader(raw_argv, &rpid), *df = run_reader(dem_argv, &dpid);

	while (getline(&raw, &rcap, rf) > 0) {
		assert_true(getline(&dem, &dcap, df) > 0);
		r = nm_name(raw);
		d = nm_name(dem);
		if (!r || !d || !demangle__is_mangled(r))
			continue;
		/* Symbol versions ("@@GLIBCXX_3.4") follow the name in both. */
		r[strcspn(r, "@")] = '\0';
		got = demangle(r);
		if (!got || strncmp(got, d, strlen(got)) ||
		    (d[strlen(got)] && d[strlen(got)] != '@'))
			fail_msg("'%s': got '%s', nm -C says '%s'", r, got ? got : "(null)", d);
		free(got);
		mangled++;
	}
	free(raw);
	free(dem);
	reap(rf, rpid);
	reap(df, dpid);
	return mangled;
}

static void test_libstdcxx_like_nm(void **state)
{
	(void)state;
	if (access(LIBSTDCXX, R_OK)) {
		print_message("SKIP: no %s\n", LIBSTDCXX);
		skip();
	}
	assert_true(compare_with_nm(LIBSTDCXX, "-D") > 1000);
	assert_int_equal(compare_with_nm(FIX_CXX, "-a"), 4);
}

struct child {
	pid_t pid;
	FILE *out;
	int in;
};

static void spawn_addrs(const char *path, struct child *c)
{
	int out[2], in[2];

	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
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
}

static void check_frame(struct symbolizer *s, const struct profile *p, pid_t pid, const char *sym,
			uint64_t addr)
{
	char *want = demangle(sym);
	const struct frame *f;
	uint32_t id;

	assert_non_null(want);
	assert_int_equal(symbolizer__user(s, pid, addr, false, &id), 0);
	f = profile__frame(p, id);
	if (strcmp(f->name, want) || strcmp(f->module, "cxxfix_cxx"))
		fail_msg("0x%" PRIx64 ": frame '%s' in '%s', want '%s'", addr, f->name, f->module,
			 want);
	free(want);
}

/* The symbolizer names C++ frames as perf does: demangled, with parameters. */
static void test_symbolizer_demangles(void **state)
{
	struct profile *p = profile__new(UNIT_SAMPLES);
	struct procs *ps = procs__new();
	struct symbolizer *s = p && ps ? symbolizer__new(p, ps) : NULL;
	char line[256], sym[128];
	struct child c;
	uint64_t addr;
	size_t n = 0;
	int status;

	(void)state;
	assert_non_null(s);
	spawn_addrs(FIX_CXX, &c);
	while (fgets(line, sizeof(line), c.out) && strcmp(line, "end\n")) {
		assert_int_equal(sscanf(line, "%127s %" SCNx64, sym, &addr), 2);
		check_frame(s, p, c.pid, sym, addr);
		n++;
	}
	assert_int_equal(n, 3);
	close(c.in);
	fclose(c.out);
	assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
	symbolizer__free(s);
	procs__free(ps);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_rust),
		cmocka_unit_test(test_not_mangled),
		cmocka_unit_test(test_libstdcxx_like_nm),
		cmocka_unit_test(test_symbolizer_demangles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
