// SPDX-License-Identifier: GPL-2.0
/* src/symbols/srcline.c: the DWARF of a binary anyone may own (its line table, its
 * inlined calls), read through libdw, at the addresses of the binary's
 * functions and at addresses the input suggests. */
#include "fuzz.h"

#include "symbols/elf_symtab.h"
#include "symbols/srcline.h"

static void lookup(struct srcline *s, uint64_t vaddr)
{
	struct srcline_frame out[SRCLINE_MAX_INLINE];
	size_t n;

	for (size_t max = 1; max <= SRCLINE_MAX_INLINE; max += SRCLINE_MAX_INLINE - 1) {
		n = srcline__lookup(s, vaddr, out, max);
		FUZZ_CHECK(n <= max);
		for (size_t i = 0; i < n; i++) {
			FUZZ_CHECK(!out[i].func == !i && out[i].line >= 0);
			if (out[i].file)
				FUZZ_CHECK(strlen(out[i].file) < 1 << 20);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	struct elf_symtab *t;
	struct srcline *s;
	struct elf_func f;

	if (srcline__open(fd, &s))
		return 0;
	if (!elf_symtab__load(fd, &t)) {
		for (size_t i = 0; i < 64 && !elf_symtab__func(t, i, &f); i++) {
			lookup(s, f.vaddr);
			lookup(s, f.vaddr + f.size / 2);
		}
		elf_symtab__free(t);
	}
	for (size_t i = 0; i < size && i < 128; i += 8)
		lookup(s, fuzz_u64(data + i, size - i));
	srcline__free(s);
	return 0;
}
