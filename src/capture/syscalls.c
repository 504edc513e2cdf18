// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "syscalls.h"

struct syscall {
	const char *name;
	int nr;
};

/* Sorted by name. */
static const struct syscall table[] = {
#include "gen/syscalls.h"
};

static int by_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct syscall *)elem)->name);
}

int syscalls__nr(const char *name)
{
	const struct syscall *s =
		bsearch(name, table, sizeof(table) / sizeof(table[0]), sizeof(table[0]), by_name);

	return s ? s->nr : -1;
}
