// SPDX-License-Identifier: GPL-2.0
/* src/symbols/kallsyms.c: a kallsyms file ("ADDR TYPE NAME[\t[MODULE]]"). Only the
 * kernel writes /proc/kallsyms, but nothing in the parser may rely on it.
 * It takes a path: the input goes through a file. */
#include "fuzz.h"

#include "symbols/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms *k = (void *)1;
	char path[128];
	uint64_t off;
	int err;

	fuzz_write(fuzz_path("kallsyms", path, sizeof(path)), data, size, 0600);
	err = kallsyms__load(path, &k);
	FUZZ_CHECK(err <= 0 && (err ? !k : !!k));
	if (!k)
		return 0;
	for (size_t i = 0; i < size && i < 256; i += 8) {
		uint64_t addr = fuzz_u64(data + i, size - i);
		const char *name = kallsyms__lookup(k, addr, &off);

		FUZZ_CHECK(!name || off <= addr);
	}
	kallsyms__free(k);
	return 0;
}
