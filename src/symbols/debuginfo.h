/* The symbols of a binary stripped of its .symtab, from where distributions
 * put them, as gdb and perf look for them: a separate debug file found by
 * GNU build-id (/usr/lib/debug/.build-id/xx/yyyy.debug) or by the
 * .gnu_debuglink section (its CRC checked), or the xz-compressed ELF of the
 * .gnu_debugdata section (MiniDebugInfo). Their functions complement the
 * exported ones of .dynsym. */
#ifndef FLAMEBPF_DEBUGINFO_H
#define FLAMEBPF_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "elf_symtab.h"

#define DEBUGINFO_ROOT "/usr/lib/debug"
/* Bounds what a binary owned by anyone can make us read or inflate. */
#define DEBUGINFO_FILE_MAX (4ULL << 30)
#define DEBUGINFO_XZ_MAX   (256UL << 20)

enum debuginfo_from {
	DEBUGINFO_NONE,	    /* the file's own symbols only */
	DEBUGINFO_BUILD_ID, /* DEBUG_ROOT/.build-id/xx/yyyy.debug */
	DEBUGINFO_LINK,	    /* .gnu_debuglink */
	DEBUGINFO_MINI,	    /* .gnu_debugdata */
};

struct debuginfo_where {
	const char *path;	/* the binary, as the process that maps it names it */
	int root;		/* its root when not ours (proc_root__get), else 0 */
	const char *debug_root; /* NULL: DEBUGINFO_ROOT */
	bool names_left;	/* debuginfo__load: see elf_symtab__load_as */
};

/* Loads the symbols of the ELF file open on fd (see elf_symtab__load). When
 * it has no .symtab, the first debug file that matches it is merged in: by
 * build-id, by debuglink, then MiniDebugInfo; paths are looked up under the
 * process's root first, then ours. A missing or unusable debug file is no
 * error. Sets *from (if not NULL). Returns 0 or -errno as elf_symtab__load. */
int debuginfo__load(int fd, const struct debuginfo_where *w, struct elf_symtab **out,
		    enum debuginfo_from *from);

/* Opens the separate debug file of the ELF file open on fd, as
 * debuginfo__load finds it (by build-id, then by debuglink with its CRC;
 * MiniDebugInfo holds symbols only), for its DWARF. Returns an fd, -ENOENT
 * when there is none, or -errno. */
int debuginfo__open_debug_file(int fd, const struct debuginfo_where *w);

/* Decompresses one xz stream of len bytes into a malloc'd buffer of at most
 * max bytes. Returns 0, -EFBIG past max, -EINVAL for corrupt or truncated
 * input, or -ENOMEM. */
int debuginfo__unxz(const void *in, size_t len, size_t max, void **out, size_t *out_len);

#endif
