// SPDX-License-Identifier: GPL-2.0
/* src/formats/in_perf.c: the inputs that src/formats/reader.c tells are
 * `perf script` text, read through the public reader API. */
#include "reader_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader_run(data, size, IN_PERF);
	return 0;
}
