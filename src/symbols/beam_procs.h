/* The Erlang nodes of a capture (processes running beam.smp) and the
 * names their JITs keep of their code (beam_jit.h), read again while they
 * live whenever a node loaded or dropped code, so that a node that exits
 * before the end is named too. */
#ifndef FLAMEBPF_BEAM_PROCS_H
#define FLAMEBPF_BEAM_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "beam_jit.h"
#include "procs.h"

struct beam_procs;

/* Told each time a node's names were read anew, with what its JIT said of
 * its code as a whole. */
typedef void (*beam_procs_fn)(void *ctx, pid_t pid, const struct beam_jit_info *info);

/* changed (NULL: none) is called with ctx. Returns NULL and sets errno on
 * failure. */
struct beam_procs *beam_procs__new(beam_procs_fn changed, void *ctx);

/* Looks for beam.smp in pid's newest snapshot and its JIT's descriptor,
 * and reads its names now. Returns 0 when found; -ENOENT when pid is no
 * node (or one without the JIT), or -errno. */
int beam_procs__detect(struct beam_procs *bp, struct procs *ps, pid_t pid);

/* Reads again the names of each node found whose JIT changed its list
 * since (all of them with all: the list's head and last action may look
 * unchanged after one module was dropped and another registered at its
 * address), into ps (procs__set_jit_map). A node gone keeps what was
 * read. */
void beam_procs__refresh(struct beam_procs *bp, struct procs *ps, bool all);

/* How many nodes were found. */
size_t beam_procs__count(const struct beam_procs *bp);

void beam_procs__free(struct beam_procs *bp);

#endif
