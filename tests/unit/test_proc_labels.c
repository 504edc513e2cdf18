/* Unit tests of src/cli/proc_labels.c: the container id a cgroup path
 * names (docker, containerd, podman, a bare id), none elsewhere; and the
 * labels of this very process, read from /proc. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/proc_labels.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_container(void **state)
{
	static const char *const named[] = {
		"/system.slice/docker-" ID ".scope",
		"/kubepods.slice/kubepods-pod1.slice/cri-containerd-" ID ".scope",
		"/machine.slice/libpod-" ID ".scope",
		"/docker/" ID,
	};
	static const char *const unnamed[] = {
		"/",
		"/user.slice/user-0.slice/session-1.scope",
		"/system.slice/docker-" ID "0.scope",	       /* 65 digits */
		"/system.slice/docker-0123456789abcdef.scope", /* too short */
		"/system.slice/docker-" ID ".mount",
	};
	char id[65];

	(void)state;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		memset(id, 0, sizeof(id));
		if (!proc_labels__container(named[i], id))
			fail_msg("no container in '%s'", named[i]);
		assert_string_equal(id, ID);
	}
	for (size_t i = 0; i < sizeof(unnamed) / sizeof(unnamed[0]); i++)
		if (proc_labels__container(unnamed[i], id))
			fail_msg("a container '%s' in '%s'", id, unnamed[i]);
}

/* This process: its cgroup as /proc says it, and no label for a pid that
 * does not exist. */
static void test_self(void **state)
{
	struct proc_labels *pl = proc_labels__new();
	const struct proc_labeler *l;
	const struct proc_label *got;
	char want[600] = "", line[600];
	FILE *f = fopen("/proc/self/cgroup", "r");
	size_t n;
	bool seen = false;

	(void)state;
	assert_non_null(pl);
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3))
			snprintf(want, sizeof(want), "%.*s", (int)strcspn(line + 3, "\n"),
				 line + 3);
	fclose(f);
	l = proc_labels__labeler(pl);
	n = l->get(l->arg, (uint32_t)getpid(), &got);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(got[i].key, "cgroup")) {
			assert_string_equal(got[i].value, want);
			seen = true;
		}
	assert_true(seen == (want[0] != '\0'));
	assert_int_equal(l->get(l->arg, 0x7ffffff0, &got), 0);
	proc_labels__free(pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
