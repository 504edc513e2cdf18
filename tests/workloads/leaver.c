// SPDX-License-Identifier: GPL-2.0
/*
 * leaver: calls that never return. leave_early() calls inner(1 ms) and then
 * ends the process with exit(0) from inside; a thread does the same first,
 * ending itself with pthread_exit(). A program of its own: pthread_exit()
 * forces an unwind, which makes flamebpf catch the returns of its functions
 * at their ret instructions (tracee, without it, is plain C).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "workload.h"

NOINLINE void inner(double ms)
{
	double until = now() + ms / 1e3;

	while (now() < until)
		sink++;
}

NOINLINE void leave_early(bool thread)
{
	inner(1);
	if (thread)
		pthread_exit(NULL);
	exit(0);
}

static void *thread_leaving(void *arg)
{
	(void)arg;
	leave_early(true);
	return NULL;
}

int main(void)
{
	pthread_t tid;

	if (pthread_create(&tid, NULL, thread_leaving, NULL))
		return 1;
	pthread_join(tid, NULL);
	leave_early(false);
	return 1;
}
