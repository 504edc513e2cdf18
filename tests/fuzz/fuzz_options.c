// SPDX-License-Identifier: GPL-2.0
/* src/cli/options.c: a command line, the input cut at NUL bytes into its
 * arguments (argv[0] is the program's name, as the kernel gives it). */
#include "fuzz.h"

#include <errno.h>

#include "cli/options.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *argv[MAX_ARGS + 2] = { "flamebpf" };
	char err[OPTIONS_ERR_LEN] = "";
	struct options o;
	int argc = 1, ret;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *p = text; p <= text + size && argc <= MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	ret = options__parse(argc, argv, &o, err);
	FUZZ_CHECK(ret == 0 || (ret == -EINVAL && err[0] && memchr(err, '\0', sizeof(err))));
	FUZZ_CHECK(ret || o.noutputs <= OPTIONS_MAX_FILES);
	options__free(&o);
	free(text);
	return 0;
}
