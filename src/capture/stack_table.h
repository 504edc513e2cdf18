/* Raw stacks (instruction pointers, leaf first) by the id the kernel gave
 * them, as they arrive from the ring buffer. */
#ifndef FLAMEBPF_STACK_TABLE_H
#define FLAMEBPF_STACK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

struct stack_table {
	struct hashmap idx; /* id -> index in v */
	struct raw_stack {
		uint32_t nr;
		uint32_t used; /* the age it was last used in (stack_table__use) */
		uint64_t *ip;
		uint64_t id;
		bool unsent; /* its id was taken off the sent map (stack_table__evict) */
	} * v;
	size_t n, cap;
	uint64_t collisions; /* ids that arrived again with other contents */
	uint32_t age;	     /* stack_table__evict's count */
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

/* The same, noted as used now. */
const struct raw_stack *stack_table__use(struct stack_table *t, uint64_t id);

/* Ends an age of a long capture (--continuous): the stacks not used in the
 * last ages ages are let go, in two steps, so that no sample can name one
 * no longer there. First unsend(id, arg) takes its id off the kernel
 * side's map of ids sent, so that a sample taking it again sends it again;
 * then, an age later, it is freed if no sample used it meanwhile (one that
 * raced the first step, taken with the id still marked sent, was read and
 * used it in between). Returns how many were freed. */
size_t stack_table__evict(struct stack_table *t, uint32_t ages,
			  void (*unsend)(uint64_t id, void *arg), void *arg);

void stack_table__free(struct stack_table *t);

#endif
