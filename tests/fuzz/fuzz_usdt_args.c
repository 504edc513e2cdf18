// SPDX-License-Identifier: GPL-2.0
/* src/symbols/usdt_args.c: any string as an argument spec. What it accepts
 * is at most USDT_MAX_ARGS arguments of 1, 2, 4 or 8 bytes, each naming a
 * register it knows or none. */
#include "fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/usdt_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usdt_arg a[USDT_MAX_ARGS];
	char *s = malloc(size + 1);
	size_t n;
	int err;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	err = usdt_args__parse(s, a, &n);
	FUZZ_CHECK(err == 0 || err == -EINVAL);
	for (size_t i = 0; !err && i < n; i++) {
		FUZZ_CHECK(a[i].size == 1 || a[i].size == 2 || a[i].size == 4 || a[i].size == 8);
		FUZZ_CHECK(a[i].reg <= USDT_REG_RSP || a[i].reg == USDT_REG_NONE);
		FUZZ_CHECK(a[i].kind <= USDT_ARG_MEM);
	}
	FUZZ_CHECK(err || n <= USDT_MAX_ARGS);
	free(s);
	return 0;
}
