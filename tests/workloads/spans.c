// SPDX-License-Identifier: GPL-2.0
/*
 * spans: requests marked with include/flamebpf.h, their work known.
 *
 *   spans N   N rounds of two requests: "GET /users", 30 ms busy in
 *             json_encode(); "POST /orders", 10 ms busy in save(), then a
 *             db span labelled with the number 7 around 10 ms busy in
 *             query()
 *
 *   spans wait N
 *             N rounds of the same two requests that wait, not compute:
 *             "GET /users" asleep 20 ms in fetch(), "POST /orders" asleep
 *             10 ms in store(); prints "GET NS POST NS DB 0 ON_CPU GET NS
 *             POST NS", the second pair the requests' time on a CPU: the
 *             time off it is the rest (a vCPU the host takes away for a
 *             while is on it, to this VM)
 *
 *   spans collide
 *             the main thread opens a "holder" span and runs 100 ms of CPU
 *             in holder_work; then threads come and go until one's tid is
 *             the main thread's plus a multiple of 65536 (a span slot's
 *             count, bpf/span.bpf.h), which opens a "collider" span and is
 *             runs 100 ms of CPU in collider_work; prints "COLLIDED TID" or
 *             "NO COLLISION" (pid_max too small, or too many tries)
 *
 *   spans exit N
 *             N threads, one after the other, each opens a "left open"
 *             req span, is busy 20 ms and exits without closing it
 *
 * Prints the wall time of each, as measured around its markers: "GET NS
 * POST NS DB NS", what --span must find; in exit mode "LEFT NS", from each
 * BEGIN to its thread's end.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../include/flamebpf.h"
#include "workload.h"

FLAMEBPF_SPAN_DECLARE(req);
FLAMEBPF_SPAN_DECLARE(db);

static double took[3], on_cpu[2];

/* The calling thread's time on a CPU so far, in seconds. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE static void busy(double ms)
{
	double until = now() + ms / 1000;

	while (now() < until)
		spin(1000);
}

NOINLINE static void json_encode(void)
{
	busy(30);
}

NOINLINE static void save(void)
{
	busy(10);
}

NOINLINE static void query(void)
{
	busy(10);
}

NOINLINE static void get_users(void)
{
	double t = now();

	FLAMEBPF_SPAN_BEGIN(req, "GET /users");
	json_encode();
	FLAMEBPF_SPAN_END(req);
	took[0] += now() - t;
}

NOINLINE static void post_orders(void)
{
	double t = now(), d;

	FLAMEBPF_SPAN_BEGIN(req, "POST /orders");
	save();
	d = now();
	FLAMEBPF_SPAN_BEGIN(db, 7);
	query();
	FLAMEBPF_SPAN_END(db);
	took[2] += now() - d;
	FLAMEBPF_SPAN_END(req);
	took[1] += now() - t;
}

/* Asleep: a wait of ms in nanosleep, which the CPU never sees. */
NOINLINE static void fetch(void)
{
	usleep(20000);
}

NOINLINE static void store(void)
{
	usleep(10000);
}

NOINLINE static void get_users_waiting(void)
{
	double t = now(), c = cpu_now();

	FLAMEBPF_SPAN_BEGIN(req, "GET /users");
	fetch();
	FLAMEBPF_SPAN_END(req);
	on_cpu[0] += cpu_now() - c;
	took[0] += now() - t;
}

NOINLINE static void post_orders_waiting(void)
{
	double t = now(), c = cpu_now();

	FLAMEBPF_SPAN_BEGIN(req, "POST /orders");
	store();
	FLAMEBPF_SPAN_END(req);
	on_cpu[1] += cpu_now() - c;
	took[1] += now() - t;
}

NOINLINE static void *left_open(void *arg)
{
	*(double *)arg = now();
	FLAMEBPF_SPAN_BEGIN(req, "left open");
	busy(20);
	return NULL;
}

/* Busy until the thread has run ms on a CPU: its samples (cpu-clock)
 * number the same however loaded the machine is. */
NOINLINE static void busy_cpu(double ms)
{
	double start = cpu_now();

	do
		spin(1000);
	while (cpu_now() - start < ms / 1000);
}

NOINLINE static void holder_work(void)
{
	busy_cpu(100);
}

NOINLINE static void collider_work(void)
{
	busy_cpu(100);
}

/* A thread whose tid shares the main thread's span slot does the work. */
static void *maybe_collide(void *arg)
{
	long tid = syscall(SYS_gettid);

	if (tid % 65536 != *(long *)arg % 65536 || tid == *(long *)arg)
		return NULL;
	FLAMEBPF_SPAN_BEGIN(req, "collider");
	collider_work();
	FLAMEBPF_SPAN_END(req);
	return (void *)tid;
}

static int collide(void)
{
	long main_tid = syscall(SYS_gettid);
	void *got = NULL;
	pthread_t t;

	usleep(300000);
	FLAMEBPF_SPAN_BEGIN(req, "holder");
	holder_work();
	for (long i = 0; i < 300000 && !got; i++)
		if (pthread_create(&t, NULL, maybe_collide, &main_tid) || pthread_join(t, &got))
			return 1;
	FLAMEBPF_SPAN_END(req);
	if (got)
		printf("COLLIDED %ld\n", (long)got);
	else
		printf("NO COLLISION\n");
	return 0;
}

static int exits(const char *arg)
{
	double n, left = 0, begun;
	pthread_t t;

	if (parse_num(arg, &n) || n < 1) {
		fprintf(stderr, "usage: spans exit N\n");
		return 2;
	}
	usleep(300000);
	for (long i = 0; i < (long)n; i++) {
		if (pthread_create(&t, NULL, left_open, &begun) || pthread_join(t, NULL))
			return 1;
		left += now() - begun;
	}
	printf("LEFT %.0f\n", left * 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	bool wait = argc == 3 && !strcmp(argv[1], "wait");
	double n;

	if (argc == 3 && !strcmp(argv[1], "exit"))
		return exits(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "collide"))
		return collide();
	if (argc != 2 + wait || parse_num(argv[1 + wait], &n) || n < 1) {
		fprintf(stderr, "usage: spans [wait] N\n");
		return 2;
	}
	/* a profiler reads a new process's tables in its first milliseconds */
	usleep(300000);
	for (long i = 0; i < (long)n; i++) {
		if (wait) {
			get_users_waiting();
			post_orders_waiting();
		} else {
			get_users();
			post_orders();
		}
	}
	printf("GET %.0f POST %.0f DB %.0f", took[0] * 1e9, took[1] * 1e9, took[2] * 1e9);
	if (wait)
		printf(" ON_CPU GET %.0f POST %.0f", on_cpu[0] * 1e9, on_cpu[1] * 1e9);
	printf("\n");
	return 0;
}
