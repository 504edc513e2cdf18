// SPDX-License-Identifier: GPL-2.0
/* src/symbols/unwind_table.c from bytes: the input as the contents of a .eh_frame,
 * then of a .debug_frame (their CIE ids and pointers differ). */
#include "fuzz.h"

#include "unwind_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_table *t;

	for (int debug_frame = 0; debug_frame < 2; debug_frame++) {
		int err = unwind_table__parse(data, size, 0x401000, debug_frame, &t);

		FUZZ_CHECK(err <= 0 && (err ? !t : !!t));
		if (t)
			unwind_check(t);
		unwind_table__free(t);
	}
	return 0;
}
