// SPDX-License-Identifier: GPL-2.0
/* src/symbols/debuginfo.c: the names of a stripped binary from a separate debug
 * file, and that file for its DWARF. The input is the binary, optionally
 * followed by DEBUG_SEP and a debug file; the harness puts that file where the
 * binary's build-id says (under a debug root of its own) and beside the
 * binary as "dbg", which a .gnu_debuglink can name (with its CRC: the seeds
 * carry the right one). A .gnu_debugdata (MiniDebugInfo) is decompressed
 * from the binary itself; an input that is an xz stream goes to the
 * decompressor alone. */
#include "fuzz.h"

#include <sys/stat.h>

#include "symbols/debuginfo.h"

#define DEBUG_SEP "\n--flamebpf-fuzz-debug-file--\n"

static const uint8_t xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

static char id_path[4096]; /* the build-id file of the last input, to remove */

/* The debug part at ROOT/.build-id/xx/yyyy.debug for the binary's build-id. */
static void place_by_build_id(const char *root, int fd, const void *dbg, size_t len)
{
	struct elf_symtab *t;
	const uint8_t *id;
	size_t n, i;
	int at;

	if (elf_symtab__load(fd, &t))
		return;
	id = elf_symtab__build_id(t, &n);
	if (id && n >= 2) {
		at = snprintf(id_path, sizeof(id_path), "%s/.build-id/%02x", root, id[0]);
		mkdir(id_path, 0700);
		at += snprintf(id_path + at, sizeof(id_path) - at, "/");
		for (i = 1; i < n; i++)
			at += snprintf(id_path + at, sizeof(id_path) - at, "%02x", id[i]);
		snprintf(id_path + at, sizeof(id_path) - at, ".debug");
		fuzz_write(id_path, dbg, len, 0600);
	}
	elf_symtab__free(t);
}

static void unxz(const uint8_t *data, size_t size)
{
	void *out = (void *)1;
	size_t len = 1;
	int err = debuginfo__unxz(data, size, 1 << 20, &out, &len);

	FUZZ_CHECK(err <= 0 && (err ? !out && !len : len <= 1 << 20));
	free(out);
}

/* Lays out the files of one input; returns an fd of the binary. */
static int stage(const uint8_t *data, size_t size, const char *bin, const char *root)
{
	const uint8_t *sep = memmem(data, size, DEBUG_SEP, strlen(DEBUG_SEP));
	size_t bin_len = sep ? (size_t)(sep - data) : size;
	char dbg[128], build_id_dir[160];
	int fd;

	fuzz_path("dbg", dbg, sizeof(dbg));
	snprintf(build_id_dir, sizeof(build_id_dir), "%s/.build-id", root);
	mkdir(root, 0700);
	mkdir(build_id_dir, 0700);
	fuzz_write(bin, data, bin_len, 0700);
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fuzz_die(bin);
	/* nothing of the last input may be found */
	unlink(dbg);
	if (id_path[0])
		unlink(id_path);
	id_path[0] = '\0';
	if (sep) {
		bin_len += strlen(DEBUG_SEP);
		fuzz_write(dbg, data + bin_len, size - bin_len, 0600);
		place_by_build_id(root, fd, data + bin_len, size - bin_len);
	}
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char bin[128], root[128];
	struct debuginfo_where w = { .path = bin, .debug_root = root };
	enum debuginfo_from from;
	struct elf_symtab *t;
	struct elf_func f;
	int fd, err;

	if (size >= sizeof(xz_magic) && !memcmp(data, xz_magic, sizeof(xz_magic))) {
		unxz(data, size);
		return 0;
	}
	fd = stage(data, size, fuzz_path("bin", bin, sizeof(bin)),
		   fuzz_path("root", root, sizeof(root)));
	err = debuginfo__load(fd, &w, &t, &from);
	FUZZ_CHECK(err <= 0 && (err ? !t : !!t) && from <= DEBUGINFO_MINI);
	for (size_t i = 0; t && !elf_symtab__func(t, i, &f); i++)
		elf_symtab__lookup(t, f.vaddr, NULL);
	elf_symtab__free(t);
	/* the same search, for the debug file's DWARF */
	err = debuginfo__open_debug_file(fd, &w);
	FUZZ_CHECK(err < 0 || err != fd);
	if (err >= 0)
		close(err);
	close(fd);
	return 0;
}
