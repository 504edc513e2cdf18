/* Unwind tables for an in-kernel DWARF unwinder: the call-frame information of
 * an x86-64 ELF file flattened into rows sorted by address, each saying how to
 * find the caller's frame from anywhere in its address range. The row layout
 * is what a BPF program can binary-search in an array map.
 */
#ifndef FLAMEBPF_UNWIND_TABLE_H
#define FLAMEBPF_UNWIND_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "unwind.h" /* the row layout */

struct unwind_stats {
	size_t nfdes;	  /* FDEs that gave rows */
	size_t nfdes_bad; /* FDEs left out or cut short: malformed, overlapping, out of code */
	bool truncated;	  /* the walk stopped at a malformed entry: FDEs after it are lost */
	bool debug_frame; /* read from .debug_frame: the file has no .eh_frame FDEs */
	size_t nrows[UNWIND_KIND_COUNT];
	uint64_t code_bytes;			   /* bytes of executable sections */
	uint64_t code_bytes_by[UNWIND_KIND_COUNT]; /* of those, bytes each kind of row covers */
};

struct unwind_table;

/* Builds the table of the x86-64 ELF file (ET_EXEC or ET_DYN) open on fd, from
 * .eh_frame, else .debug_frame, else through PT_GNU_EH_FRAME when the file has
 * no section headers. fd stays open and owned by the caller. Returns 0,
 * -ENOEXEC (not ELF), -EOPNOTSUPP (another machine, class or type), -ENOENT
 * (no call-frame information), -EBADMSG (nothing usable in it) or -errno.
 * Malformed FDEs are left out and counted: the table may be partial. */
int unwind_table__build(int fd, struct unwind_table **out);

/* Where unwind_table__build_to() gives a table's rows as they are made. */
struct unwind_sink {
	/* The next n rows, final, in order of pc; a batch at a time. A
	 * negative errno stops the build, which returns it. */
	int (*rows)(void *ctx, const struct unwind_row *rows, size_t n);
	void *ctx;
};

/* The same, with the rows given to sink (if not NULL) as they are made,
 * never all in memory at once: the table has its stats and
 * unwind_table__bias(), and no rows. */
int unwind_table__build_to(int fd, const struct unwind_sink *sink, struct unwind_table **out);

/* The same from the bytes of a .eh_frame (or .debug_frame) section loaded at
 * vaddr, with no check that FDEs cover code. The bytes are not kept. */
int unwind_table__parse(const void *buf, size_t len, uint64_t vaddr, bool debug_frame,
			struct unwind_table **out);

/* All rows, sorted by pc; the last is an UNWIND_NONE row after the last FDE. */
const struct unwind_row *unwind_table__rows(const struct unwind_table *t, size_t *n);

/* The row covering pc, or NULL when pc is below the first row. */
const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc);

/* How far the mapping [start, end) of file offset `offset` (a line of
 * /proc/PID/maps) moved the file's code: address in the process minus
 * link-time address. Tables built from a file only. Returns 0, or -ENOENT
 * when the mapping holds none of its executable segments. */
int unwind_table__bias(const struct unwind_table *t, uint64_t start, uint64_t end, uint64_t offset,
		       uint64_t *bias);

const struct unwind_stats *unwind_table__stats(const struct unwind_table *t);

/* Frees the rows once they are copied elsewhere (a BPF map); the stats and
 * unwind_table__bias() still work, the rest sees an empty table. */
void unwind_table__drop_rows(struct unwind_table *t);

void unwind_table__free(struct unwind_table *t);

#endif
