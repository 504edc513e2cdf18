// SPDX-License-Identifier: GPL-2.0
/* src/formats/in_chrome.c and src/formats/in_json.c: the inputs that src/formats/reader.c tells are
 * chrome traces (JSON), read through the public reader API. */
#include "reader_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	reader_run(data, size, IN_CHROME);
	return 0;
}
