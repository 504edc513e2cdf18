/* Unit tests of src/symbols/runtime.c: which runtime a process is, from its
 * executable mappings as /proc/PID/maps gives them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "symbols/runtime.h"

static enum runtime of(const char *const *paths, const char **jvm)
{
	struct map_entry v[8];
	struct proc_maps m = { v, 0 };

	for (; paths[m.n]; m.n++)
		v[m.n] = (struct map_entry){ .perms = "r-xp", .path = (char *)paths[m.n] };
	return runtime__of(&m, jvm);
}

#define PATHS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_runtimes(void **state)
{
	const char *jvm = "x";

	(void)state;
	assert_int_equal(of(PATHS("/usr/lib/erlang/erts-13.1.5/bin/beam.smp",
				  "/usr/lib/x86_64-linux-gnu/libc.so.6"),
			    &jvm),
			 RUNTIME_BEAM);
	assert_null(jvm);
	assert_int_equal(of(PATHS("/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "",
				  "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"),
			    &jvm),
			 RUNTIME_JVM);
	assert_string_equal(jvm, "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so");
	assert_int_equal(of(PATHS("/usr/bin/node"), &jvm), RUNTIME_NODE);
	/* an upgrade replaced it while it ran */
	assert_int_equal(of(PATHS("/usr/lib/erlang/erts-13.1.5/bin/beam.smp (deleted)"), &jvm),
			 RUNTIME_BEAM);
	assert_int_equal(of(PATHS("/usr/bin/beam.smp.sh", "/opt/libjvm.so.bak", "[vdso]"), &jvm),
			 RUNTIME_NONE);
	assert_int_equal(runtime__of(NULL, &jvm), RUNTIME_NONE);
	assert_string_equal(runtime__name(RUNTIME_BEAM), "beam.smp");
	assert_string_equal(runtime__name(RUNTIME_JVM), "java");
	assert_string_equal(runtime__name(RUNTIME_NONE), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtimes),
	};

	return cmocka_run_group_tests_name("runtime", tests, NULL, NULL);
}
