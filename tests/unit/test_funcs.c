/* Unit tests of src/capture/funcs.c: the -f/-l argument split, and which functions a
 * regex selects, with their file offsets. The truth comes from binutils'
 * readelf (symbols, sizes, executable segments) for the fixtures of
 * tests/fixtures/ and for the libc this process runs on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/funcs.h"
#include "symbols/binaries.h"
#include "util.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name the directory of the built fixtures"
#endif

#define FIX_PIE		   FIXTURE_DIR "/symfix_pie"
#define FIX_NOPIE	   FIXTURE_DIR "/symfix_nopie"
#define FIX_LIB		   FIXTURE_DIR "/libsymfix.so"
#define FIX_CXX		   FIXTURE_DIR "/cxxfix_cxx"
#define FIX_NAMES	   FIXTURE_DIR "/libnamefix.so"
#define FIX_NAMES_STRIPPED FIXTURE_DIR "/libnamefix_stripped.so"

/* ---- readelf ---------------------------------------------------------- */

/* What readelf says about PATH, which has functions and executable segments. */
static struct u_readelf relf_load(const char *path)
{
	struct u_readelf r = u_readelf(path);

	assert_true(r.nsyms > 0 && r.nsegs > 0);
	return r;
}

/* The file offset of a link-time address, by readelf's segments. */
static bool relf_offset(const struct u_readelf *r, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < r->nsegs; i++) {
		if (vaddr >= r->seg[i][1] && vaddr - r->seg[i][1] < r->seg[i][2]) {
			*off = vaddr - r->seg[i][1] + r->seg[i][0];
			return true;
		}
	}
	return false;
}

/* Distinct addresses that have a name re matches, and the largest size any
 * symbol there states. */
static size_t relf_matches(const struct u_readelf *r, const regex_t *re, uint64_t value,
			   uint64_t *size)
{
	size_t i, n = 0;

	*size = 0;
	for (i = 0; i < r->nsyms; i++) {
		if (r->syms[i].value != value)
			continue;
		n += !regexec(re, r->syms[i].name, 0, NULL, 0);
		if (r->syms[i].size > *size)
			*size = r->syms[i].size;
	}
	return n;
}

static size_t relf_count(const struct u_readelf *r, const regex_t *re)
{
	size_t i, j, n = 0;
	uint64_t size;

	for (i = 0; i < r->nsyms; i++) {
		for (j = 0; j < i && r->syms[j].value != r->syms[i].value; j++)
			;
		if (j == i && relf_matches(r, re, r->syms[i].value, &size))
			n++;
	}
	return n;
}

/* ---- helpers ---------------------------------------------------------- */

static regex_t compile(const char *regex)
{
	regex_t re;

	assert_int_equal(regcomp(&re, regex, REG_EXTENDED | REG_NOSUB), 0);
	return re;
}

static struct binaries bins_of(const char *path)
{
	struct binaries b = { 0 };

	assert_int_equal(binaries__add_path(&b, path), 0);
	return b;
}

/* The functions of one binary that regex selects, as -f and -l select
 * them (an exact name alone). */
static struct funcs match(const char *path, const char *regex)
{
	struct binaries b = bins_of(path);
	struct funcs list = { 0 };
	regex_t re = compile(regex);
	struct funcs_query q = { .re = &re, .text = regex, .failed = 99 };

	assert_int_equal(funcs__match(&list, &b, &q), 0);
	assert_int_equal(q.failed, 99);
	regfree(&re);
	binaries__free(&b);
	return list;
}

/* Every name of list matches regex as printed, or without its "@0xADDR";
 * no two entries of a binary print alike, but an IFUNC's implementations. */
static void check_names(const struct funcs *list, const char *regex)
{
	regex_t re = compile(regex);

	for (size_t i = 0; i < list->n; i++) {
		const struct func *f = &list->v[i];
		char *bare = strdup(f->name), *at = strstr(bare, "@0x");

		if (at)
			*at = '\0';
		if (regexec(&re, f->name, 0, NULL, 0) && regexec(&re, bare, 0, NULL, 0))
			fail_msg("'%s' does not match '%s'", f->name, regex);
		free(bare);
		for (size_t j = 0; j < i; j++)
			if (list->v[j].bin == f->bin && list->v[j].sym_vaddr != f->sym_vaddr &&
			    !strcmp(list->v[j].name, f->name))
				fail_msg("'%s' names two functions", f->name);
	}
	regfree(&re);
}

static const struct func *only(const struct funcs *list, const char *name)
{
	if (list->n != 1)
		fail_msg("%zu functions, want only %s", list->n, name);
	assert_string_equal(list->v[0].name, name);
	return &list->v[0];
}

/* ---- tests ------------------------------------------------------------ */

static void expect_split(const char *arg, const char *binary, const char *regex)
{
	char *b = (char *)1, *r = (char *)1;

	assert_int_equal(funcs__parse_spec(arg, &b, &r), 0);
	if (binary ? !b || strcmp(b, binary) : b != NULL)
		fail_msg("'%s': binary '%s', want '%s'", arg, b ? b : "(none)",
			 binary ? binary : "(none)");
	assert_string_equal(r, regex);
	free(b);
	free(r);
}

static void test_parse_spec(void **state)
{
	char dir[] = "/tmp/test_funcs.XXXXXX", cwd[PATH_MAX], *b, *r;
	int fd;

	(void)state;
	expect_split("parse_.*|eval", NULL, "parse_.*|eval");
	expect_split("libc:^(malloc|free)$", "libc", "^(malloc|free)$");
	expect_split("/usr/bin/python3.11:^_PyEval", "/usr/bin/python3.11", "^_PyEval");
	expect_split("libc.so.6:^mem", "libc.so.6", "^mem");
	expect_split("ld-linux-x86-64.so.2:^_dl_", "ld-linux-x86-64.so.2", "^_dl_");
	expect_split("./prog:main", "./prog", "main");
	expect_split("libc:", "libc", "");
	/* C++ scopes are never the separator; later ':' belong to REGEX */
	expect_split("ns::func", NULL, "ns::func");
	expect_split("std::vector<int>::push_back", NULL, "std::vector<int>::push_back");
	expect_split("libc::foo", NULL, "libc::foo");
	expect_split("libfoo.so:ns::f", "libfoo.so", "ns::f");
	expect_split("/opt/x:a:b", "/opt/x", "a:b");
	/* not a binary: a regex with a ':' in it */
	expect_split("a:b", NULL, "a:b");
	expect_split(":foo", NULL, ":foo");
	expect_split("nosuchprog-flamebpf:^_Py", NULL, "nosuchprog-flamebpf:^_Py");
	/* unless a program of that name is found along PATH (as bpftrace's
	 * uprobe:gzip:... is), */
	expect_split("sh:^main$", "sh", "^main$");
	/* or a file of that name exists */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	fd = open("prog", O_CREAT | O_WRONLY | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	close(fd);
	expect_split("prog:main", "prog", "main");
	unlink("prog");
	assert_int_equal(chdir(cwd), 0);
	rmdir(dir);
	assert_int_equal(funcs__parse_spec("", &b, &r), -EINVAL);
	assert_null(b);
	assert_null(r);
}

static void check_alpha(const char *path)
{
	struct funcs list = match(path, "^fixture_alpha$");
	struct u_readelf r = relf_load(path);
	const struct func *f = only(&list, "fixture_alpha");
	char *real = realpath(path, NULL);
	uint64_t off, size;
	regex_t re = compile("^fixture_alpha$");

	assert_string_equal(f->sym, "fixture_alpha");
	assert_true(relf_matches(&r, &re, f->vaddr, &size) >= 1);
	assert_true(relf_offset(&r, f->vaddr, &off));
	assert_true(f->offset == off);
	assert_true(f->size == size && f->sized && !f->ifunc);
	assert_int_equal(list.bins.n, 1);
	assert_string_equal(list.bins.v[f->bin].path, real);
	regfree(&re);
	free(real);
	u_readelf_free(&r);
	funcs__free(&list);
}

static void test_alpha_offset(void **state)
{
	(void)state;
	check_alpha(FIX_PIE);
	check_alpha(FIX_NOPIE);
	check_alpha(FIX_LIB);
}

/* A function is selected once, by any of its names, under the best of
 * those that matched. */
static void test_aliases_once(void **state)
{
	static const struct {
		const char *regex, *name;
	} cases[] = {
		{ "^__fixture_a$", "__fixture_a" },
		{ "fixture_a", "fixture_alpha" }, /* both names match */
		{ "^fixture_b", "fixture_beta" },
		{ "^fx_local$", "fx_local" },
		{ "gamma", "fixture_gamma" },
		{ "^fx_weak_local$", "fx_weak_local" },
		{ "^fixture_weak_of_local$", "fixture_weak_of_local" },
		{ "halfsized", "fixture_halfsized" },
		{ "^fx_halfsized", "fx_halfsized_local" },
	};
	struct funcs list;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		list = match(FIX_PIE, cases[i].regex);
		only(&list, cases[i].name);
		check_names(&list, cases[i].regex);
		funcs__free(&list);
	}
	/* the resolver's own name is the resolver, which runs once */
	list = match(FIX_PIE, "^resolve_fixture_ifunc$");
	assert_false(only(&list, "resolve_fixture_ifunc")->ifunc);
	assert_int_equal(list.v[0].how, IFUNC_NOT_FOUND);
	assert_true(list.v[0].vaddr == list.v[0].sym_vaddr);
	funcs__free(&list);
	list = match(FIX_PIE, "^fixture_nosize$");
	assert_false(only(&list, "fixture_nosize")->sized);
	assert_true(list.v[0].size > 0);
	funcs__free(&list);
}

/* Every selected function is one readelf knows, at readelf's offset; none
 * is missing. */
static void check_like_readelf(const char *path, const char *regex)
{
	struct funcs list = match(path, regex);
	struct u_readelf r = relf_load(path);
	regex_t re = compile(regex);
	uint64_t off, size;

	size_t n = 0;

	for (size_t i = 0; i < list.n; i++) {
		const struct func *f = &list.v[i];

		if (!relf_matches(&r, &re, f->sym_vaddr, &size))
			fail_msg("%s: %s at 0x%" PRIx64 " has no matching name", path, f->name,
				 f->sym_vaddr);
		assert_true(relf_offset(&r, f->vaddr, &off));
		assert_true(f->offset == off);
		/* an IFUNC is traced where its resolver's pick is */
		if (f->sized && f->how == IFUNC_NOT_FOUND)
			assert_true(f->size == size);
		if (i)
			assert_true(f->sym_vaddr > list.v[i - 1].sym_vaddr ||
				    (f->sym_vaddr == list.v[i - 1].sym_vaddr &&
				     f->vaddr > list.v[i - 1].vaddr));
		n += !i || f->sym_vaddr != list.v[i - 1].sym_vaddr;
	}
	check_names(&list, regex);
	assert_int_equal(n, relf_count(&r, &re));
	regfree(&re);
	u_readelf_free(&r);
	funcs__free(&list);
}

static void test_all_like_readelf(void **state)
{
	(void)state;
	check_like_readelf(FIX_PIE, "");
	check_like_readelf(FIX_NOPIE, ".");
	check_like_readelf(FIX_LIB, "^fixture_|^fx_");
	check_like_readelf(FIX_LIB, "no_such_function");
}

/* libc (no .symtab on Debian: .dynsym only), through a library name. */
static void test_libc(void **state)
{
	struct binaries libc = { 0 };
	struct funcs list;

	(void)state;
	assert_int_equal(binaries__resolve("libc", NULL, &libc), 0);
	check_like_readelf(libc.v[0].path, "^mem");
	check_like_readelf(libc.v[0].path, "^(malloc|free)$");
	check_like_readelf(libc.v[0].path, "");
	list = match(libc.v[0].path, "^malloc$");
	only(&list, "malloc");
	funcs__free(&list);
	binaries__free(&libc);
}

/* C++: matched and named by the demangled name, with or without parameters. */
static void test_cxx(void **state)
{
	struct funcs list = match(FIX_CXX, "^flamefix::eval$");

	(void)state;
	assert_int_equal(list.n, 2);
	assert_string_equal(list.v[0].name, "flamefix::eval(int)");
	assert_string_equal(list.v[0].sym, "_ZN8flamefix4evalEi");
	assert_string_equal(list.v[1].name, "flamefix::eval(char const*)");
	assert_string_equal(list.v[1].sym, "_ZN8flamefix4evalEPKc");
	funcs__free(&list);
	list = match(FIX_CXX, "^flamefix::eval\\(int\\)$");
	only(&list, "flamefix::eval(int)");
	funcs__free(&list);
	list = match(FIX_CXX, "Parser::parse_expr");
	only(&list, "flamefix::Parser::parse_expr(int) const");
	funcs__free(&list);
	list = match(FIX_CXX, "twice<int>");
	only(&list, "int flamefix::twice<int>(int)");
	funcs__free(&list);
	list = match(FIX_CXX, "^cxxfix_plain$");
	assert_string_equal(only(&list, "cxxfix_plain")->sym, "cxxfix_plain");
	funcs__free(&list);
	/* the mangled form is not what is matched */
	list = match(FIX_CXX, "_ZN8flamefix");
	assert_int_equal(list.n, 0);
	funcs__free(&list);
}

/* One file under two paths is read once, its functions listed once. */
static void test_same_file_two_paths(void **state)
{
	char dir[] = "/tmp/test_funcs.XXXXXX", link[64];
	struct target_binary e[2] = { { FIX_PIE, FIX_PIE, 0, 0 }, { link, link, 1, 1 } };
	struct binaries b = { e, 2 };
	struct funcs list = { 0 };
	regex_t re = compile("^fixture_(alpha|beta)$");

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/alias", dir);
	assert_int_equal(symlink(FIX_PIE, link), 0);
	assert_int_equal(funcs__match(&list, &b, &(struct funcs_query){ .re = &re }), 0);
	assert_int_equal(list.n, 2);
	assert_int_equal(list.bins.n, 1);
	assert_string_equal(list.bins.v[0].path, FIX_PIE);
	funcs__free(&list);
	regfree(&re);
	unlink(link);
	rmdir(dir);
}

/* Several -f accumulate into one sorted list, each function once. */
static void test_accumulate(void **state)
{
	struct binaries b = { 0 };
	struct funcs list = { 0 };
	regex_t alpha = compile("^fixture_alpha$"), both = compile("^fixture_(alpha|beta)$");

	(void)state;
	assert_int_equal(binaries__add_path(&b, FIX_LIB), 0);
	assert_int_equal(binaries__add_path(&b, FIX_PIE), 0);
	assert_int_equal(funcs__match(&list, &b, &(struct funcs_query){ .re = &alpha }), 0);
	assert_int_equal(list.n, 2);
	assert_int_equal(funcs__match(&list, &b, &(struct funcs_query){ .re = &both }), 0);
	assert_int_equal(list.n, 4);
	assert_int_equal(list.bins.n, 2);
	for (size_t i = 0; i < list.n; i++) {
		const struct func *f = &list.v[i];

		assert_int_equal(f->bin, i / 2);
		assert_string_equal(f->name, i % 2 ? "fixture_beta" : "fixture_alpha");
		if (i % 2)
			assert_true(f->vaddr > list.v[i - 1].vaddr);
	}
	assert_string_equal(list.bins.v[0].path, b.v[0].path);
	funcs__free(&list);
	binaries__free(&b);
	regfree(&alpha);
	regfree(&both);
}

static void test_unreadable(void **state)
{
	struct target_binary e[3] = { { FIX_PIE, FIX_PIE, 0, 0 },
				      { "/etc/passwd", "/etc/passwd", 1, 1 },
				      { "/nonexistent", "/nonexistent", 2, 2 } };
	struct binaries b = { e, 2 };
	struct funcs list = { 0 };
	regex_t re = compile("fixture");
	struct funcs_query q = { .re = &re, .failed = 99 };

	(void)state;
	assert_int_equal(funcs__match(&list, &b, &q), -ENOEXEC);
	assert_int_equal(q.failed, 1);
	b.v = e + 2;
	b.n = 1;
	assert_int_equal(funcs__match(&list, &b, &q), -ENOENT);
	assert_int_equal(q.failed, 0);
	funcs__free(&list);
	regfree(&re);
}

static char *print_to_string(const struct funcs *list)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(funcs__print(list, f), 0);
	fclose(f);
	return text;
}

static void test_print(void **state)
{
	struct funcs list = match(FIX_PIE, "^fixture_(alpha|beta)$");
	char *real = realpath(FIX_PIE, NULL), *want, *got;

	(void)state;
	assert_true(asprintf(&want, "%s:fixture_alpha\n%s:fixture_beta\n", real, real) > 0);
	got = print_to_string(&list);
	assert_string_equal(got, want);
	free(got);
	/* a name cannot break the line format */
	free(list.v[1].name);
	list.v[1].name = strdup("bad\nname\x7f");
	got = print_to_string(&list);
	assert_non_null(strstr(got, ":bad?name?\n"));
	free(got);
	free(want);
	free(real);
	funcs__free(&list);
	list = match(FIX_PIE, "no_such_function");
	got = print_to_string(&list);
	assert_string_equal(got, "");
	free(got);
	funcs__free(&list);
}

static const struct func *find_name(const struct funcs *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (!strcmp(list->v[i].name, name))
			return &list->v[i];
	fail_msg("no function named '%s'", name);
	return NULL;
}

static struct funcs match_libc(const char *regex)
{
	struct binaries libc = { 0 };
	struct funcs list;

	assert_int_equal(binaries__resolve("libc", NULL, &libc), 0);
	list = match(libc.v[0].path, regex);
	binaries__free(&libc);
	return list;
}

/* Issue 13: -l 'libc:^mem' printed __libc_memalign and __mempcpy (aliases
 * of names that match) and memcpy twice (two symbol versions). */
static void test_libc_names_as_matched(void **state)
{
	struct funcs list = match_libc("^mem");

	(void)state;
	check_names(&list, "^mem");
	find_name(&list, "memalign");
	find_name(&list, "mempcpy");
	find_name(&list, "memcpy");
	assert_true(find_name(&list, "memcpy@GLIBC_2.2.5")->how == IFUNC_NOT_FOUND);
	funcs__free(&list);
	list = match_libc("^memcpy$");
	only(&list, "memcpy");
	funcs__free(&list);
	list = match_libc("^memcpy@GLIBC_2\\.2\\.5$");
	only(&list, "memcpy@GLIBC_2.2.5");
	funcs__free(&list);
	list = match_libc("^__libc_memalign$");
	only(&list, "__libc_memalign");
	funcs__free(&list);
	list = match_libc("");
	check_names(&list, "");
	funcs__free(&list);
}

/* Two versions of one name: the default one plain, the other with its
 * version; from .dynsym's versions or from .symtab's names alike. */
static void check_versions(const char *path)
{
	struct funcs list = match(path, "^fixture_ver");
	const struct func *old, *cur;

	assert_int_equal(list.n, 2);
	old = find_name(&list, "fixture_ver@NAMEFIX_1");
	cur = find_name(&list, "fixture_ver");
	assert_true(old->vaddr != cur->vaddr);
	funcs__free(&list);
	list = match(path, "^fixture_ver$");
	only(&list, "fixture_ver");
	funcs__free(&list);
	list = match(path, "fixture_ver@NAMEFIX_1");
	only(&list, "fixture_ver@NAMEFIX_1");
	funcs__free(&list);
}

static void test_versions(void **state)
{
	(void)state;
	check_versions(FIX_NAMES);
	check_versions(FIX_NAMES_STRIPPED);
}

/* Functions that would print alike carry their addresses; a regex may
 * leave the address out, an exact name selects the one. */
static void check_shared(const char *regex, const char *bare, size_t want)
{
	struct funcs list = match(FIX_NAMES, regex), one;
	char *name;

	assert_int_equal(list.n, want);
	for (size_t i = 0; i < list.n; i++) {
		assert_true(asprintf(&name, "%s@%#" PRIx64, bare, list.v[i].vaddr) > 0);
		assert_string_equal(list.v[i].name, name);
		one = match(FIX_NAMES, name);
		assert_true(only(&one, name)->vaddr == list.v[i].vaddr);
		funcs__free(&one);
		free(name);
	}
	funcs__free(&list);
	/* the bare name is the exact name of them all */
	list = match(FIX_NAMES, bare);
	assert_int_equal(list.n, want);
	funcs__free(&list);
}

static void test_shared_names(void **state)
{
	(void)state;
	check_shared("^dup_name$", "dup_name(int)", 2);
	check_shared("anon_dup", "(anonymous namespace)::anon_dup(int)", 2);
	check_shared("^Shape::~Shape$", "Shape::~Shape()", 2);
}

/* A REGEX that is exactly a name as -l prints it selects that function,
 * even when it holds regex operators; beside what it selects as a regex,
 * like grep -E. */
static void test_exact_names(void **state)
{
	struct binaries b = bins_of(FIX_NAMES);
	struct funcs list = { 0 };
	regex_t re = compile("Shape::area() const");
	struct funcs_query q = { .re = &re, .text = "Shape::area() const" };

	(void)state;
	assert_int_equal(funcs__match(&list, &b, &q), 0);
	assert_int_equal(q.matched, 1);
	only(&list, "Shape::area() const");
	funcs__free(&list);
	regfree(&re);
	binaries__free(&b);
	/* unanchored: malloc_trim too, as grep -E would */
	list = match_libc("malloc");
	assert_true(list.n > 1);
	find_name(&list, "malloc");
	find_name(&list, "malloc_trim");
	check_names(&list, "malloc");
	funcs__free(&list);
	list = match_libc("^malloc$");
	only(&list, "malloc");
	funcs__free(&list);
}

/* gcc's .cold part is a name of its own: ^with_cold$ leaves it out. */
static void test_cold_part(void **state)
{
	struct funcs list = match(FIX_NAMES, "^with_cold$");

	(void)state;
	only(&list, "with_cold(int)");
	funcs__free(&list);
	list = match(FIX_NAMES, "^with_cold");
	assert_int_equal(list.n, 2);
	find_name(&list, "with_cold(int) [clone .cold]");
	funcs__free(&list);
	list = match(FIX_NAMES, "with_cold(int) [clone .cold]");
	only(&list, "with_cold(int) [clone .cold]");
	funcs__free(&list);
}

/* An IFUNC of a file this process has not loaded: every implementation
 * its resolver can pick, under its name; its resolver's own name is the
 * resolver. -l prints it once. */
static void test_ifunc_candidates(void **state)
{
	struct funcs list = match(FIX_NAMES, "^fixture_pick$"), plain, fast;
	char *got;

	(void)state;
	plain = match(FIX_NAMES, "^fixture_pick_plain$");
	fast = match(FIX_NAMES, "^fixture_pick_fast$");
	assert_int_equal(list.n, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct func *f = &list.v[i], *impl = i ? &fast.v[0] : &plain.v[0];

		assert_string_equal(f->name, "fixture_pick");
		assert_int_equal(f->how, IFUNC_CANDIDATES);
		assert_false(f->ifunc);
		assert_string_equal(f->impl, impl->name);
		assert_true(f->vaddr == impl->vaddr && f->offset == impl->offset &&
			    f->size == impl->size);
	}
	got = print_to_string(&list);
	assert_non_null(strchr(got, '\n'));
	assert_string_equal(strchr(got, '\n'), "\n"); /* one line */
	free(got);
	funcs__free(&list);
	funcs__free(&plain);
	funcs__free(&fast);
	list = match(FIX_NAMES, "^resolve_fixture_pick$");
	assert_int_equal(only(&list, "resolve_fixture_pick")->how, IFUNC_NOT_FOUND);
	funcs__free(&list);
}

struct merge_note {
	char kept[64], dropped[64];
	size_t n;
};

static void note_merge(void *arg, const struct func *kept, const struct func *dropped)
{
	struct merge_note *m = arg;

	snprintf(m->kept, sizeof(m->kept), "%s", kept->name);
	snprintf(m->dropped, sizeof(m->dropped), "%s", dropped->name);
	m->n++;
}

/* libc's memcpy, in this process's libc: the implementation our dynamic
 * linker picked, which memmove runs too; one probe for both. */
static void test_ifunc_chosen(void **state)
{
	struct funcs list = match_libc("^memcpy$");
	struct merge_note m = { 0 };
	const struct func *f;

	(void)state;
	f = only(&list, "memcpy");
	assert_int_equal(f->how, IFUNC_CHOSEN);
	assert_true(f->vaddr != f->sym_vaddr && f->size > 0);
	assert_non_null(f->shared);
	assert_non_null(strstr(f->shared, "memmove"));
	funcs__free(&list);
	list = match_libc("^mem(cpy|move)$");
	assert_int_equal(list.n, 2);
	funcs__merge_code(&list, note_merge, &m);
	assert_int_equal(list.n, 1);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.kept, "memcpy");
	assert_string_equal(m.dropped, "memmove");
	funcs__free(&list);
	/* libc's time() runs the vDSO's code: nothing in libc to probe */
	list = match_libc("^time$");
	f = only(&list, "time");
	assert_int_equal(f->how, IFUNC_ELSEWHERE);
	assert_true(f->ifunc);
	assert_non_null(strstr(f->impl, "vdso"));
	funcs__free(&list);
}

/* A copy of libc at another inode is not the one this process runs: its
 * memcpy is traced in every candidate, and our pick is among them. */
static void test_ifunc_copy(void **state)
{
	char dir[] = "/tmp/test_funcs.XXXXXX", copy[64];
	struct funcs mine = match_libc("^memcpy$"), theirs;
	bool found = false;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/libc.so.6", dir);
	u_copy_file(mine.bins.v[0].open_path, copy);
	theirs = match(copy, "^memcpy$");
	assert_true(theirs.n > 1);
	for (size_t i = 0; i < theirs.n; i++) {
		assert_int_equal(theirs.v[i].how, IFUNC_CANDIDATES);
		assert_string_equal(theirs.v[i].name, "memcpy");
		assert_true(theirs.v[i].size > 0);
		found |= theirs.v[i].offset == mine.v[0].offset;
	}
	assert_true(found);
	funcs__free(&mine);
	funcs__free(&theirs);
	unlink(copy);
	rmdir(dir);
}

/* `-l` for a live process: its executable and libraries. */
static void test_self_process(void **state)
{
	struct binaries self = { 0 };
	struct funcs list = { 0 };
	regex_t re = compile("^(test_self_process|malloc)$");

	(void)state;
	assert_int_equal(binaries__of_pid(getpid(), &self), 0);
	assert_int_equal(funcs__match(&list, &self, &(struct funcs_query){ .re = &re }), 0);
	/* this test, libc's malloc, and ASan's interceptor */
	assert_true(list.n >= 2);
	assert_string_equal(list.v[0].name, "test_self_process");
	assert_string_equal(list.bins.v[0].path, self.v[0].path);
	funcs__free(&list);
	binaries__free(&self);
	regfree(&re);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_spec),
		cmocka_unit_test(test_alpha_offset),
		cmocka_unit_test(test_aliases_once),
		cmocka_unit_test(test_all_like_readelf),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_same_file_two_paths),
		cmocka_unit_test(test_accumulate),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_self_process),
		cmocka_unit_test(test_libc_names_as_matched),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_shared_names),
		cmocka_unit_test(test_exact_names),
		cmocka_unit_test(test_cold_part),
		cmocka_unit_test(test_ifunc_candidates),
		cmocka_unit_test(test_ifunc_chosen),
		cmocka_unit_test(test_ifunc_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
