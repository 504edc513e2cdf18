/* The names an Erlang node's JIT gives its code, read from the node's
 * memory: OTP's JIT (24+) registers every module it loads with GDB's JIT
 * interface (the __jit_debug_descriptor that beam.smp exports, a list of
 * in-memory "symbol files"), in OTP's own format (erts/etc/unix/jit-reader.c
 * reads it for gdb): per module its code's address and size, and per
 * function its range, named "busy:heavy/0", "'Elixir.Busy':heavy/0". This
 * is there whatever flags the node was started with, so a node without
 * +JPperf true (no perf map) is named from outside, without a restart. */
#ifndef FLAMEBPF_BEAM_JIT_H
#define FLAMEBPF_BEAM_JIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfmap.h"
#include "proc_maps.h"
#include "proc_mem.h"

/* Bounds on what a node's memory can make us read: a module's symbol file
 * (its line table included) and the modules of a node. */
#define BEAM_JIT_MAX_SYMFILE (64UL << 20)
#define BEAM_JIT_MAX_MODULES (1UL << 16)

/* __jit_debug_descriptor's address in a process that maps beam.smp as m,
 * the file found under root (the process's root, proc_root.h; 0: ours).
 * Returns 0, -ENOENT when the file exports none (an emulator without the
 * JIT), or -errno. */
int beam_jit__locate(int root, const struct map_entry *m, uint64_t *descriptor);

/* What the list tells of the JIT's code as a whole. */
struct beam_jit_info {
	uint64_t code_lo, code_hi; /* [code_lo, code_hi): every module's code; 0: none yet */
	uint64_t normal_exit;	   /* where the outermost Erlang frame returns to */
	bool emulator;		   /* the emulator's record was read (the two below) */
	bool frame_pointers;	   /* its code keeps them (+JPperf true or +JPframe true) */
};

/* Reads the functions the JIT registered into a perf map (perfmap.h),
 * each named as +JPperf true names it in /tmp/perf-PID.map: "$" and its
 * range name ("$busy:heavy/0", "$global::process_main"). *stamp tells the
 * list's state at the last read: when it is unchanged, returns 1 and
 * leaves *out NULL; else *stamp is set to the state read (0 when a part
 * could not be read, the JIT changing the list meanwhile: read again next
 * time), and *info from the same read. A read with a part missing that
 * names fewer functions than held (the map of the last read, or NULL)
 * returns 1 too. Returns 0, 1, -EFAULT when the descriptor cannot be
 * read, -EPROTO when it is not one, or -ENOMEM. */
int beam_jit__read(const struct proc_mem *mem, uint64_t descriptor, uint64_t *stamp,
		   const struct perfmap *held, struct perfmap **out, struct beam_jit_info *info);

#endif
