// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <sys/mman.h>

#include "mem_hint.h"

#define HUGE_PAGE (2u << 20)

void mem_hint__huge(void *p, size_t n)
{
	uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t end = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);

	/* only whole huge pages inside the block: its neighbours are the
	 * allocator's, and a failure changes nothing but speed */
	if (p && n >= HUGE_PAGE && start < end)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}
