/* Binaries whose symbols were read, shared by every process that maps them,
 * keyed by device and inode. */
#ifndef FLAMEBPF_SYMCACHE_H
#define FLAMEBPF_SYMCACHE_H

#include <sys/types.h>

#include "elf_symtab.h"
#include "proc_maps.h"

struct binary {
	char *path;		   /* as mapped, without " (deleted)" */
	const char *name;	   /* basename of path, for MODULE+0xOFF frames */
	struct elf_symtab *syms;   /* NULL when the file could not be read */
	int err;		   /* why syms is NULL */
	char build_id[2 * 64 + 1]; /* hex, "" when the binary has none */
};

struct symcache;

struct symcache *symcache__new(void);

/* The binary behind a file mapping of pid; its symbols are read on first use.
 * Returns NULL only when out of memory. */
struct binary *symcache__findnew(struct symcache *c, const struct map_entry *m, pid_t pid);

void symcache__free(struct symcache *c);

#endif
