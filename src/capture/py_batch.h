/* The Python records a CPU kept and sent together (EV_PYSTACKS, struct
 * py_batch_event in bpf/python.h), taken apart. */
#ifndef FLAMEBPF_PY_BATCH_H
#define FLAMEBPF_PY_BATCH_H

#include <stddef.h>

/* Calls fn with each EV_PYSTACK record of the batch of size bytes at data,
 * whole (its nr words in), in order. 0, fn's nonzero value, or -EBADMSG
 * for a batch that is not whole records of that type. */
int py_batch__each(const void *data, size_t size, int (*fn)(void *arg, const void *rec, size_t len),
		   void *arg);

#endif
