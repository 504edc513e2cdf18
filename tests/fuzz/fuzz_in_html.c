// SPDX-License-Identifier: GPL-2.0
/* src/formats/in_html.c: the inputs that src/formats/reader.c tells are
 * HTML (flamebpf's reports, damaged ones, other pages), read through the
 * public reader API. */
#include "reader_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader_run(data, size, IN_HTML);
	return 0;
}
