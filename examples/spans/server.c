// SPDX-License-Identifier: MIT
/*
 * A toy server that marks its requests for flamebpf (include/flamebpf.h).
 *
 *   cc -O2 -g -I../../include server.c -o server   (or after make install: no -I)
 *   ./server 100                                  untraced: the marks cost a branch
 *   sudo flamebpf -F 999 -o server.svg \
 *       --span 'req=usdt:./server:flamebpf:req_begin(arg0),usdt:./server:flamebpf:req_end' \
 *       --span 'db=usdt:./server:flamebpf:db_begin(arg0:int),usdt:./server:flamebpf:db_end' \
 *       -- ./server 100
 *
 * The graph then has a frame per request kind right under the root,
 * "[req GET /users]" and "[req POST /orders]", and inside the second
 * "[db 42]", each over the code that ran while it was open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <flamebpf.h>

FLAMEBPF_SPAN_DECLARE(req);
FLAMEBPF_SPAN_DECLARE(db);

static volatile unsigned long sink;

static void work(double ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
}

static void run_query(int id)
{
	FLAMEBPF_SPAN_BEGIN(db, id);
	work(4);
	FLAMEBPF_SPAN_END(db);
}

static void handle(const char *request)
{
	FLAMEBPF_SPAN_BEGIN(req, request);
	if (!strncmp(request, "POST", 4))
		run_query(42);
	work(strncmp(request, "GET", 3) ? 2 : 6);
	FLAMEBPF_SPAN_END(req);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;

	for (int i = 0; i < n; i++) {
		handle("GET /users");
		handle("POST /orders");
	}
	printf("%d requests\n", 2 * n);
	return 0;
}
