// SPDX-License-Identifier: GPL-2.0
/* src/symbols/go_pclntab.c: Go's function table as any file may hold it. Every
 * function it yields lies inside the input, has a name, and comes after
 * the one before it. */
#include "fuzz.h"

#include <errno.h>

#include "symbols/go_pclntab.h"

struct walk {
	const uint8_t *data;
	size_t size;
	uint64_t last;
};

static int check(void *arg, uint64_t entry, uint64_t end, const char *name, size_t len)
{
	struct walk *w = arg;
	const uint8_t *s = (const uint8_t *)name;

	FUZZ_CHECK(entry < end && entry >= w->last && len > 0);
	FUZZ_CHECK(s >= w->data && s + len < w->data + w->size && !s[len]);
	w->last = entry;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct walk w = { .data = data, .size = size };
	int err = go_pclntab__funcs(data, size, 0x401000, check, &w);

	FUZZ_CHECK(err == 0 || err == -ENOEXEC);
	return 0;
}
