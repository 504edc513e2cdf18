/* The JVMs of a capture (processes that map HotSpot's libjvm.so): where
 * each one's template interpreter lies, for the BPF walk to record its
 * frames as the methods they run (struct unwind_proc's jvm_lo, jvm_hi),
 * and the names of those methods, read from its memory while it lives
 * (jvm_structs.h). */
#ifndef FLAMEBPF_JVM_PROCS_H
#define FLAMEBPF_JVM_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procs.h"

struct jvm_procs;

/* Returns NULL and sets errno on failure. */
struct jvm_procs *jvm_procs__new(void);

/* Looks for a JVM in pid's newest snapshot and, once its tables are read,
 * for its interpreter, into [*lo, *hi). Returns 0 when found; -ENOENT when
 * pid runs no JVM, or a HotSpot whose tables lack what naming takes;
 * -EAGAIN when it has not made its interpreter yet; or -errno. */
int jvm_procs__detect(struct jvm_procs *jp, struct procs *ps, pid_t pid, uint64_t *lo,
		      uint64_t *hi);

/* Whether a user stack was walked through a JVM's interpreter, its last
 * word saying whose (unwind.h): that pid into *pid. */
bool jvm_procs__stack_pid(const uint64_t *ip, uint32_t nr, pid_t *pid);

/* Names now, while the process lives, the methods of a stack's frames
 * that ran in a JVM's interpreter (unwind.h: the stack ends with the
 * process's pid), those not named before. Returns 0 or -ENOMEM. */
int jvm_procs__read_stack(struct jvm_procs *jp, const uint64_t *ip, uint32_t nr);

/* The name of the method of word (UNWIND_JVM_METHOD | its address) in
 * pid, as its perf map would name it ("long Hot.hot(long, long)"); NULL
 * when it could not be read. */
const char *jvm_procs__method(const struct jvm_procs *jp, pid_t pid, uint64_t word);

/* Whether ip, a return address of pid, is into its call stub, which C++
 * calls Java through (its perf map names it "StubRoutines (1)"). */
bool jvm_procs__is_call_stub(const struct jvm_procs *jp, pid_t pid, uint64_t ip);

/* pid exited: what was read of it is let go (a long capture's memory
 * stays flat), and a process that gets its pid is looked at afresh. */
void jvm_procs__forget(struct jvm_procs *jp, pid_t pid);

void jvm_procs__free(struct jvm_procs *jp);

#endif
