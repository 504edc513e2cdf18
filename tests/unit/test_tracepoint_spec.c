/* Unit tests of src/capture/tracepoint_spec.c and syscalls.c: the shapes
 * -e takes, the system calls by number, the weights each allows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "capture/syscalls.h"
#include "capture/tp_format.h"
#include "capture/tracefs.h"
#include "capture/tracepoint_spec.h"
#include "util/strbuf.h"

static void test_syscalls(void **state)
{
	(void)state;
	assert_int_equal(syscalls__nr("write"), SYS_write);
	assert_int_equal(syscalls__nr("openat"), SYS_openat);
	assert_int_equal(syscalls__nr("exit_group"), SYS_exit_group);
	assert_int_equal(syscalls__nr("nosuch"), -1);
	assert_int_equal(syscalls__nr(""), -1);
}

static void test_parse(void **state)
{
	struct tracepoint_spec tp;

	(void)state;
	assert_int_equal(tracepoint_spec__parse("tracepoint:syscalls:sys_enter_write", &tp), 0);
	assert_string_equal(tp.raw, "sys_enter");
	assert_string_equal(tp.spec, "syscalls:sys_enter_write");
	assert_int_equal(tp.nr, SYS_write);
	assert_false(tp.exit);
	assert_int_equal(tracepoint_spec__parse("t:syscalls:sys_exit_read", &tp), 0);
	assert_string_equal(tp.raw, "sys_exit");
	assert_int_equal(tp.nr, SYS_read);
	assert_true(tp.exit);
	assert_int_equal(tracepoint_spec__parse("t:sched:sched_process_exec", &tp), 0);
	assert_string_equal(tp.raw, "sched_process_exec");
	assert_int_equal(tp.nr, -1);
	assert_int_equal(tracepoint_spec__parse("t:syscalls:sys_enter_nosuch", &tp), -ENOENT);
	assert_int_equal(tracepoint_spec__parse("t:syscalls:open_write", &tp), -EINVAL);
	assert_int_equal(tracepoint_spec__parse("t:syscalls", &tp), -EINVAL);
	assert_int_equal(tracepoint_spec__parse("t::x", &tp), -EINVAL);
	assert_int_equal(tracepoint_spec__parse("t:a:", &tp), -EINVAL);
	assert_int_equal(tracepoint_spec__parse("t:a:b:c", &tp), -EINVAL);
	assert_int_equal(tracepoint_spec__parse("t:A:b", &tp), -EINVAL);
	assert_int_equal(tracepoint_spec__parse("kprobe:a:b", &tp), -EINVAL);
	assert_int_equal(tracepoint_spec__parse("page-faults", &tp), -EINVAL);
	assert_true(tracepoint_spec__is("t:x:y"));
	assert_false(tracepoint_spec__is("cycles"));
}

static void test_weights(void **state)
{
	struct tracepoint_spec enter, exit, sched;
	int w;

	(void)state;
	assert_int_equal(tracepoint_spec__parse("t:syscalls:sys_enter_write", &enter), 0);
	assert_int_equal(tracepoint_spec__parse("t:syscalls:sys_exit_write", &exit), 0);
	assert_int_equal(tracepoint_spec__parse("t:sched:sched_switch", &sched), 0);
	assert_int_equal(tracepoint_spec__weight(&enter, "arg2", &w), 0);
	assert_int_equal(w, 2);
	assert_int_equal(tracepoint_spec__weight(&enter, "arg0", &w), 0);
	assert_int_equal(w, 0);
	assert_int_equal(tracepoint_spec__weight(&exit, "ret", &w), 0);
	assert_int_equal(w, TP_WEIGHT_RET);
	assert_int_equal(tracepoint_spec__weight(&enter, "ret", &w), -EINVAL);
	assert_int_equal(tracepoint_spec__weight(&exit, "arg1", &w), -EINVAL);
	assert_int_equal(tracepoint_spec__weight(&enter, "arg6", &w), -EINVAL);
	assert_int_equal(tracepoint_spec__weight(&enter, "arg22", &w), -EINVAL);
	/* a name needs tracefs: here, a name the format file lacks */
	assert_true(tracepoint_spec__weight(&enter, "count_of", &w) < 0);
	assert_int_equal(tracepoint_spec__weight(&sched, "arg0", &w), -EINVAL);
}

/* Format files as tracefs writes them: the arguments after __syscall_nr. */
static void test_fields(void **state)
{
	static const char enter[] =
		"name: sys_enter_write\nID: 840\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"fd: 0x%08lx, buf: 0x%08lx, count: 0x%08lx\", ...\n";
	static const char exit[] = "name: sys_exit_read\nformat:\n"
				   "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
				   "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n";

	(void)state;
	assert_int_equal(tracepoint_spec__field(enter, "fd"), 0);
	assert_int_equal(tracepoint_spec__field(enter, "buf"), 1);
	assert_int_equal(tracepoint_spec__field(enter, "count"), 2);
	assert_int_equal(tracepoint_spec__field(enter, "common_pid"), -1);
	assert_int_equal(tracepoint_spec__field(enter, "__syscall_nr"), -1);
	assert_int_equal(tracepoint_spec__field(enter, "coun"), -1);
	assert_int_equal(tracepoint_spec__field(enter, "nosuch"), -1);
	assert_int_equal(tracepoint_spec__field(exit, "ret"), TP_WEIGHT_RET);
	assert_int_equal(tracepoint_spec__field("", "fd"), -1);
	assert_int_equal(tracepoint_spec__field("field:;\nfield:x", "x"), -1);
}

/* Other tracepoints' formats, as this kernel's tracefs writes them. */
static const char block_rq_issue[] =
	"name: block_rq_issue\nID: 2104\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%d,%d %s %u (%s) %llu + %u %s,%u,%u [%s]\", REC->dev, REC->rwbs\n";
static const char kmalloc[] =
	"name: kmalloc\nID: 658\nformat:\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"call_site=%pS bytes_req=%zu\", (void *)REC->call_site\n";
static const char signal_generate[] =
	"name: signal_generate\nID: 261\nformat:\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int sig;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:20;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:36;\tsize:4;\tsigned:1;\n"
	"\tfield:__rel_loc char[] msg;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:__u128 big;\toffset:48;\tsize:16;\tsigned:0;\n"
	"\tfield:u8 flag;\toffset:64;\tsize:1;\n";

static void expect_field(const char *format, const char *name, unsigned int offset,
			 unsigned int size, bool is_signed, enum tp_field_kind kind)
{
	struct tp_field f;

	if (tp_format__field(format, name, &f))
		fail_msg("no field '%s'", name);
	assert_string_equal(f.name, name);
	assert_int_equal(f.offset, offset);
	assert_int_equal(f.size, size);
	assert_int_equal(f.is_signed, is_signed);
	assert_int_equal(f.kind, kind);
}

static void test_format_fields(void **state)
{
	struct tp_field f;

	(void)state;
	expect_field(block_rq_issue, "bytes", 28, 4, false, TP_FIELD_NUMBER);
	expect_field(block_rq_issue, "sector", 16, 8, false, TP_FIELD_NUMBER);
	expect_field(block_rq_issue, "ioprio", 32, 2, false, TP_FIELD_NUMBER);
	expect_field(block_rq_issue, "comm", 44, 16, false, TP_FIELD_ARRAY);
	expect_field(block_rq_issue, "rwbs", 34, 10, false, TP_FIELD_ARRAY);
	expect_field(block_rq_issue, "cmd", 60, 4, false, TP_FIELD_STRING);
	expect_field(kmalloc, "bytes_alloc", 32, 8, false, TP_FIELD_NUMBER);
	expect_field(kmalloc, "ptr", 16, 8, false, TP_FIELD_POINTER);
	expect_field(kmalloc, "node", 48, 4, true, TP_FIELD_NUMBER);
	expect_field(signal_generate, "sig", 8, 4, true, TP_FIELD_NUMBER);
	expect_field(signal_generate, "pid", 36, 4, true, TP_FIELD_NUMBER);
	expect_field(signal_generate, "msg", 40, 4, false, TP_FIELD_STRING);
	expect_field(signal_generate, "big", 48, 16, false, TP_FIELD_ODD);
	expect_field(signal_generate, "flag", 64, 1, false, TP_FIELD_NUMBER); /* no signed: */
	assert_int_equal(tp_format__field(block_rq_issue, "common_pid", &f), -ENOENT);
	assert_int_equal(tp_format__field(block_rq_issue, "byte", &f), -ENOENT);
	assert_int_equal(tp_format__field(block_rq_issue, "comm[16]", &f), -ENOENT);
	assert_int_equal(tp_format__field(kmalloc, "bytes_req;", &f), -ENOENT);
	assert_int_equal(tp_format__field("", "x", &f), -ENOENT);
	assert_int_equal(tp_format__field("field:int x;\toffset:;\tsize:4;", "x", &f), -ENOENT);
	assert_string_equal(tp_format__field(kmalloc, "ptr", &f) ? "" : f.decl, "const void * ptr");
	assert_null(tp_format__field(kmalloc, "node", &f) ? "" : tp_field__not_a_number(&f));
	assert_string_equal(
		tp_format__field(block_rq_issue, "cmd", &f) ? "" : tp_field__not_a_number(&f),
		"a string");
}

static void expect_numbers(const char *format, const char *want)
{
	struct strbuf b = {};

	assert_int_equal(tp_format__numbers(format, &b), 0);
	assert_string_equal(b.s ? b.s : "", want);
	strbuf__free(&b);
}

static void test_format_numbers(void **state)
{
	(void)state;
	expect_numbers(block_rq_issue, "dev, sector, nr_sector, bytes, ioprio");
	expect_numbers(kmalloc, "call_site, bytes_req, bytes_alloc, node");
	expect_numbers(signal_generate, "sig, pid, flag");
	expect_numbers("name: x\n", "");
}

static void expect_root(const char *mountinfo, int err, const char *want)
{
	FILE *f = fmemopen((void *)mountinfo, strlen(mountinfo), "r");
	char root[256] = "";

	assert_non_null(f);
	assert_int_equal(tracefs__find(f, root, sizeof(root)), err);
	if (!err)
		assert_string_equal(root, want);
	fclose(f);
}

/* tracefs where /proc/self/mountinfo says; debugfs's tracing directory
 * counts only where it exists. */
static void test_tracefs_find(void **state)
{
	(void)state;
	expect_root("22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
		    "36 25 0:12 / /sys/kernel/tracing rw,nosuid shared:17 - tracefs nodev rw\n",
		    0, "/sys/kernel/tracing");
	expect_root("22 1 0:21 / /proc rw - proc proc rw\n"
		    "40 25 0:12 / /mnt/my\\040trace rw master:3 shared:9 - tracefs tracefs rw\n",
		    0, "/mnt/my trace");
	expect_root("22 1 0:21 / /proc rw - proc proc rw\n"
		    "23 1 0:22 / /sys rw - sysfs sysfs rw\n",
		    -ENOENT, NULL);
	expect_root("30 23 0:7 / /nonexistent/debug rw - debugfs debugfs rw\n", -ENOENT, NULL);
	expect_root("", -ENOENT, NULL);
	expect_root("garbage\n- tracefs\n", -ENOENT, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syscalls),      cmocka_unit_test(test_parse),
		cmocka_unit_test(test_weights),	      cmocka_unit_test(test_fields),
		cmocka_unit_test(test_format_fields), cmocka_unit_test(test_format_numbers),
		cmocka_unit_test(test_tracefs_find),
	};

	return cmocka_run_group_tests_name("tracepoint_spec", tests, NULL, NULL);
}
