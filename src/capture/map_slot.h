/* Maps of maps made before libbpf loads their object, their slot 0 filled
 * on a thread of its own while the kernel verifies the programs: an update
 * of a map of maps returns only after an RCU grace period
 * (maybe_wait_bpf_programs), 5-10 ms each on these VMs, which the start
 * otherwise waited for after the verifier, once per map of maps. */
#ifndef FLAMEBPF_MAP_SLOT_H
#define FLAMEBPF_MAP_SLOT_H

#include <pthread.h>
#include <stdbool.h>

struct bpf_map;

struct map_slot {
	pthread_t thread;
	int outer_fd; /* the caller's to close: libbpf holds a copy */
	int inner_fd; /* the caller's */
	int err;      /* the update's */
	bool running;
};

/* Makes a map as libbpf defines m (type, sizes, flags and max_entries as
 * set before the load; inner_fd: the template of a map of maps, else -1)
 * and has libbpf use it rather than make its own. Returns its fd, the
 * caller's to close, or -errno. */
int map_slot__make(struct bpf_map *m, int inner_fd);

/* Makes outer, a map of maps, with inner_fd as its template, and puts
 * inner_fd in its slot 0 on a thread (here, if no thread can be made).
 * Returns 0 or -errno; ms is ready for map_slot__finish() either way. */
int map_slot__start(struct map_slot *ms, struct bpf_map *outer, int inner_fd);

/* Waits for the slot to be filled. Returns 0 or the update's -errno; a
 * second call returns the same. */
int map_slot__finish(struct map_slot *ms);

#endif
