// SPDX-License-Identifier: GPL-2.0
/* src/symbols/unwind_table.c from a file: the input as an ELF file whose .eh_frame,
 * .debug_frame (maybe compressed) or PT_GNU_EH_FRAME gives the table. */
#include "fuzz.h"

#include "unwind_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_table *t = (void *)1;
	uint64_t bias;
	int err = unwind_table__build(fuzz_memfd(data, size), &t);

	FUZZ_CHECK(err <= 0 && (err ? !t : !!t));
	if (!t)
		return 0;
	unwind_check(t);
	/* a maps line of a mapping at 0x7f0000000000 of each offset the
	 * input suggests */
	for (size_t i = 0; i + 8 <= size && i < 64; i += 8)
		unwind_table__bias(t, 0x7f0000000000, 0x7f0000100000, fuzz_u64(data + i, 8), &bias);
	unwind_table__drop_rows(t);
	unwind_check(t);
	unwind_table__free(t);
	return 0;
}
