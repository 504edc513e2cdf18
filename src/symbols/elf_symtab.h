/* Function symbols of one ELF file (.symtab and .dynsym), for address lookup;
 * and its PLT stubs, which only lookup names ("strlen@plt"): they are not
 * functions to list or probe. */
#ifndef FLAMEBPF_ELF_SYMTAB_H
#define FLAMEBPF_ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_symtab;

/* One function: every symbol at one address, under its best name. A name is
 * the symbol's, but for a non-default version of a .dynsym name, which is
 * "name@VERSION" (memcpy@GLIBC_2.2.5 beside memcpy, the default); .symtab
 * names lose the "@@VERSION" of a default version. */
struct elf_func {
	const char *name; /* the best of its names; lives as long as the table */
	uint64_t vaddr;	  /* link-time address */
	uint64_t size;	  /* bytes it covers: its size, else up to the next function */
	size_t nalias;	  /* its other names: elf_symtab__alias() */
	bool sized;	  /* the ELF states a size (else size is a guess) */
	bool ifunc;	  /* an STT_GNU_IFUNC resolver, which runs once, not per call
			   * (a name of it is an IFUNC symbol) */
};

/* Reads the symbols, the PT_LOAD segments and the build-id of the ELF file open
 * on fd (fd stays open and owned by the caller). Returns 0, -ENOEXEC when fd
 * is not an ELF file, or -errno. A file without symbols loads fine (empty). */
int elf_symtab__load(int fd, struct elf_symtab **out);

/* A separate debug file of a stripped ELF file (see debuginfo.h): open on
 * fd, or, when fd < 0, an ELF image in memory (writable: libelf may convert
 * it in place). */
struct elf_debug_file {
	int fd;
	void *image;
	size_t size;
};

/* Like elf_symtab__load, with the function symbols of dbg's .symtab merged
 * in (symbols of both at one address are aliases). Returns -ENOMSG when dbg
 * holds no function symbol, or is for another machine, or carries another
 * build-id than the file (both being present); -ENOEXEC when it is not ELF. */
int elf_symtab__load_with(int fd, const struct elf_debug_file *dbg, struct elf_symtab **out);

/* elf_symtab__load_with; with names_left, the names the file holds as they
 * are (most of them) are not copied, the table keeps where the file holds
 * them: a symbolizer reads a name when a sample needs it
 * (elf_symtab__lookup_ref, elf_symtab__read_name) rather than every name of
 * every binary it maps, which a C++ library has MiBs of, and the load
 * does not hold them all either (it sorts them where libelf maps them).
 * Then elf_symtab__lookup gives NULL for those, elf_symtab__func a NULL
 * name, and no alias is kept; the best name of a function is the same. */
int elf_symtab__load_as(int fd, const struct elf_debug_file *dbg, bool names_left,
			struct elf_symtab **out);

/* Whether a .symtab gave functions (the file's own, or a debug file's merged
 * in): when not, the file was stripped and only its exported (.dynsym)
 * functions have names. */
bool elf_symtab__has_symtab(const struct elf_symtab *t);

/* Translates a file offset inside an executable PT_LOAD segment to the
 * link-time virtual address that symbols use. Returns 0 or -ENOENT. */
int elf_symtab__vaddr(const struct elf_symtab *t, uint64_t file_off, uint64_t *vaddr);

/* The inverse: a link-time address inside an executable PT_LOAD segment to
 * its file offset (what uprobes attach at). Returns 0 or -ENOENT. */
int elf_symtab__file_offset(const struct elf_symtab *t, uint64_t vaddr, uint64_t *off);

/* The function or PLT stub containing vaddr: its name, and vaddr's offset
 * from its start. Returns NULL when none covers vaddr. A symbol without a
 * size covers up to the next one, within its section. The name lives as
 * long as t. */
const char *elf_symtab__lookup(const struct elf_symtab *t, uint64_t vaddr, uint64_t *off);

/* elf_symtab__lookup; for a name left in the file, NULL with *in_file set
 * to where the file holds it (else *in_file is 0). */
const char *elf_symtab__lookup_ref(const struct elf_symtab *t, uint64_t vaddr, uint64_t *off,
				   uint64_t *in_file);

/* The name at in_file of the file open on fd (the one the table was read
 * from), malloc'd into *out, less a .symtab name's "@@VERSION" as the
 * table gives it. Returns 0, -EINVAL when no name ends there within 64 KiB
 * (the file changed), -ENOMEM, or -errno. */
int elf_symtab__read_name(int fd, uint64_t in_file, char **out);

/* The GNU build-id (NULL, *len = 0 when there is none). */
const uint8_t *elf_symtab__build_id(const struct elf_symtab *t, size_t *len);

/* Only the GNU build-id of the ELF file fd (from its PT_NOTE segments),
 * without reading its symbols: into id (max bytes), its length in *len.
 * Returns 0, -ENOENT (none, or longer than max) or -ENOEXEC. */
int elf_symtab__read_build_id(int fd, uint8_t *id, size_t max, size_t *len);

/* How many functions (distinct addresses) the table holds. */
size_t elf_symtab__count(const struct elf_symtab *t);

/* The i-th function in address order. Returns 0, or -ENOENT when i >= count. */
int elf_symtab__func(const struct elf_symtab *t, size_t i, struct elf_func *f);

/* The function covering vaddr. Returns 0, or -ENOENT when none does. */
int elf_symtab__func_at(const struct elf_symtab *t, uint64_t vaddr, struct elf_func *f);

/* The index of the function that starts at vaddr. Returns 0 or -ENOENT. */
int elf_symtab__find(const struct elf_symtab *t, uint64_t vaddr, size_t *i);

/* The k-th other name of the i-th function (best first), or NULL past the last. */
const char *elf_symtab__alias(const struct elf_symtab *t, size_t i, size_t k);

/* Whether the k-th name of the i-th function (0: its best, k: alias k - 1)
 * is an STT_GNU_IFUNC symbol, not the plain name of its resolver. */
bool elf_symtab__ifunc_name(const struct elf_symtab *t, size_t i, size_t k);

/* The ELF file type: ET_EXEC (fixed addresses) or ET_DYN (PIE, library). */
uint16_t elf_symtab__type(const struct elf_symtab *t);

/* The heap t holds, in bytes (0 for NULL): what keeping it costs. */
size_t elf_symtab__bytes(const struct elf_symtab *t);

void elf_symtab__free(struct elf_symtab *t);

#endif
