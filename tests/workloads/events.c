// SPDX-License-Identifier: GPL-2.0
/*
 * events: known counts of software events, for -e.
 *
 *   events faults N     touch_pages() touches N fresh pages, one write
 *                       each: N page faults there
 *   events paced N      the same, 50 pages a millisecond
 *   events pingpong N   two threads pass a byte back and forth N times
 *                       through two pipes (pingpong() and echo()): each
 *                       blocks once a round, 2N context switches
 *   events writes N     write_a() writes 10 bytes N times, write_b() 100
 *                       bytes 2N times, to /dev/null: 3N write(2) calls
 *   events both N       faults N, then pingpong N: for several -e at once
 *   events signals N    signal_a() raises SIGUSR1 (10) N times, signal_b()
 *                       SIGUSR2 (12) 2N times, each caught: a tracepoint's
 *                       field (signal_generate's sig) sums to 10N and 24N
 *
 * Prints what it did: "pages N", "trips N", "writes N" or "signals N", and for the first
 * two "secs T", the time the counted part took (for tools/bench_events.sh).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
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

/* Pages touched between two pauses of `events paced`. */
#define PACED_CHUNK 50

/* N faults in touch_pages; paced, PACED_CHUNK at a time with a
 * millisecond's pause between (half a second for 20000): the kernel's frequency
 * mode sets each sample's period from the rate it saw, and 20000 faults
 * in 50 ms gave it two or three samples to weigh them by. */
static int faults(unsigned long pages, bool paced)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long step = paced ? PACED_CHUNK : pages;
	double t;
	char *mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (mem == MAP_FAILED) {
		perror("events: mmap");
		return 1;
	}
	/* no huge pages: one fault per page */
	madvise(mem, pages * page, MADV_NOHUGEPAGE);
	t = now();
	for (unsigned long i = 0; i < pages; i += step) {
		touch_pages(mem + i * page, pages - i < step ? pages - i : step, page);
		if (paced)
			usleep(1000);
	}
	printf("pages %lu\nsecs %.6f\n", pages, now() - t);
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

	double start;

	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, echo, NULL)) {
		perror("events: pipe");
		return 1;
	}
	start = now();
	if (pingpong(trips) || pthread_join(t, NULL))
		return 1;
	printf("trips %lu\nsecs %.6f\n", trips, now() - start);
	return 0;
}

NOINLINE static int write_a(int fd, unsigned long n)
{
	static const char ten[10];

	for (unsigned long i = 0; i < n; i++)
		if (write(fd, ten, sizeof(ten)) != sizeof(ten))
			return -1;
	return 0;
}

NOINLINE static int write_b(int fd, unsigned long n)
{
	static const char hundred[100];

	for (unsigned long i = 0; i < n; i++)
		if (write(fd, hundred, sizeof(hundred)) != sizeof(hundred))
			return -1;
	return 0;
}

static int writes(unsigned long n)
{
	int fd = open("/dev/null", O_WRONLY);

	/* a profiler reads a new process's unwind tables in its first
	 * milliseconds: the counted writes come after */
	usleep(300000);
	if (fd < 0 || write_a(fd, n) || write_b(fd, 2 * n)) {
		perror("events: /dev/null");
		return 1;
	}
	close(fd);
	/* after the counted writes: stdout's write is the program's own */
	printf("writes %lu\n", 3 * n);
	return 0;
}

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	(void)sig;
	caught++;
}

NOINLINE static int signal_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		if (raise(SIGUSR1))
			return -1;
	return 0;
}

NOINLINE static int signal_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		if (raise(SIGUSR2))
			return -1;
	return 0;
}

static int signals(unsigned long n)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGUSR2, &sa, NULL))
		return 1;
	usleep(300000); /* as writes(): after the profiler has read the tables */
	if (signal_a(n) || signal_b(2 * n)) {
		perror("events: raise");
		return 1;
	}
	printf("signals %lu\n", (unsigned long)caught);
	return 0;
}

int main(int argc, char **argv)
{
	double n;

	if (argc != 3 || parse_num(argv[2], &n) || n < 1) {
		fprintf(stderr, "usage: events faults|paced|pingpong|writes|both|signals N\n");
		return 2;
	}
	if (!strcmp(argv[1], "faults") || !strcmp(argv[1], "paced"))
		return faults((unsigned long)n, !strcmp(argv[1], "paced"));
	if (!strcmp(argv[1], "pingpong"))
		return run_pingpong((unsigned long)n);
	if (!strcmp(argv[1], "both"))
		return faults((unsigned long)n, false) || run_pingpong((unsigned long)n);
	if (!strcmp(argv[1], "writes"))
		return writes((unsigned long)n);
	if (!strcmp(argv[1], "signals"))
		return signals((unsigned long)n);
	fprintf(stderr, "usage: events faults|paced|pingpong|writes|both|signals N\n");
	return 2;
}
