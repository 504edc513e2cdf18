/* Python processes of a capture: which CPython each runs, where its
 * runtime state is, and the code objects its sampled frames ran, read
 * while it is alive and kept by address. */
#ifndef FLAMEBPF_PY_PROCS_H
#define FLAMEBPF_PY_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile/profile.h"
#include "util/hashmap.h"
#include "procs.h"
#include "py_code.h"

struct py_procs;

/* Returns NULL and sets errno on failure. */
struct py_procs *py_procs__new(void);

/* Looks for CPython in pid's newest snapshot (an executable or a library
 * named python3.N or libpython3.N, with a _PyRuntime symbol), into *out for
 * the BPF walk. Returns 0 when found with a known layout; -ENOENT when pid
 * runs no Python; -EPROTONOSUPPORT for a version whose layout is not known
 * (kept for py_procs__unknown); or -errno. */
int py_procs__detect(struct py_procs *pp, struct procs *ps, pid_t pid, struct py_proc *out);

/* Reads (once) the code objects of an EV_PYSTACK record's frames, ip[0]
 * the process, while it lives. Returns 0 or -ENOMEM. */
int py_procs__read_record(struct py_procs *pp, const uint64_t *ip, uint32_t nr);

/* The Python frames of an EV_PYSTACK record, root first, as profile frames
 * ("NAME (FILE:LINE)", of binary FILE) into ids, with entry[i] where the
 * evaluation loop was entered (py_merge.h). made caches them for p: one
 * map per profile, kept by the caller. Returns how many (at most cap) or
 * -ENOMEM. */
int py_procs__frames(struct py_procs *pp, struct profile *p, struct hashmap *made,
		     const uint64_t *ip, uint32_t nr, uint32_t *ids, bool *entry, size_t cap);

/* pid exited: the code objects read of it are let go (a long capture's
 * memory stays flat); a process that gets its pid is looked at afresh. */
void py_procs__forget(struct py_procs *pp, pid_t pid);

/* Whether pid was found running a Python of a known layout. */
bool py_procs__is_python(const struct py_procs *pp, pid_t pid);

/* Processes found with a known layout, and the first version found among
 * them ("python3.11"), into name. */
size_t py_procs__count(const struct py_procs *pp, char *name, size_t len);

/* The first version found whose layout is not known ("python3.13"), or
 * NULL. */
const char *py_procs__unknown(const struct py_procs *pp);

void py_procs__free(struct py_procs *pp);

#endif
