/* The user-space half of the in-kernel unwinder (bpf/unwind.bpf.h): builds
 * each binary's unwind table once, by file and build-id, into the BPF row array, and
 * writes each process's executable mappings with the tables that cover them
 * into the BPF process map. */
#ifndef FLAMEBPF_UNWINDER_H
#define FLAMEBPF_UNWINDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/proc_maps.h"

/* Most rows the row array takes: 64 MiB, as 8-byte rows in chunks of
 * UNWIND_CHUNK_ROWS made as rows are placed, so that memory follows the
 * binaries in use (libc has 28k rows, python 65k, libLLVM 1.1M, and clang
 * with its libraries 2.2M). Binaries that do not fit use frame pointers
 * and are named. */
#define UNWINDER_ROWS_MAX (1u << 23)

struct unwinder_stats {
	size_t files;	      /* binaries with a table loaded */
	size_t files_shared;  /* files whose binary had a table by build-id, under another inode */
	size_t files_without; /* binaries with no usable call-frame information */
	size_t files_no_room; /* binaries whose table did not fit in the row array */
	const char *no_room;  /* the first of those */
	uint64_t rows, max_rows;
	uint64_t rows_refused; /* rows whose offsets did not fit 8 bytes: no unwinding there */
	uint64_t bytes;	       /* kernel memory of the row array's chunks */
	size_t processes;      /* mapping tables written */
	size_t maps_truncated; /* processes with more than UNWIND_MAX_MAPPINGS mappings */
	size_t procs_failed;   /* processes whose mappings could not be written (map full) */
	double build_ms;       /* time spent building tables */
};

struct unwinder;
struct bpf_map;

/* Before its object is loaded: makes rows, the BPF array of row chunks
 * (max_rows / UNWIND_CHUNK_ROWS entries), and its first chunk, which goes
 * in place while the programs are verified (map_slot.h); the tables of
 * the C library and the loader we map are built meanwhile on a thread
 * (most programs map them: a command's first samples find their rows at
 * once). Returns 0 or -errno. */
int unwinder__new(struct unwinder **out, struct bpf_map *rows, uint32_t max_rows);

/* Once the object is loaded: waits for the first chunk to be in place and
 * for those tables. procs_fd: the BPF process map; files_fd: its map of
 * binaries with tables by inode; below_fd: its map of the processes whose
 * frame pointer may lie below the stack pointer once (Go programs go in
 * as their entries are written). Returns 0 or -errno. */
int unwinder__ready(struct unwinder *u, int procs_fd, int files_fd, int below_fd);

/* Loads the tables of the binaries pid maps (its mappings as just read;
 * files opened from root, its root directory when not ours, procs__root())
 * and writes its mapping table. A binary that cannot be read or has no
 * call-frame information, or no room left, is listed without a table (the
 * BPF side uses frame pointers there). Returns 0, or -errno when the BPF map
 * could not be written. */
int unwinder__add_process(struct unwinder *u, pid_t pid, int root, const struct proc_maps *maps);

struct procs;

/* Loads the tables of pid's newest snapshot in ps as unwinder__add_process()
 * does; none is not an error. Returns 0 or -ENOMEM. */
int unwinder__add_latest(struct unwinder *u, struct procs *ps, pid_t pid);

/* Snapshots pid's mappings into ps (its names, after it exits) and, when u
 * is not NULL, loads its tables as unwinder__add_latest() does. A process
 * gone already is not an error. Returns 0 or -ENOMEM. */
int unwinder__snapshot(struct unwinder *u, struct procs *ps, pid_t pid);

/* pid runs a JVM whose template interpreter is [lo, hi) (0, 0: none any
 * more): its entries say so from the next one written (struct
 * unwind_proc), which is not written now. Returns 1 when that changed, 0
 * when not, or -ENOMEM. */
int unwinder__note_jvm(struct unwinder *u, pid_t pid, uint64_t lo, uint64_t hi);

/* As unwinder__note_jvm(), and pid's entry written again now if that
 * changed. Returns 0 or -errno. */
int unwinder__set_jvm(struct unwinder *u, struct procs *ps, pid_t pid, uint64_t lo, uint64_t hi);

void unwinder__stats(const struct unwinder *u, struct unwinder_stats *st);

void unwinder__free(struct unwinder *u);

#endif
