// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "mem_hint.h"

int array__reserve(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *grown;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			return -ENOMEM;
		c *= 2;
	}
	grown = realloc(*v, c * size);
	if (!grown)
		return -ENOMEM;
	mem_hint__huge(grown, c * size);
	*v = grown;
	*cap = c;
	return 0;
}

int array__push(void **v, size_t *n, size_t *cap, const void *elem, size_t size)
{
	int err = array__reserve(v, cap, *n + 1, size);

	if (err)
		return err;
	memcpy((char *)*v + *n * size, elem, size);
	(*n)++;
	return 0;
}
