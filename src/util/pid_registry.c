// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "pid_registry.h"

void pid_registry__init(struct pid_registry *r, size_t size, pid_registry_init_fn init,
			pid_registry_release_fn release)
{
	memset(r, 0, sizeof(*r));
	r->size = size;
	r->init = init;
	r->release = release;
}

void *pid_registry__at(const struct pid_registry *r, size_t i)
{
	return (char *)r->v + i * r->size;
}

size_t pid_registry__count(const struct pid_registry *r)
{
	return r->n;
}

void *pid_registry__find(const struct pid_registry *r, pid_t pid)
{
	uint64_t i;

	return hashmap__get(&r->by_pid, (uint64_t)pid, &i) ? pid_registry__at(r, i - 1) : NULL;
}

void *pid_registry__findnew(struct pid_registry *r, pid_t pid)
{
	void *e = pid_registry__find(r, pid);

	if (e)
		return e;
	if (array__reserve(&r->v, &r->cap, r->n + 1, r->size))
		return NULL;
	/* counted once the map names it: a failed set leaves nothing half made */
	e = pid_registry__at(r, r->n);
	r->init(e, pid);
	if (hashmap__set(&r->by_pid, (uint64_t)pid, r->n + 1)) {
		if (r->release)
			r->release(e);
		return NULL;
	}
	r->n++;
	return e;
}

void pid_registry__forget(struct pid_registry *r, pid_t pid)
{
	void *e = pid_registry__find(r, pid);

	if (!e)
		return;
	if (r->release)
		r->release(e);
	r->init(e, pid);
}

void pid_registry__free(struct pid_registry *r)
{
	for (size_t i = 0; r->release && i < r->n; i++)
		r->release(pid_registry__at(r, i));
	free(r->v);
	hashmap__free(&r->by_pid);
	r->v = NULL;
	r->n = r->cap = 0;
}
