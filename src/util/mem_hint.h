/* Large blocks backed by huge pages where the kernel offers them on
 * request (transparent_hugepage "madvise", the default): a profile of 100k
 * stacks faults in tens of thousands of 4 KiB pages, and a page fault costs
 * microseconds in a VM. */
#ifndef FLAMEBPF_MEM_HINT_H
#define FLAMEBPF_MEM_HINT_H

#include <stddef.h>

/* Asks for huge pages under the block [p, p + n) when it is large enough
 * to hold some; harmless (and ignored) otherwise. */
void mem_hint__huge(void *p, size_t n);

#endif
