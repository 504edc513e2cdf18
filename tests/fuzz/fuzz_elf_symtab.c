// SPDX-License-Identifier: GPL-2.0
/* src/symbols/elf_symtab.c: the symbols, executable segments and build-id of an ELF
 * file that anyone may own; the same bytes then also as a debug file (an
 * image in memory, as MiniDebugInfo gives) merged into it. And the data
 * symbols and segment addresses elf_object.c reads from it, through the
 * same elf_file.c. */
#include "fuzz.h"

#include "symbols/elf_object.h"
#include "symbols/elf_symtab.h"

/* Every query, on every function: nothing may read outside the table. */
static void walk(const struct elf_symtab *t)
{
	struct elf_func f;
	uint64_t off, vaddr;
	size_t i, k, len;

	for (i = 0; !elf_symtab__func(t, i, &f); i++) {
		size_t at = SIZE_MAX;
		bool ifunc = false;

		FUZZ_CHECK(f.name);
		for (k = 0; elf_symtab__alias(t, i, k); k++)
			;
		FUZZ_CHECK(k == f.nalias);
		for (k = 0; k <= f.nalias + 1; k++)
			ifunc |= elf_symtab__ifunc_name(t, i, k);
		FUZZ_CHECK(!ifunc || f.ifunc);
		FUZZ_CHECK(!elf_symtab__find(t, f.vaddr, &at) && at == i);
		elf_symtab__lookup(t, f.vaddr, &off);
		elf_symtab__lookup(t, f.vaddr + f.size, &off);
		if (!elf_symtab__file_offset(t, f.vaddr, &off))
			elf_symtab__vaddr(t, off, &vaddr);
	}
	FUZZ_CHECK(i == elf_symtab__count(t));
	FUZZ_CHECK(!elf_symtab__alias(t, i, 0));
	FUZZ_CHECK(elf_symtab__build_id(t, &len) ? len > 0 : len == 0);
	elf_symtab__has_symtab(t);
	elf_symtab__type(t);
}

/* The build-id read alone is the one the whole load found. */
static void same_build_id(int fd, const struct elf_symtab *t)
{
	uint8_t id[64];
	size_t len = 1, want = 0;
	const uint8_t *full = elf_symtab__build_id(t, &want);
	int err = elf_symtab__read_build_id(fd, id, sizeof(id), &len);

	FUZZ_CHECK(err <= 0 && (err ? len == 0 : len > 0));
	FUZZ_CHECK(err ? !full : full && len == want && !memcmp(id, full, len));
}

/* The function at vaddr named in the table that left names in the file
 * as in the one that copied them: by the table, or read back from where
 * the file holds it. */
static void same_name(int fd, const struct elf_symtab *left, const struct elf_symtab *copied,
		      uint64_t vaddr)
{
	uint64_t off, in_file;
	const char *want = elf_symtab__lookup(copied, vaddr, &off);
	const char *got = elf_symtab__lookup_ref(left, vaddr, &off, &in_file);
	char *read = NULL;

	FUZZ_CHECK(want);
	if (!got && !elf_symtab__read_name(fd, in_file, &read))
		got = read;
	FUZZ_CHECK(!got || !strcmp(got, want));
	free(read);
}

/* The same functions when the names stay in the file, with no alias. */
static void same_left(int fd, const struct elf_symtab *copied)
{
	struct elf_symtab *t = NULL;
	struct elf_func f, c;
	size_t i;

	FUZZ_CHECK(!elf_symtab__load_as(fd, NULL, true, &t));
	FUZZ_CHECK(elf_symtab__count(t) == elf_symtab__count(copied));
	for (i = 0; !elf_symtab__func(t, i, &f); i++) {
		FUZZ_CHECK(!elf_symtab__func(copied, i, &c));
		FUZZ_CHECK(f.vaddr == c.vaddr && f.size == c.size && !f.nalias);
		same_name(fd, t, copied, f.vaddr);
	}
	elf_symtab__free(t);
}

static void load(int fd, const struct elf_debug_file *dbg)
{
	struct elf_symtab *t = (void *)1;
	int err = elf_symtab__load_with(fd, dbg, &t);

	FUZZ_CHECK(err <= 0 && (err ? !t : !!t));
	if (t)
		walk(t);
	if (t && !dbg) {
		same_build_id(fd, t);
		same_left(fd, t);
	}
	elf_symtab__free(t);
}

/* What py_procs asks of a Python binary. */
static void objects(int fd, size_t size)
{
	static const char *const names[] = { "_PyRuntime", "Py_Version" };
	uint64_t at[2], vaddr;
	int err = elf_object__find(fd, names, 2, at);

	FUZZ_CHECK(err <= 0 && (err || at[0] || at[1]));
	FUZZ_CHECK(elf_object__vaddr(fd, 0, &vaddr) <= 0);
	FUZZ_CHECK(elf_object__vaddr(fd, size / 2, &vaddr) <= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	struct elf_debug_file dbg = { .fd = -1, .size = size };

	load(fd, NULL);
	objects(fd, size);
	/* writable: libelf may convert the image in place */
	dbg.image = malloc(size ? size : 1);
	if (!dbg.image)
		return 0;
	memcpy(dbg.image, data, size);
	load(fd, &dbg);
	free(dbg.image);
	return 0;
}
