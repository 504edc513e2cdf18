// SPDX-License-Identifier: GPL-2.0
/* src/symbols/binaries.c and src/symbols/ldso.c: what a command will map, from the program
 * file a user hands flamebpf: its #! line (an interpreter, "env NAME"), or
 * as an ELF file its PT_INTERP, DT_NEEDED, DT_RPATH and DT_RUNPATH (with
 * $ORIGIN and friends), each library then searched as ld.so would. The
 * input is that program; its first two lines also serve as a BINARY spec
 * and a path for binaries__name_rank(). */
#include "fuzz.h"

#include "symbols/binaries.h"

static void name_rank(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), *spec, *path;
	int rank;

	if (!text)
		return;
	spec = text;
	path = strchr(text, '\n');
	if (path) {
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
	}
	rank = binaries__name_rank(spec, path ? path : "");
	FUZZ_CHECK(rank >= -1 && rank <= 2);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct binaries b = { 0 };
	char prog[128];
	int err;

	name_rank(data, size);
	fuzz_write(fuzz_path("prog", prog, sizeof(prog)), data, size, 0700);
	err = binaries__of_command(prog, &b);
	FUZZ_CHECK(err <= 0 && (err || b.n > 0));
	for (size_t i = 0; i < b.n; i++)
		FUZZ_CHECK(b.v[i].path && b.v[i].open_path);
	binaries__free(&b);
	return 0;
}
