// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks of code without frame pointers, unwound in the kernel from
 * the binaries' unwind tables (--unwind auto, the default, and dwarf), next
 * to frame pointers (--unwind fp), which these programs defeat:
 *  - cpu_tree built by gcc -O2 without frame pointers: nearly every sample
 *    reaches main, and the branches keep their 2:1 ratio;
 *  - leafy built by gcc -O2 with frame pointers, a third of its time in a
 *    leaf without a frame: that time is credited to the leaf's caller;
 *  - Debian's python3 loading libbz2 after the capture began: the new
 *    mapping is found and unwound through;
 *  - uprobe mode's --full-stack on the cpu_tree build without frame
 *    pointers;
 *  - plt_calls, a tenth of its time in the PLT stub abs@plt, whose CFA is
 *    a DWARF expression: those samples are named so and reach main
 *    through plt_loop, as the others do;
 *  - cpu_tree and a copy of it (another inode, as a container's copy of a
 *    library is) at once: one table serves both, by build-id.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct unwind_counts {
	unsigned long long tables, mixed, truncated, early;
};

/* "flamebpf: user stacks: N by unwind tables, N by tables and frame
 * pointers, N truncated, N by frame pointers before ..." */
static struct unwind_counts must_unwind_counts(const struct h_result *r)
{
	struct unwind_counts c;
	char line[512];

	if (!h_find_line(r->err, "flamebpf: user stacks: ", line, sizeof(line)) ||
	    sscanf(line,
		   "flamebpf: user stacks: %llu by unwind tables, %llu by tables and frame "
		   "pointers, %llu truncated, %llu",
		   &c.tables, &c.mixed, &c.truncated, &c.early) != 4) {
		h_dump(r, "flamebpf");
		fail_msg("no 'user stacks:' line in the summary");
	}
	return c;
}

static void profile(const char *unwind, const char *workload, const char *seconds, const char *out,
		    struct h_folded *f, struct h_result *r)
{
	h_run_folded(r, 60, out, f,
		     H_ARGV(h_flamebpf(), "--sample", "499hz", "--unwind", unwind, "-o", out, "--",
			    h_workload(workload), seconds));
	if (!f->n)
		fail_msg("'%s' has no samples", out);
}

static bool user_stack_of(const char *stack, const void *comm)
{
	char root[64];
	const char *first = strchr(stack, ';');

	if (strcmp(h_root(stack, root, sizeof(root)), comm) || !first)
		return false;
	first++;
	return !h_is_kernel_frame(first, strcspn(first, ";"));
}

static bool reaches_main(const char *stack, const void *comm)
{
	return user_stack_of(stack, comm) && h_has_frame(stack, "main");
}

/* The share (percent) of the samples of comm with a user stack that reach main. */
static double main_share(const struct h_folded *f, const char *comm)
{
	unsigned long long all = h_sum(f, user_stack_of, comm);

	return all ? 100.0 * h_sum(f, reaches_main, comm) / all : 0;
}

static void test_no_frame_pointers(void **state)
{
	const char *modes[] = { "auto", "dwarf" };

	(void)state;
	require_bpf();
	for (size_t i = 0; i < 2; i++) {
		struct h_folded f;
		struct h_result r;
		struct unwind_counts c;
		unsigned long long a, b;
		double share;

		profile(modes[i], "nofp/cpu_tree", "2", h_path("nofp.folded"), &f, &r);
		share = main_share(&f, "cpu_tree");
		a = h_sum_frame(&f, "tree_a");
		b = h_sum_frame(&f, "tree_b");
		c = must_unwind_counts(&r);
		print_message("--unwind %s: %.1f%% of %llu samples reach main; tree_a %llu, "
			      "tree_b %llu; stacks by tables %llu, mixed %llu, truncated %llu, "
			      "early %llu\n",
			      modes[i], share, f.total, a, b, c.tables, c.mixed, c.truncated,
			      c.early);
		if (share < 95) {
			h_folded_dump(&f, 20);
			fail_msg("only %.1f%% of the samples reach main", share);
		}
		assert_true(b > 0);
		assert_in_range(a * 100 / b, 150, 270);
		assert_true(c.tables > (c.mixed + c.truncated + c.early) * 10);
		h_folded_free(&f);
		h_result_free(&r);
	}
}

/* What the tables are for: frame pointers lose main here. */
static void test_frame_pointers_lose_main(void **state)
{
	struct h_folded f;
	struct h_result r;
	double share;

	(void)state;
	require_bpf();
	profile("fp", "nofp/cpu_tree", "1", h_path("nofp-fp.folded"), &f, &r);
	share = main_share(&f, "cpu_tree");
	print_message("--unwind fp: %.1f%% of %llu samples reach main\n", share, f.total);
	assert_true(share < 50);
	assert_non_null(strstr(r.err, "by frame pointers (--unwind fp)"));
	h_folded_free(&f);
	h_result_free(&r);
}

static bool leafy_pred(const char *stack, const void *arg)
{
	return user_stack_of(stack, "leafy") && (!arg || h_has_frame(stack, arg));
}

static bool leaf_under_outer_a(const char *stack, const void *arg)
{
	(void)arg;
	return user_stack_of(stack, "leafy") && h_has_seq(stack, "outer_a;leaf");
}

/* outer_a's share (percent) of leafy's samples: really 30. The stacks
 * taken before the tables were loaded (the summary's early ones) into
 * *early, when early is not NULL (not with --unwind fp). */
static double outer_a_share(const char *unwind, struct h_folded *f, unsigned long long *early)
{
	unsigned long long all, none = 0;
	struct h_result r;
	double share;

	profile(unwind, "gccfp/leafy", "2", h_path("leafy.folded"), f, &r);
	if (early)
		*early = must_unwind_counts(&r).early;
	h_result_free(&r);
	all = h_sum(f, leafy_pred, NULL);
	share = all ? 100.0 * h_sum(f, leafy_pred, "outer_a") / all : 0;
	print_message("--unwind %s: outer_a %.1f%%, leaf %llu, outer_b %llu of %llu samples, "
		      "%llu early\n",
		      unwind, share, h_sum(f, leafy_pred, "leaf"), h_sum(f, leafy_pred, "outer_b"),
		      all, early ? *early : none);
	return share;
}

static void test_frameless_leaf(void **state)
{
	unsigned long long early;
	struct h_folded f;
	double share;

	(void)state;
	require_bpf();
	share = outer_a_share("auto", &f, &early);
	if (share < 22 || share > 38) {
		h_folded_dump(&f, 20);
		fail_msg("outer_a has %.1f%% of the samples, not about 30%%", share);
	}
	/* every sample in leaf is under outer_a, but for those taken before
	 * the tables were loaded (by frame pointers): as many as the summary
	 * says, which a slow host makes more than 2% (CI: 9 or more of 305).
	 * Counted as leaf's less those under outer_a: outer_a's own samples
	 * had made "leaf's less outer_a's" wrap below 0 (a flake) */
	if (h_sum(&f, leafy_pred, "leaf") - h_sum(&f, leaf_under_outer_a, NULL) >
	    early + h_sum(&f, leafy_pred, "leaf") / 50 + 2) {
		h_folded_dump(&f, 20);
		fail_msg("%llu of leaf's %llu samples not under outer_a",
			 h_sum(&f, leafy_pred, "leaf") - h_sum(&f, leaf_under_outer_a, NULL),
			 h_sum(&f, leafy_pred, "leaf"));
	}
	h_folded_free(&f);
	/* a frame-pointer walk skips outer_a: the error the tables fix */
	share = outer_a_share("fp", &f, NULL);
	assert_true(share < 10);
	h_folded_free(&f);
}

static bool bz2_pred(const char *stack, const void *arg)
{
	return strstr(stack, ";BZ2_") && (!arg || h_has_frame(stack, arg));
}

/* From the -v line "... ; P processes; N fresh looks at mappings". */
static unsigned long long fresh_looks(const struct h_result *r)
{
	const char *end = strstr(r->err, " fresh looks at mappings"), *p = end;

	if (!end) {
		h_dump(r, "flamebpf");
		fail_msg("no 'fresh looks' in the -v summary");
	}
	while (p > r->err && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtoull(p, NULL, 10);
}

/* A library mapped after the capture began (python imports bz2 late). */
static void test_mapped_later(void **state)
{
	static const char script[] = "import time\n"
				     "time.sleep(0.5)\n"
				     "import bz2\n"
				     "data = bytes(range(256)) * 4000\n"
				     "t = time.time()\n"
				     "while time.time() - t < 2: bz2.compress(data)\n";
	const char *out = h_path("bz2.folded");
	struct h_folded f;
	struct h_result r;
	unsigned long long all, rooted;

	(void)state;
	require_bpf();
	if (access("/usr/bin/python3", X_OK) ||
	    access("/usr/lib/python3.11/lib-dynload/_bz2.cpython-311-x86_64-linux-gnu.so", R_OK)) {
		print_message("SKIP: Debian's python3.11 with its _bz2 module is not installed\n");
		skip();
	}
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--sample", "499hz", "-v", "-o", out, "--",
			    "/usr/bin/python3", "-c", script));
	all = h_sum(&f, bz2_pred, NULL);
	rooted = h_sum(&f, bz2_pred, "Py_BytesMain");
	print_message("%llu of %llu samples in libbz2 reach Py_BytesMain (%llu fresh looks at "
		      "mappings)\n",
		      rooted, all, fresh_looks(&r));
	if (all < 200 || rooted * 100 < all * 95) {
		h_dump(&r, "flamebpf");
		h_folded_dump(&f, 20);
		fail_msg("libbz2's stacks are not unwound through");
	}
	/* the tables were loaded before bz2 was: the kernel's mmap record of
	 * it, or the BPF side asking again when a stack fell outside them,
	 * rebuilt them, whichever came first (a race: no count is asserted) */
	h_folded_free(&f);
	h_result_free(&r);
}

static bool burn_under_main(const char *stack, const void *arg)
{
	(void)arg;
	return h_has_seq(stack, "main;tree_a;burn") || h_has_seq(stack, "main;tree_b;tree_c;burn");
}

/* Uprobe mode: each call of burn under its real user stack, unwound by the
 * same tables, the first calls too: the command is held at its exec until
 * its tables are built (before, the calls of its first 30 ms were cut: 97
 * to 156 of a C++ program's first 1000; the summary's "early" and
 * "truncated" are none). */
static void test_full_stack(void **state)
{
	const char *out = h_path("full.folded");
	unsigned long long under, early;
	struct h_folded f;
	struct h_result r;
	struct unwind_counts c;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "^burn$", "--full-stack", "-o", out, "--",
			    h_workload("nofp/cpu_tree"), "1"));
	c = must_unwind_counts(&r);
	under = h_sum(&f, burn_under_main, NULL);
	early = c.early ? h_sum_frame(&f, "burn") - under : 0;
	print_message("%.1f%% of burn's time under main (%.1f%% but the early calls'); stacks "
		      "by tables %llu, early %llu, truncated %llu\n",
		      100.0 * under / f.total, 100.0 * under / (f.total - early), c.tables, c.early,
		      c.truncated);
	assert_true(c.early == 0 && c.truncated == 0);
	if (under != f.total) {
		h_folded_dump(&f, 10);
		fail_msg("burn's calls are not under their real stacks");
	}
	assert_true(c.tables > 0);
	h_folded_free(&f);
	h_result_free(&r);
}

/* A sample in the signal handler's work under the code it interrupted. */
static bool through_signal(const char *stack, const void *arg)
{
	(void)arg;
	return h_has_seq(stack, "main;spin_outer") &&
	       h_has_seq(stack, "__restore_rt;on_alarm;handler_work");
}

/* A signal handler's samples go on through the kernel's signal frame to
 * what it interrupted (the trampoline's row says so: glibc's CFI for it is
 * expressions into that frame), the trampoline named __restore_rt though
 * the C library is stripped; they had ended there, as
 * "libc.so.6+0x3c050;on_alarm;handler_work" (or skipped spin_inner by
 * frame pointers). */
static void test_signal_frame(void **state)
{
	unsigned long long work, through;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	profile("auto", "sighandler", "2", h_path("sig.folded"), &f, &r);
	h_result_free(&r);
	work = h_sum_frame(&f, "handler_work");
	through = h_sum(&f, through_signal, NULL);
	print_message("handler_work: %llu of %llu samples, %llu under main through the signal "
		      "frame\n",
		      work, f.total, through);
	if (work * 100 < f.total * 5 || through * 100 < work * 95) {
		h_folded_dump(&f, 20);
		fail_msg("%llu of handler_work's %llu samples under what it interrupted", through,
			 work);
	}
	h_folded_free(&f);
}

static bool leaf_is(const char *stack, const void *leaf)
{
	size_t n = strlen(stack), k = strlen(leaf);

	return user_stack_of(stack, "plt_calls") && n > k && stack[n - k - 1] == ';' &&
	       strcmp(stack + n - k, leaf) == 0;
}

static bool plt_under_main(const char *stack, const void *arg)
{
	return leaf_is(stack, arg) && h_has_seq(stack, "main;plt_loop;abs@plt");
}

static bool other_user(const char *stack, const void *arg)
{
	return user_stack_of(stack, "plt_calls") && !leaf_is(stack, arg);
}

static bool other_under_main(const char *stack, const void *arg)
{
	return other_user(stack, arg) && h_has_seq(stack, "main;plt_loop");
}

/* How many samples of a stub it takes to judge them: 2% of them. */
#define PLT_SHARE_MIN 50

/* Samples in a PLT stub: named after the stub's function, and unwound to
 * main through its caller (the stub's CFA is an expression; a frame-pointer
 * step from it would skip plt_loop) as often as the rest. A stub is an
 * instruction or two: how many samples land there is the host's timer
 * skid, 10% of them one hour and 0.2-1.2% another on the same VM, so a
 * run with too few is run again, up to three times, and the last is
 * judged if it has any. */
static void test_plt_stub(void **state)
{
	const char *modes[] = { "auto", "dwarf" };

	(void)state;
	require_bpf();
	for (size_t i = 0; i < 2; i++) {
		unsigned long long plt, plt_main, rest, rest_main;
		struct h_folded f;
		struct h_result r;

		for (int run = 1;; run++) {
			profile(modes[i], "plt_calls", "2", h_path("plt.folded"), &f, &r);
			plt = h_sum(&f, leaf_is, "abs@plt");
			if (run == 3 || plt * PLT_SHARE_MIN >= f.total)
				break;
			print_message("--unwind %s: %llu of %llu samples in abs@plt, too few to "
				      "judge: again\n",
				      modes[i], plt, f.total);
			h_folded_free(&f);
			h_result_free(&r);
		}
		plt_main = h_sum(&f, plt_under_main, "abs@plt");
		rest = h_sum(&f, other_user, "abs@plt");
		rest_main = h_sum(&f, other_under_main, "abs@plt");
		print_message("--unwind %s: %llu of %llu samples in abs@plt, %.1f%% of them "
			      "under main;plt_loop, %.1f%% of the others\n",
			      modes[i], plt, f.total, plt ? 100.0 * plt_main / plt : 0,
			      rest ? 100.0 * rest_main / rest : 0);
		if (!plt || plt_main * 100 < plt * 95 ||
		    plt_main * 100 * rest < rest_main * plt * 97) {
			h_folded_dump(&f, 20);
			fail_msg("abs@plt's samples are too few or cut short");
		}
		assert_int_equal(h_sum_frame(&f, "_init"), 0);
		h_folded_free(&f);
		h_result_free(&r);
	}
}

/* Copies from to to (a new inode). */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	if (in < 0 || out < 0)
		fail_msg("cannot copy '%s' to '%s': %s", from, to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/* The same binary under two inodes: one table, and both reach main. */
static void test_shared_by_build_id(void **state)
{
	const char *copy = h_path("cpu_tree_copy"), *out = h_path("copy.folded");
	char cmd[1024], line[512];
	const char *built;
	double orig_share, copy_share;
	unsigned long shared = 0;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	copy_file(h_workload("nofp/cpu_tree"), copy);
	snprintf(cmd, sizeof(cmd), "'%s' 2 & '%s' 2; wait", h_workload("nofp/cpu_tree"), copy);
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-v", "--sample", "499hz", "--unwind", "dwarf", "-o", out,
			    "--", "sh", "-c", cmd));
	orig_share = main_share(&f, "cpu_tree");
	copy_share = main_share(&f, "cpu_tree_copy");
	built = h_find_line(r.err, "flamebpf: unwind tables: ", line, sizeof(line))
			? strstr(line, "built in")
			: NULL;
	if (!built || sscanf(built, "built in %*f ms; %lu copies shared", &shared) != 1) {
		h_dump(&r, "flamebpf");
		fail_msg("no 'unwind tables:' line with the copies shared in the summary");
	}
	print_message("%.1f%% / %.1f%% of the original's / the copy's samples reach main; "
		      "%lu copies shared\n",
		      orig_share, copy_share, shared);
	assert_true(orig_share >= 95 && copy_share >= 95);
	assert_int_equal(shared, 1);
	h_folded_free(&f);
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_no_frame_pointers, h_test_teardown),
		cmocka_unit_test_teardown(test_frame_pointers_lose_main, h_test_teardown),
		cmocka_unit_test_teardown(test_frameless_leaf, h_test_teardown),
		cmocka_unit_test_teardown(test_mapped_later, h_test_teardown),
		cmocka_unit_test_teardown(test_full_stack, h_test_teardown),
		cmocka_unit_test_teardown(test_signal_frame, h_test_teardown),
		cmocka_unit_test_teardown(test_plt_stub, h_test_teardown),
		cmocka_unit_test_teardown(test_shared_by_build_id, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("unwind", tests, h_group_setup, h_group_teardown);
}
