// SPDX-License-Identifier: GPL-2.0
/* src/capture/kernel_btf.c: a raw BTF image (/sys/kernel/btf/vmlinux's format).
 * Only the kernel writes that file, but the scanner must stay inside any
 * image, whatever its header and type lengths claim. */
#include "fuzz.h"

#include "capture/kernel_btf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const values[] = { "BPF_TRACE_UPROBE_MULTI", "A", "" };
	int has[3] = { -1, -1, -1 };
	int err = kernel_btf__enum_has_in(data, size, "bpf_attach_type", values, 3, has);

	FUZZ_CHECK(err <= 0);
	for (int k = 0; k < 3; k++)
		FUZZ_CHECK(has[k] == 0 || (has[k] == 1 && !err));
	err = kernel_btf__enum_has_in(data, size, "", values, 3, has);
	FUZZ_CHECK(err <= 0);
	return 0;
}
