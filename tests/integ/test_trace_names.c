// SPDX-License-Identifier: GPL-2.0
/*
 * The names -l prints and -f takes, under real BPF: libc's memcpy (an IFUNC)
 * traced where this CPU runs it and counted exactly; an IFUNC of the
 * program (every implementation its resolver can pick); -l lines fed back
 * to -f, as printed and regex-escaped, each tracing its one function.
 */
#include "harness.h"

#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The workload's absolute path (a BINARY names it so). */
static const char *abs_workload(const char *name)
{
	static char path[PATH_MAX];

	if (!realpath(h_workload(name), path))
		fail_msg("no workload '%s': run 'make %s'", name, h_workload(name));
	return path;
}

static void must_say(const struct h_result *r, const char *what)
{
	if (strstr(r->err, what))
		return;
	h_dump(r, "flamebpf");
	fail_msg("stderr does not say '%s'", what);
}

/* Runs flamebpf -f SPEC -o OUT -- copier MODE N; the summary's calls.
 * A run with no call at all exits 1. */
static unsigned long long copier_calls(const char *spec, const char *mode, const char *n,
				       struct h_result *r)
{
	const char *out = h_path("names.folded");
	unsigned long long calls;

	assert_int_equal(h_run(r, 60,
			       H_ARGV(h_flamebpf(), "-f", spec, "-o", out, "--",
				      h_workload("copier"), mode, n)),
			 0);
	calls = h_must_trace_summary(r).calls;
	if (r->status != (calls ? 0 : 1)) {
		h_dump(r, "flamebpf");
		fail_msg("exit status %d with %llu calls", r->status, calls);
	}
	return calls;
}

/* Every stack of OUT is exactly STACK. */
static void only_stack_in(const char *out, const char *stack)
{
	struct h_folded f;

	h_folded_must_load(out, &f);
	for (size_t i = 0; i < f.n; i++) {
		if (strcmp(f.lines[i].stack, stack)) {
			h_folded_dump(&f, 20);
			fail_msg("a stack other than '%s'", stack);
		}
	}
	h_folded_free(&f);
}

static void has_stack_in(const char *out, const char *stack)
{
	struct h_folded f;

	h_folded_must_load(out, &f);
	if (!h_count_of(&f, stack)) {
		h_folded_dump(&f, 20);
		fail_msg("no stack '%s'", stack);
	}
	h_folded_free(&f);
}

static void only_stack(const char *stack)
{
	only_stack_in(h_path("names.folded"), stack);
}

/* -f 'libc:^memcpy$' counts exactly the memcpy calls the program makes,
 * under the name memcpy, in the implementation this CPU runs. */
static void test_memcpy_exact(void **state)
{
	struct h_result r;
	unsigned long long base, calls;

	(void)state;
	require_bpf();
	base = copier_calls("libc:^memcpy$", "memcpy", "0", &r);
	h_result_free(&r);
	calls = copier_calls("libc:^memcpy$", "memcpy", "10000", &r);
	print_message("memcpy calls: %llu without the loop, %llu with 10000 in it\n", base, calls);
	if (calls != base + 10000)
		fail_msg("%llu calls of memcpy, expected exactly %llu", calls, base + 10000);
	must_say(&r, "memcpy: an IFUNC; traced in ");
	must_say(&r, "which this CPU runs for it");
	assert_int_equal(h_must_trace_summary(&r).functions, 1);
	only_stack("copier;memcpy");
	h_result_free(&r);
}

/* glibc's memmove runs memcpy's implementation: one probe counts both,
 * and says so. */
static void test_memmove_counts_as_memcpy(void **state)
{
	struct h_result r;
	unsigned long long base, calls;

	(void)state;
	require_bpf();
	base = copier_calls("libc:^memcpy$", "memmove", "0", &r);
	h_result_free(&r);
	calls = copier_calls("libc:^memcpy$", "memmove", "10000", &r);
	must_say(&r, "memmove runs it too: those calls count as memcpy");
	if (strstr(r.err, "memmove runs it too") && calls != base + 10000)
		fail_msg("%llu calls, expected exactly %llu", calls, base + 10000);
	h_result_free(&r);
	calls = copier_calls("libc:^mem(cpy|move)$", "memmove", "10000", &r);
	must_say(&r, "memmove as memcpy");
	assert_int_equal(h_must_trace_summary(&r).functions, 1);
	assert_true(calls >= 10000);
	h_result_free(&r);
}

/* memcpy nests under the program's function that calls it. */
static void test_memcpy_nested(void **state)
{
	const char *out = h_path("nested.folded");
	struct h_result r;
	struct h_folded f;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "^copy_n$", "-f", "libc:^memcpy$", "-o", out, "--",
			    h_workload("copier"), "memcpy", "1000"));
	assert_true(h_count_of(&f, "copier;copy_n;memcpy") > 0);
	h_expect_calls(&r, 1 + 1000);
	h_folded_free(&f);
	h_result_free(&r);
}

/* An IFUNC of the program itself, which flamebpf has not loaded: every
 * implementation its resolver can pick is traced, as pick. */
static void test_own_ifunc(void **state)
{
	struct h_result r;
	unsigned long long calls;

	(void)state;
	require_bpf();
	calls = copier_calls("^pick$", "pick", "5000", &r);
	if (calls != 5000) {
		h_dump(&r, "flamebpf");
		fail_msg("%llu calls of pick, expected exactly 5000", calls);
	}
	must_say(&r, "pick: an IFUNC; which implementation this CPU runs is not known here");
	must_say(&r, "pick_fast, pick_plain");
	only_stack("copier;pick");
	h_result_free(&r);
}

/* The lines of `flamebpf -l SPEC`, each "BINARY:NAME" (out owns them). */
static size_t list_lines(const char *spec, struct h_result *r, char ***lines)
{
	size_t n = 0;
	char *save = NULL;

	assert_int_equal(h_run(r, 60, H_ARGV(h_flamebpf(), "-l", spec)), 0);
	if (r->status != 0) {
		h_dump(r, "flamebpf");
		fail_msg("-l '%s' exited %d", spec, r->status);
	}
	*lines = calloc(h_count_lines(r->out) + 1, sizeof(**lines));
	assert_non_null(*lines);
	for (char *l = strtok_r(r->out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		(*lines)[n++] = l;
	return n;
}

/* The name of an -l line: after the ':' that ends the binary's path. */
static const char *name_of(const char *line, const char *path)
{
	size_t len = strlen(path);

	if (strncmp(line, path, len) || line[len] != ':')
		fail_msg("'%s' is not a line of %s", line, path);
	return line + len + 1;
}

/* -l 'libc:^mem': every name matches ^mem as printed, none twice. */
static void test_list_names_match(void **state)
{
	struct h_result r;
	char **lines;
	regex_t re;
	size_t n;

	(void)state;
	n = list_lines("libc:^mem", &r, &lines);
	assert_true(n >= 10);
	assert_int_equal(regcomp(&re, "^[^:]*:mem", REG_EXTENDED | REG_NOSUB), 0);
	for (size_t i = 0; i < n; i++) {
		if (regexec(&re, lines[i], 0, NULL, 0))
			fail_msg("'%s' does not match ^mem", lines[i]);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(lines[i], lines[j]))
				fail_msg("'%s' twice", lines[i]);
	}
	regfree(&re);
	free(lines);
	h_result_free(&r);
}

/* Escapes NAME as an anchored POSIX ERE. */
static void escape(const char *name, char *buf, size_t len)
{
	size_t n = 0;

	buf[n++] = '^';
	for (; *name && n + 4 < len; name++) {
		if (strchr("\\^$.|?*+()[]{}", *name))
			buf[n++] = '\\';
		buf[n++] = *name;
	}
	buf[n++] = '$';
	buf[n] = '\0';
}

/* Feeds LINE back to -f for COMMAND: it traces that function (and, as an
 * unanchored regex, those whose names hold it), under that name (when
 * CALLED: the command calls it); its name regex-escaped and anchored
 * traces that one function alone. */
static void check_roundtrip(const char *line, const char *path, const char *const cmd[],
			    bool called)
{
	const char *out = h_path("roundtrip.folded"), *name = name_of(line, path);
	char spec[1024], esc[900], stack[600];
	const char *specs[2] = { line, spec };
	const char *comm = strrchr(cmd[0], '/') ? strrchr(cmd[0], '/') + 1 : cmd[0];
	struct h_result r;

	escape(name, esc, sizeof(esc));
	snprintf(spec, sizeof(spec), "%s:%s", path, esc);
	snprintf(stack, sizeof(stack), "%s;%s", comm, name);
	for (int k = 0; k < 2; k++) {
		const char *argv[16] = { h_flamebpf(), "-f", specs[k], "-o", out, "--" };
		struct h_trace_summary sum;
		size_t n = 6;

		for (size_t i = 0; cmd[i] && n < 15; i++)
			argv[n++] = cmd[i];
		assert_int_equal(h_run(&r, 60, argv), 0);
		sum = h_must_trace_summary(&r);
		print_message("-f '%s': %llu calls of %llu functions\n", specs[k], sum.calls,
			      sum.functions);
		if ((k ? sum.functions != 1 : !sum.functions) || (called && !sum.calls) ||
		    r.status != (sum.calls ? 0 : 1)) {
			h_dump(&r, "flamebpf");
			fail_msg("-f '%s' did not trace that function", specs[k]);
		}
		if (called && k)
			only_stack_in(out, stack);
		else if (called)
			has_stack_in(out, stack);
		h_result_free(&r);
	}
}

/* The line of lines[n] whose name is NAME. */
static const char *line_named(char **lines, size_t n, const char *path, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name_of(lines[i], path), name))
			return lines[i];
	fail_msg("-l printed no '%s'", name);
	return NULL;
}

/* flamebpf -l 'libc:^mem' | grep memcpy, each line back into -f. */
static void test_list_roundtrip_libc(void **state)
{
	const char *const cmd[] = { h_workload("copier"), "memcpy", "100", NULL };
	char path[PATH_MAX];
	struct h_result r;
	char **lines;
	size_t n;

	(void)state;
	require_bpf();
	n = list_lines("libc:^mem", &r, &lines);
	/* libc's names have no ':' */
	snprintf(path, sizeof(path), "%.*s", (int)(strrchr(lines[0], ':') - lines[0]), lines[0]);
	check_roundtrip(line_named(lines, n, path, "memcpy"), path, cmd, true);
	/* the old version, which the program does not call */
	check_roundtrip(line_named(lines, n, path, "memcpy@GLIBC_2.2.5"), path, cmd, false);
	free(lines);
	h_result_free(&r);
}

/* A C++ name with a parameter list: no regex, an exact name. */
static void test_list_roundtrip_cxx(void **state)
{
	const char *path = abs_workload("cxx_names");
	const char *const cmd[] = { path, "0.3", NULL };
	char spec[PATH_MAX + 16];
	struct h_result r;
	char **lines;
	size_t n;

	(void)state;
	require_bpf();
	snprintf(spec, sizeof(spec), "%s:spin", path);
	n = list_lines(spec, &r, &lines);
	assert_int_equal(n, 1);
	check_roundtrip(line_named(lines, n, path, "shapes::Widget::spin(int)"), path, cmd, true);
	free(lines);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_memcpy_exact, h_test_teardown),
		cmocka_unit_test_teardown(test_memmove_counts_as_memcpy, h_test_teardown),
		cmocka_unit_test_teardown(test_memcpy_nested, h_test_teardown),
		cmocka_unit_test_teardown(test_own_ifunc, h_test_teardown),
		cmocka_unit_test_teardown(test_list_names_match, h_test_teardown),
		cmocka_unit_test_teardown(test_list_roundtrip_libc, h_test_teardown),
		cmocka_unit_test_teardown(test_list_roundtrip_cxx, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("trace_names", tests, h_group_setup, h_group_teardown);
}
