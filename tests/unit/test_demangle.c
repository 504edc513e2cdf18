/* Unit tests of src/symbols/demangle.c: literal C++ and Rust names, every mangled
 * symbol of libstdc++ against binutils' `nm -C`, and the symbolizer naming a
 * frame of the C++ fixture (tests/fixtures/cxxfix.cpp) by its demangled name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile.h"
#include "symbols/demangle.h"
#include "symbols/procs.h"
#include "symbols/symbolize.h"
#include "util.h"

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
	FILE *rf = u_run_tool(raw_argv, &rpid), *df = u_run_tool(dem_argv, &dpid);

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
	u_reap_tool(rf, rpid);
	u_reap_tool(df, dpid);
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
	struct u_fixture c;

	(void)state;
	assert_non_null(s);
	u_fixture_spawn(&c, FIX_CXX);
	for (size_t i = 0; i < c.n; i++)
		check_frame(s, p, c.pid, c.names[i], c.addrs[i]);
	assert_int_equal(c.n, 3);
	u_fixture_reap(&c);
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
