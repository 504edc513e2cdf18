/* Growing arrays: the realloc-doubling every collector needs. */
#ifndef FLAMEBPF_ARRAY_H
#define FLAMEBPF_ARRAY_H

#include <stddef.h>

/* Makes room in *v (capacity *cap elements of size bytes) for need
 * elements, doubling. Returns 0 or -ENOMEM (then *v is unchanged). */
int array__reserve(void **v, size_t *cap, size_t need, size_t size);

/* Appends a copy of elem after the *n elements of *v. Returns 0 or -ENOMEM. */
int array__push(void **v, size_t *n, size_t *cap, const void *elem, size_t size);

#endif
