// SPDX-License-Identifier: GPL-2.0
/* src/formats/reader.c: telling the format of any input, and reading it whatever it
 * turns out to be (folded stacks, src/formats/in_folded.c, are the simplest). */
#include "reader_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader_run(data, size, -1);
	return 0;
}
