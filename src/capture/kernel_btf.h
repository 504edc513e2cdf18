/* Questions about the running kernel answered from its BTF
 * (/sys/kernel/btf/vmlinux) by one pass over the raw types: libbpf's
 * btf__load_vmlinux_btf() copies, checks and indexes all ~5 MB of it, which
 * took tens of milliseconds each time on these VMs, and start-up asked twice. */
#ifndef FLAMEBPF_KERNEL_BTF_H
#define FLAMEBPF_KERNEL_BTF_H

#include <stddef.h>

#define KERNEL_BTF_PATH "/sys/kernel/btf/vmlinux"

/* For each of the n names in values, whether the enum called type in the
 * BTF at path (KERNEL_BTF_PATH) has a value by that name: has[i] is set to
 * 1 or 0. Returns 0, -ENOENT when there is no such enum, or -errno when the
 * BTF cannot be read or is malformed. */
int kernel_btf__enum_has(const char *path, const char *type, const char *const *values, size_t n,
			 int *has);

/* The same over a BTF image in memory (for tests and fuzzing). */
int kernel_btf__enum_has_in(const void *btf, size_t len, const char *type,
			    const char *const *values, size_t n, int *has);

#endif
