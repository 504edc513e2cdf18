// SPDX-License-Identifier: GPL-2.0
/*
 * Where -o may point besides a regular file: a FIFO (what `-o >(cmd)` gives),
 * a character device (written to, never replaced), and write errors (a full
 * device, full standard output) that must fail the run, not vanish.
 *
 * The devices are nodes made in the test's temp dir, never the ones in /dev:
 * a profiler that replaced its output by rename would destroy them.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static bool is_type(const char *path, mode_t type)
{
	struct stat st;

	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

static void make_node(const char *path, mode_t type, unsigned int major_, unsigned int minor_)
{
	int fd;

	if (mknod(path, type | 0666, makedev(major_, minor_)))
		fail_msg("cannot make the node '%s': %s", path, strerror(errno));
	if (type != S_IFCHR)
		return;
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		print_message("SKIP: cannot open the device node '%s' (nodev mount?): %s\n", path,
			      strerror(errno));
		skip();
	}
	close(fd);
}

/* Profiles cpu_tree for SECONDS at FREQ Hz with -o OUT. */
static void profile_to(struct h_result *r, const char *out, const char *freq, const char *seconds)
{
	assert_int_equal(h_run(r, 30,
			       H_ARGV(h_flamebpf(), "--sample", freq, "--format", "folded", "-o",
				      out, "--", h_workload("cpu_tree"), seconds)),
			 0);
}

/* PATH is still the node of TYPE it was made as, not replaced by another file. */
static void expect_node(const char *path, mode_t type)
{
	if (!is_type(path, type))
		fail_msg("the %s '%s' was replaced by another file",
			 type == S_IFIFO ? "FIFO" : "device node", path);
}

static void test_fifo(void **state)
{
	const char *fifo = h_path("pipe");
	struct h_result r, got;
	struct h_proc reader;
	struct h_folded f;

	(void)state;
	require_bpf();
	make_node(fifo, S_IFIFO, 0, 0);
	assert_int_equal(h_start(&reader, H_ARGV("cat", fifo)), 0);
	profile_to(&r, fifo, "499", "0.5");
	h_assert_status(&r, 0);
	h_result_free(&r);
	h_finish(&reader, 5, &got);
	expect_node(fifo, S_IFIFO);
	assert_int_equal(got.status, 0);
	h_folded_must_parse(got.out, "what the FIFO's reader got", &f);
	assert_true(h_sum_frame(&f, "tree_a") > 0);
	h_folded_free(&f);
	h_result_free(&got);
}

static void test_null_device(void **state)
{
	const char *null = h_path("null");
	struct h_result r;

	(void)state;
	require_bpf();
	make_node(null, S_IFCHR, 1, 3);
	profile_to(&r, null, "99", "0.3");
	h_assert_status(&r, 0);
	h_result_free(&r);
	expect_node(null, S_IFCHR);
}

static void test_full_device(void **state)
{
	const char *full = h_path("full");
	struct h_result r;

	(void)state;
	require_bpf();
	make_node(full, S_IFCHR, 1, 7);
	profile_to(&r, full, "99", "0.3");
	expect_node(full, S_IFCHR);
	h_assert_status(&r, 1);
	if (!strstr(r.err, full)) {
		h_dump(&r, "flamebpf");
		fail_msg("stderr does not name '%s'", full);
	}
	h_result_free(&r);
}

static void test_full_stdout(void **state)
{
	const char *full = h_path("stdout-full");
	struct h_result r;
	struct h_proc p;

	(void)state;
	require_bpf();
	make_node(full, S_IFCHR, 1, 7);
	assert_int_equal(h_start_to(&p,
				    H_ARGV(h_flamebpf(), "--sample", "99", "--",
					   h_workload("cpu_tree"), "0.3"),
				    full),
			 0);
	h_finish(&p, 30, &r);
	h_assert_status(&r, 1);
	if (!strcasestr(r.err, "no space")) {
		h_dump(&r, "flamebpf");
		fail_msg("stderr does not report the write error (ENOSPC)");
	}
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_fifo, h_test_teardown),
		cmocka_unit_test_teardown(test_null_device, h_test_teardown),
		cmocka_unit_test_teardown(test_full_device, h_test_teardown),
		cmocka_unit_test_teardown(test_full_stdout, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("output", tests, h_group_setup, h_group_teardown);
}
