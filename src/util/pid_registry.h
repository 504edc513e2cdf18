/* What is kept of each process by pid: one entry of the caller's struct a
 * process, made on first need and made as new again when the process
 * exits (the runtimes' readers: jvm_procs, py_procs). */
#ifndef FLAMEBPF_PID_REGISTRY_H
#define FLAMEBPF_PID_REGISTRY_H

#include <stddef.h>
#include <sys/types.h>

#include "hashmap.h"

/* Makes entry (size bytes, uninitialised) pid's, as a process never seen. */
typedef void (*pid_registry_init_fn)(void *entry, pid_t pid);
/* Lets go of what entry holds (not entry itself). */
typedef void (*pid_registry_release_fn)(void *entry);

struct pid_registry {
	struct hashmap by_pid; /* pid -> 1 + index in v */
	void *v;
	size_t n, cap;
	size_t size; /* of an entry */
	pid_registry_init_fn init;
	pid_registry_release_fn release;
};

/* An empty registry of entries of size bytes; release may be NULL. */
void pid_registry__init(struct pid_registry *r, size_t size, pid_registry_init_fn init,
			pid_registry_release_fn release);

/* pid's entry, or NULL. Entries move when one is made: a pointer is good
 * until the next pid_registry__findnew. */
void *pid_registry__find(const struct pid_registry *r, pid_t pid);

/* pid's entry, made now if it has none. NULL when out of memory. */
void *pid_registry__findnew(struct pid_registry *r, pid_t pid);

/* pid exited: what its entry holds is let go and the entry made as new,
 * for a process that gets its pid. The entry itself stays (the map cannot
 * delete), so a long capture keeps a few bytes a pid. */
void pid_registry__forget(struct pid_registry *r, pid_t pid);

/* The entries, forgotten ones included, as the i-th for i below
 * pid_registry__count. */
size_t pid_registry__count(const struct pid_registry *r);
void *pid_registry__at(const struct pid_registry *r, size_t i);

/* Releases every entry and frees the registry's memory (not r). */
void pid_registry__free(struct pid_registry *r);

#endif
