// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <string.h>

#include "runtime.h"

/* path's last component, without a " (deleted)" an upgrade leaves. */
static bool base_is(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t len = strlen(name);

	return !strncmp(base, name, len) && (!base[len] || !strcmp(base + len, " (deleted)"));
}

/* The BEAM and node are their executables; the JVM is a library that any
 * launcher may load (java, jsvc, an embedding program). */
enum runtime runtime__of(const struct proc_maps *m, const char **jvm)
{
	*jvm = NULL;
	for (size_t i = 0; m && i < m->n; i++) {
		const char *path = m->v[i].path;

		if (base_is(path, "beam.smp"))
			return RUNTIME_BEAM;
		if (base_is(path, "node") || base_is(path, "nodejs"))
			return RUNTIME_NODE;
		if (base_is(path, "libjvm.so")) {
			*jvm = path;
			return RUNTIME_JVM;
		}
	}
	return RUNTIME_NONE;
}

const char *runtime__name(enum runtime r)
{
	static const char *const names[RUNTIME_NR] = { "", "beam.smp", "java", "node" };

	return r < RUNTIME_NR ? names[r] : "";
}
