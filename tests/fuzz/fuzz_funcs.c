// SPDX-License-Identifier: GPL-2.0
/* src/capture/funcs.c, src/capture/func_names.c and src/capture/ifunc.c: -l and -f on an ELF file
 * that anyone may own. Every function is listed and named apart, two names
 * are taken as exact names, and every IFUNC is resolved the way a file
 * flamebpf has not loaded is: by reading its resolver's code and its
 * relocations. */
#include "fuzz.h"

#include <regex.h>

#include "capture/funcs.h"

/* Every entry is a function of the file, its names distinct. */
static void check(const struct funcs *list)
{
	for (size_t i = 0; i < list->n; i++) {
		const struct func *f = &list->v[i];

		FUZZ_CHECK(f->name && f->sym && f->bin < list->bins.n);
		FUZZ_CHECK(!f->ifunc || f->how == IFUNC_NOT_FOUND || f->how == IFUNC_ELSEWHERE);
		for (size_t j = i + 1; j < list->n && j < i + 64; j++)
			FUZZ_CHECK(list->v[j].sym_vaddr != f->sym_vaddr ||
				   list->v[j].vaddr != f->vaddr);
	}
}

static void match(const struct binaries *b, const regex_t *re, const char *text)
{
	struct funcs list = { 0 };
	struct funcs_query q = { .re = re, .text = text };
	FILE *out = fopen("/dev/null", "w");
	int err = funcs__match(&list, b, &q);

	FUZZ_CHECK(err <= 0);
	FUZZ_CHECK(q.matched <= list.n);
	check(&list);
	if (out && !err)
		FUZZ_CHECK(!funcs__print(&list, out));
	funcs__merge_code(&list, NULL, NULL);
	if (out)
		fclose(out);
	funcs__free(&list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	char path[64];
	struct stat st;
	struct target_binary e = { path, path, 0, 0 };
	struct binaries b = { &e, 1 };
	regex_t re;

	if (fstat(fd, &st))
		fuzz_die("fstat");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	e.dev = st.st_dev;
	e.ino = st.st_ino;
	if (regcomp(&re, ".", REG_EXTENDED | REG_NOSUB))
		fuzz_die("regcomp");
	match(&b, &re, NULL);
	match(&b, &re, "leaf");
	match(&b, &re, "f@V1");
	regfree(&re);
	return 0;
}
