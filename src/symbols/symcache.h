/* Binaries whose symbols were read, shared by every process that maps them,
 * keyed by device and inode; their symbol tables are shared by build-id
 * too, so that another copy of a file (in another container, say) keeps its
 * own name but is not read again. */
#ifndef FLAMEBPF_SYMCACHE_H
#define FLAMEBPF_SYMCACHE_H

#include <stdbool.h>
#include <sys/types.h>

#include "debuginfo.h"
#include "elf_symtab.h"
#include "proc_maps.h"
#include "srcline.h"

struct binary {
	char *path;		    /* as mapped, without " (deleted)" */
	const char *name;	    /* basename of path, for MODULE+0xOFF frames */
	struct elf_symtab *syms;    /* NULL when the file could not be read */
	bool borrowed;		    /* syms belong to another file with its build-id */
	int err;		    /* why syms is NULL */
	char build_id[2 * 64 + 1];  /* hex, "" when the binary has none */
	enum debuginfo_from debug;  /* where symbols beyond .dynsym came from */
	int names_fd;		    /* the file its table left names in, or -1 */
	const struct binary *names; /* borrowed: the binary whose file holds the names */
	struct srcline *lines;	    /* DWARF, read on first use (symcache__srcline) */
	int lines_fd;		    /* the file lines reads */
	bool lines_tried;
	/* the cache's: its keys, and its age when last found */
	uint64_t file_key, id_key;
	unsigned long used;
};

struct symcache;

/* debug_root: where separate debug files are (NULL: DEBUGINFO_ROOT); the
 * string must outlive the cache. Returns NULL when out of memory. */
struct symcache *symcache__new(const char *debug_root);

/* The binary behind a file mapping of pid; its symbols are read on first use
 * of the file, or of another file with its build-id (with those of its debug
 * file when it is stripped, see debuginfo.h). The path is opened as we see
 * it, else from root (pid's root directory in a container, procs__root(), 0
 * for ours), else through /proc/PID/map_files (a deleted or replaced file).
 * Returns NULL only when out of memory. */
struct binary *symcache__findnew(struct symcache *c, const struct map_entry *m, pid_t pid,
				 int root);

/* The kernel's vDSO (vdso_image.h), read on the first call: the binary
 * of a [vdso] mapping size bytes long, or NULL when ours is not as long
 * (not the same image: a 32-bit process's) or cannot be read. */
struct binary *symcache__vdso(struct symcache *c, uint64_t size);

/* The DWARF lines and inlined calls of b (mapped by m in pid): from the
 * file itself, else from its separate debug file. Read on the first call;
 * NULL when there is none. */
struct srcline *symcache__srcline(struct symcache *c, struct binary *b, const struct map_entry *m,
				  pid_t pid, int root);

/* The name b's table left in its file at in_file (elf_symtab__lookup_ref),
 * malloc'd; NULL when it cannot be read. */
char *symcache__name(const struct binary *b, uint64_t in_file);

/* A long capture (--continuous) ages the cache once an interval, and
 * evicts the binaries not found in the last ages ages (those nobody maps
 * any more, or whose processes did not run), then, while their symbols
 * hold more than budget bytes, those found longest ago: read again if they
 * are needed again. No binary may be in use across the call. Returns how
 * many were evicted. */
void symcache__age(struct symcache *c);
size_t symcache__evict(struct symcache *c, unsigned long ages, size_t budget);

void symcache__free(struct symcache *c);

#endif
