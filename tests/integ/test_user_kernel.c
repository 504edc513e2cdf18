// SPDX-License-Identifier: GPL-2.0
/*
 * User and kernel frames, on a workload that lives in read(2)
 * (tests/workloads/syscalls.c): by default both, kernel frames ("_[k]")
 * above (right of) the user frames; -U only user frames; -K only kernel ones.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

enum kind { USER_ONLY, KERNEL_ONLY, BOTH };

static void profile_syscalls(const char *mode_opt, const char *out, struct h_folded *f)
{
	const char *const with_opt[] = { h_flamebpf(), "--sample", "499", mode_opt,
					 "-o",	       out,	   "--",  h_workload("syscalls"),
					 "1",	       NULL };
	const char *const plain[] = { h_flamebpf(),	      "--sample", "499", "-o", out, "--",
				      h_workload("syscalls"), "1",	  NULL };

	h_run_folded(NULL, 30, out, f, mode_opt ? with_opt : plain);
	if (f->total < 50)
		fail_msg("only %llu samples in 1 s at 499 Hz", f->total);
}

/*
 * Checks one stack against KIND: returns the number of kernel frames, or -1
 * after printing what is wrong.  The root is not a frame of either kind.
 */
static int check_stack(const char *stack, enum kind kind)
{
	const char *frame = stack + strcspn(stack, ";");
	int kernel = 0, user = 0;

	while (*frame == ';') {
		size_t len = strcspn(++frame, ";");

		if (h_is_kernel_frame(frame, len))
			kernel++;
		else if (kernel || kind == KERNEL_ONLY)
			break; /* a user frame above a kernel frame, or with -K */
		else
			user++;
		frame += len;
	}
	if (*frame || (kind == USER_ONLY && kernel)) {
		print_message("bad stack for %s: %s\n",
			      kind == USER_ONLY	    ? "-U"
			      : kind == KERNEL_ONLY ? "-K"
						    : "default",
			      stack);
		return -1;
	}
	return kernel;
}

static unsigned long long check_all(const struct h_folded *f, enum kind kind)
{
	unsigned long long with_kernel = 0;
	char root[256];

	for (size_t i = 0; i < f->n; i++) {
		int k = check_stack(f->lines[i].stack, kind);

		if (k < 0)
			fail_msg("line %zu breaks the frame order", i + 1);
		if (strcmp(h_root(f->lines[i].stack, root, sizeof(root)), "syscalls"))
			fail_msg("root '%s' is not 'syscalls'", root);
		with_kernel += k ? f->lines[i].count : 0;
	}
	return with_kernel;
}

static bool user_and_kernel(const char *stack, const void *arg)
{
	(void)arg;
	return h_has_seq(stack, "main;sys_loop") && strstr(stack, "_[k]");
}

static void test_default_has_both(void **state)
{
	struct h_folded f;
	unsigned long long kernel;

	(void)state;
	require_bpf();
	profile_syscalls(NULL, h_path("both.folded"), &f);
	kernel = check_all(&f, BOTH);
	print_message("samples: total %llu, with kernel frames %llu, main;sys_loop + kernel %llu\n",
		      f.total, kernel, h_sum(&f, user_and_kernel, NULL));
	/* the workload spends nearly all its time in read(2) */
	assert_true(kernel * 100 >= f.total * 50);
	/* kernel frames sit on top of the user stack that made the call */
	assert_true(h_sum(&f, user_and_kernel, NULL) * 100 >= f.total * 30);
	h_folded_free(&f);
}

static void test_user_only(void **state)
{
	struct h_folded f;

	(void)state;
	require_bpf();
	profile_syscalls("-U", h_path("user.folded"), &f);
	assert_int_equal(check_all(&f, USER_ONLY), 0);
	/* the samples taken in the kernel still count, on the user stack */
	assert_true(h_sum_frame(&f, "sys_loop") * 100 >= f.total * 50);
	h_folded_free(&f);
}

static void test_kernel_only(void **state)
{
	struct h_folded f;

	(void)state;
	require_bpf();
	profile_syscalls("-K", h_path("kernel.folded"), &f);
	assert_true(check_all(&f, KERNEL_ONLY) * 100 >= f.total * 50);
	assert_int_equal(h_sum_frame(&f, "main") + h_sum_frame(&f, "sys_loop"), 0);
	h_folded_free(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_default_has_both, h_test_teardown),
		cmocka_unit_test_teardown(test_user_only, h_test_teardown),
		cmocka_unit_test_teardown(test_kernel_only, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("user_kernel", tests, h_group_setup, h_group_teardown);
}
