/* Raw stacks (instruction pointers, leaf first) by the id the kernel gave
 * them, as they arrive from the ring buffer. */
#ifndef FLAMEBPF_STACK_TABLE_H
#define FLAMEBPF_STACK_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

struct stack_table {
	struct hashmap idx; /* id -> index in v */
	struct raw_stack {
		uint32_t nr;
		uint64_t *ip;
	} * v;
	size_t n, cap;
	uint64_t collisions; /* ids that arrived again with other contents */
};

/* Stores the stack under id unless it is there already. A second arrival
 * with different contents is a hash collision: counted, the first kept.
 * Returns 0 or -ENOMEM. */
int stack_table__add(struct stack_table *t, uint64_t id, const uint64_t *ip, uint32_t nr);

/* Stores the stack of a ring-buffer record (struct sample_stack_event of
 * bpf/sample.h); a malformed record is ignored. Returns 0 or -ENOMEM. */
int stack_table__add_event(struct stack_table *t, const void *data, size_t size);

/* The stack stored under id, or NULL. */
const struct raw_stack *stack_table__find(const struct stack_table *t, uint64_t id);

void stack_table__free(struct stack_table *t);

#endif
