// SPDX-License-Identifier: GPL-2.0
/* src/symbols/demangle.c: C++ and Rust symbol names, which come from the symbol
 * tables of binaries anyone may own, through libiberty's demangler. */
#include "fuzz.h"

#include <stdbool.h>

#include "symbols/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = strndup((const char *)data, size), *full, *brief;

	if (!name)
		return 0;
	full = demangle(name);
	brief = demangle__short(name);
	/* a name that is not mangled is left to the caller */
	FUZZ_CHECK(demangle__is_mangled(name) || (!full && !brief));
	free(full);
	free(brief);
	free(name);
	return 0;
}
