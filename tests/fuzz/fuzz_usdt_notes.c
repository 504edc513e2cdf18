// SPDX-License-Identifier: GPL-2.0
/* src/symbols/usdt_notes.c: a note section as any file may hold it. Every
 * note it yields has its strings inside the input, each ending in a NUL. */
#include "fuzz.h"

#include <errno.h>
#include <string.h>

#include "symbols/usdt_notes.h"

struct walk {
	const uint8_t *data;
	size_t size;
};

static void check_str(const struct walk *w, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;

	FUZZ_CHECK(p >= w->data && p < w->data + w->size);
	FUZZ_CHECK(memchr(p, '\0', w->data + w->size - p) != NULL);
}

static int check(const struct usdt_note *n, void *arg)
{
	check_str(arg, n->provider);
	check_str(arg, n->name);
	check_str(arg, n->args);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct walk w = { .data = data, .size = size };
	int err = usdt_notes__parse(data, size, check, &w);

	FUZZ_CHECK(err == 0 || err == -ENOEXEC);
	return 0;
}
