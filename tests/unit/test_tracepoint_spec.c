/* Unit tests of src/capture/tracepoint_spec.c and syscalls.c: the shapes
 * -e takes, the system calls by number, the weights each allows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/syscall.h>

#include "capture/syscalls.h"
#include "capture/tracepoint_spec.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syscalls),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests_name("tracepoint_spec", tests, NULL, NULL);
}
