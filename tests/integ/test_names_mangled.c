// SPDX-License-Identifier: GPL-2.0
/*
 * C++ and Rust names under real sampling: tests/workloads/cxx_names.cpp,
 * whose hot functions are a method and a function template in a namespace,
 * and tests/workloads/rust_names.rs, built with rustc's default (legacy)
 * mangling and with v0 (both only when rustc is installed), shown demangled,
 * and as the symbol table has them with --no-demangle.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What a workload's samples must show: each sample of COMM has one of the
 * frames HOT (exactly), and, unless NULL, the frame UNDER. */
struct want {
	const char *comm;
	const char *const *hot;
	const char *under;
};

static bool of_comm(const char *stack, const void *arg)
{
	const struct want *w = arg;
	size_t n = strlen(w->comm);

	return !strncmp(stack, w->comm, n) && (stack[n] == ';' || !stack[n]);
}

static bool has_hot(const char *stack, const void *arg)
{
	const struct want *w = arg;

	if (!of_comm(stack, w) || (w->under && !h_has_frame(stack, w->under)))
		return false;
	for (const char *const *h = w->hot; *h; h++)
		if (h_has_frame(stack, *h))
			return true;
	return false;
}

/* A frame of the stack (not its root) that starts with the prefix. */
static bool has_frame_prefix(const char *stack, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *f = strchr(stack, ';'); f; f = strchr(f, ';'))
		if (!strncmp(++f, prefix, n))
			return true;
	return false;
}

/* A sample of comm with a frame still mangled as C++ or Rust. */
static bool has_mangled(const char *stack, const void *arg)
{
	return of_comm(stack, arg) &&
	       (has_frame_prefix(stack, "_Z") || has_frame_prefix(stack, "_R"));
}

/* Samples BIN for 1 s (user stacks only) into F. */
static void sample(const char *bin, bool no_demangle, const char *name, struct h_folded *f)
{
	const char *out = h_path(name);

	if (no_demangle)
		h_run_folded(NULL, 30, out, f,
			     H_ARGV(h_flamebpf(), "--sample", "999hz", "-U", "--no-demangle", "-o",
				    out, "--", bin, "1"));
	else
		h_run_folded(
			NULL, 30, out, f,
			H_ARGV(h_flamebpf(), "--sample", "999hz", "-U", "-o", out, "--", bin, "1"));
}

/* At least 90% of the samples of w->comm, and 100 of them, show a hot frame. */
static void expect_hot(const struct h_folded *f, const struct want *w, const char *what)
{
	unsigned long long all = h_sum(f, of_comm, w), hot = h_sum(f, has_hot, w);

	print_message("%s: %llu of %llu samples of %s in %s or the other hot function%s%s\n", what,
		      hot, all, w->comm, w->hot[0], w->under ? " under " : "",
		      w->under ? w->under : "");
	if (all < 100 || hot * 100 < all * 90) {
		h_folded_dump(f, 20);
		fail_msg("%s: %llu of %llu samples show the hot functions", what, hot, all);
	}
}

static const char *const cxx_demangled[] = {
	"shapes::Widget::spin(int)",
	"unsigned long shapes::mix<unsigned long>(unsigned long, int)",
	NULL,
};
static const char *const cxx_mangled[] = { "_ZN6shapes6Widget4spinEi", "_ZN6shapes3mixImEET_S1_i",
					   NULL };

static void test_cxx_names(void **state)
{
	const struct want dm = { "cxx_names", cxx_demangled, "main" };
	const struct want raw = { "cxx_names", cxx_mangled, "main" };
	struct h_folded f;

	(void)state;
	require_bpf();
	sample(h_workload("cxx_names"), false, "cxx.folded", &f);
	expect_hot(&f, &dm, "demangled");
	assert_int_equal(h_sum(&f, has_mangled, &dm), 0);
	h_folded_free(&f);
	sample(h_workload("cxx_names"), true, "cxx-raw.folded", &f);
	expect_hot(&f, &raw, "--no-demangle");
	assert_int_equal(h_sum(&f, has_hot, &dm), 0);
	h_folded_free(&f);
}

/* Legacy names end in a hash ("::h0123456789abcdef"), which is dropped; v0
 * names show the generic arguments and the impl's type in angle brackets. */
static const char *const rust_legacy[] = { "rust_names::shapes::Widget::spin",
					   "rust_names::shapes::mix", NULL };
static const char *const rust_v0[] = { "<rust_names::shapes::Widget>::spin",
				       "rust_names::shapes::mix::<u64>", NULL };

/* Whether the Rust workload BIN was built (the Makefile needs rustc). */
static bool have_rust(const char *bin)
{
	if (!access(bin, X_OK))
		return true;
	print_message("SKIP: %s was not built: rustc is not installed (https://rustup.rs), or "
		      "run 'make %s'\n",
		      bin, bin);
	return false;
}

/* A sample of the Rust workload with a raw name of its own (prefix in arg). */
static bool has_raw_rust(const char *stack, const void *prefix)
{
	return !strncmp(stack, "rust_names;", 11) && has_frame_prefix(stack, prefix) &&
	       strstr(stack, "10rust_names6shapes");
}

static void rust_names(const char *bin, const char *const *hot, const char *raw_prefix)
{
	const struct want dm = { "rust_names", hot, "rust_names::run" };
	unsigned long long all, raw;
	struct h_folded f;

	sample(bin, false, "rust.folded", &f);
	expect_hot(&f, &dm, bin);
	assert_int_equal(h_sum(&f, has_mangled, &dm), 0);
	h_folded_free(&f);
	sample(bin, true, "rust-raw.folded", &f);
	all = h_sum(&f, of_comm, &dm);
	raw = h_sum(&f, has_raw_rust, raw_prefix);
	print_message("--no-demangle: %llu of %llu samples with a %s... frame\n", raw, all,
		      raw_prefix);
	if (raw * 100 < all * 90 || h_sum(&f, has_hot, &dm)) {
		h_folded_dump(&f, 20);
		fail_msg("%s: the names are not kept mangled", bin);
	}
	h_folded_free(&f);
}

static void test_rust_legacy_names(void **state)
{
	const char *bin = h_workload("rust_names");

	(void)state;
	require_bpf();
	if (!have_rust(bin))
		skip();
	rust_names(bin, rust_legacy, "_ZN");
}

static void test_rust_v0_names(void **state)
{
	const char *bin = h_workload("rust_v0/rust_names");

	(void)state;
	require_bpf();
	if (!have_rust(bin))
		skip();
	rust_names(bin, rust_v0, "_R");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_cxx_names, h_test_teardown),
		cmocka_unit_test_teardown(test_rust_legacy_names, h_test_teardown),
		cmocka_unit_test_teardown(test_rust_v0_names, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("names_mangled", tests, h_group_setup, h_group_teardown);
}
