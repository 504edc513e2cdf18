// SPDX-License-Identifier: GPL-2.0
/*
 * events: known counts of software events, for -e.
 *
 *   events faults N     touch_pages() touches N fresh pages, one write
 *                       each: N page faults there
 *   events pingpong N   two threads pass a byte back and forth N times
 *                       through two pipes (pingpong() and echo()): each
 *                       blocks once a round, 2N context switches
 *
 * Prints what it did: "pages N" or "trips N".
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

NOINLINE static void touch_pages(char *mem, unsigned long pages, long page)
{
	for (unsigned long i = 0; i < pages; i++)
		mem[i * page] = 1;
}

static int faults(unsigned long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (mem == MAP_FAILED) {
		perror("events: mmap");
		return 1;
	}
	/* no huge pages: one fault per page */
	madvise(mem, pages * page, MADV_NOHUGEPAGE);
	touch_pages(mem, pages, page);
	printf("pages %lu\n", pages);
	return munmap(mem, pages * page) ? 1 : 0;
}

static int ping[2], pong[2];

NOINLINE static void *echo(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1 && c)
		if (write(pong[1], &c, 1) != 1)
			return NULL;
	return NULL;
}

NOINLINE static int pingpong(unsigned long trips)
{
	char c = 1;

	for (unsigned long i = 0; i < trips; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return -1;
	c = 0;
	return write(ping[1], &c, 1) == 1 ? 0 : -1;
}

static int run_pingpong(unsigned long trips)
{
	pthread_t t;

	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, echo, NULL)) {
		perror("events: pipe");
		return 1;
	}
	if (pingpong(trips) || pthread_join(t, NULL))
		return 1;
	printf("trips %lu\n", trips);
	return 0;
}

int main(int argc, char **argv)
{
	double n;

	if (argc != 3 || parse_num(argv[2], &n) || n < 1) {
		fprintf(stderr, "usage: events faults|pingpong N\n");
		return 2;
	}
	if (!strcmp(argv[1], "faults"))
		return faults((unsigned long)n);
	if (!strcmp(argv[1], "pingpong"))
		return run_pingpong((unsigned long)n);
	fprintf(stderr, "usage: events faults|pingpong N\n");
	return 2;
}
