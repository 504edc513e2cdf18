/* Processes seen during a capture and snapshots of their mappings, taken
 * while they were alive so that they can be symbolized after they exit. */
#ifndef FLAMEBPF_PROCS_H
#define FLAMEBPF_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfmap.h"
#include "proc_maps.h"

struct procs;

/* Returns NULL and sets errno on failure. */
struct procs *procs__new(void);

/* Takes a new snapshot of pid's executable mappings (kept beside the older
 * ones: an exec replaces the image), and opens its perf map if it has one.
 * Returns 0, -ESRCH, or -errno. */
int procs__snapshot(struct procs *ps, pid_t pid);

/* Records a mapping pid made (mmap_events.h), for when no snapshot holds
 * its address: the process may be gone before one is taken. e is copied.
 * Returns 0, -ENOSPC past a bound per process or for all of them together,
 * or -ENOMEM. */
int procs__add_history(struct procs *ps, pid_t pid, const struct map_entry *e);

/* pid forked from parent (0: it exec'd since): until it has maps of its
 * own, it has its parent's. Returns 0 or -ENOMEM. */
int procs__set_parent(struct procs *ps, pid_t pid, pid_t parent);

/* pid had a sample (or asked for a look at its maps): its mappings matter
 * after it exits, and those of the parents it has not exec'd since forking
 * from. Returns 0 or -ENOMEM. */
int procs__note_sampled(struct procs *ps, pid_t pid);

/* Whether procs__note_sampled() was told of pid. */
bool procs__sampled(const struct procs *ps, pid_t pid);

/* Lets go of the mappings recorded of pid as it made them. Returns how
 * many. */
size_t procs__drop_history(struct procs *ps, pid_t pid);

/* The mapping of addr in pid, newest snapshot first, then the mappings
 * recorded as they were made, then (when pid is gone) its parent's if it
 * forked without exec. When none holds it and
 * the process is alive, a fresh snapshot is taken (it may have mapped
 * something since). NULL when nothing maps addr. */
const struct map_entry *procs__find(struct procs *ps, pid_t pid, uint64_t addr);

/* pid's newest snapshot, or NULL when it has none. */
const struct proc_maps *procs__latest(struct procs *ps, pid_t pid);

/* The JIT symbols pid wrote to its perf map (perfmap.h): /tmp/perf-PID.map,
 * under the process's own root and pid number when it is in a container.
 * Read on the first call, once, with all the process wrote; when the file
 * is gone by then (JITs may delete it at exit), the one its first snapshot
 * found and kept open. NULL when there is none. */
const struct perfmap *procs__perfmap(struct procs *ps, pid_t pid);

/* The names pid's JIT keeps of its code in its own memory (beam_jit.h),
 * read while it lived: m (NULL: none) replaces the ones held before, and
 * is freed with ps. Returns 0 or -ENOMEM (m freed). */
int procs__set_jit_map(struct procs *ps, pid_t pid, struct perfmap *m);

/* What procs__set_jit_map kept for pid, or NULL. */
const struct perfmap *procs__jit_map(const struct procs *ps, pid_t pid);

/* The mappings pid made as procs__add_history recorded them, oldest
 * first, as a proc_maps view (not sorted; empty when none): all that is
 * known of a process gone before a snapshot. Valid until ps changes. */
struct proc_maps procs__history(const struct procs *ps, pid_t pid);

/* pid's perf map may have been written since it was read: the next
 * procs__perfmap reads it again. */
void procs__perfmap_changed(struct procs *ps, pid_t pid);

/* The processes seen, in the order they were: the pid of the i-th, for i
 * below procs__size; 0 for one that never had a snapshot. */
size_t procs__size(const struct procs *ps);
pid_t procs__pid_at(const struct procs *ps, size_t i);

/* pid's root directory when it is not ours (a container, a chroot), as
 * proc_root__get() gave it at its snapshot: it reaches the process's files
 * after the process is gone. 0 for ours, or when unknown. */
int procs__root(const struct procs *ps, pid_t pid);

/* How many processes had at least one snapshot. */
size_t procs__count(const struct procs *ps);

/* Forgets every process keep(pid, arg) is false for: its snapshots,
 * mappings and perf map (a long capture's processes that exited). Returns
 * how many were forgotten. */
size_t procs__evict(struct procs *ps, bool (*keep)(pid_t pid, void *arg), void *arg);

/* Drops every snapshot but the newest of each process: what a long
 * capture needs no more once the samples taken before it were named (a
 * process that maps code again and again would pile them up). Returns how
 * many were dropped. */
size_t procs__trim(struct procs *ps);

void procs__free(struct procs *ps);

#endif
