// SPDX-License-Identifier: GPL-2.0
/*
 * Call loops for tools/bench_trace.sh: what one traced call costs, by the
 * kind of probe site. Built twice from this file: as C (no exception tables:
 * flamebpf catches every return with a uretprobe) and as C++ with a dummy
 * try/catch (a .gcc_except_table: flamebpf probes the ret instructions of
 * functions that call something). Every bench_* function is noinline, so its
 * calls stay calls; tools/bench_trace.sh checks their first instructions.
 *
 *   bench_calls loop FUNC SECONDS FILE
 *	call FUNC (push, nop5, sstep, outer) in a loop for SECONDS of wall
 *	time; write "calls N" and "ns_per_call X" to FILE
 *	BENCH_WAIT_PROBE=1: first wait (up to 10 s) for a probe on FUNC (its
 *	first byte changed: a breakpoint, or a call to a trampoline), for a
 *	tool that attaches with -p
 *   bench_calls twin FUNC SECONDS FILE
 *	call FUNC and its twin FUNC_b (the same code under another name) in
 *	turn, BATCH calls of one then BATCH of the other, for SECONDS; write
 *	"calls N" (of each) and the median over its batches of the ns per
 *	call of each, "a_ns X" and "b_ns Y", to FILE. With one tool on FUNC
 *	and another on the twin, both are measured in the same loop a few
 *	hundred microseconds apart: this VM's speed drifts by 20-40% within
 *	seconds, which separate runs cannot pair away.
 *	BENCH_WAIT_PROBE=1: first wait for a probe on the twin (the tool on
 *	FUNC attached before the loop began)
 *   bench_calls hammer NTHREADS RATE SECONDS FILE
 *	NTHREADS threads call bench_hammer (a push leaf) for SECONDS, RATE
 *	calls per second in all (0: as fast as they can); write "calls N",
 *	"secs T" and "rate R" (calls per second achieved) to FILE
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
#define EXPORT extern "C"
#else
#define EXPORT
#endif

#define BATCH	    256 /* calls between looks at the clock */
#define WARMUP	    1000
#define MAX_THREADS 64

/* Each kind of function is defined twice, as bench_KIND and its twin
 * bench_KIND_b (for `twin`): the same instructions under another name. */

/* An ordinary frame-pointer function: starts with push %rbp (emulated). */
#define PUSH_LEAF(name)                                                                            \
	EXPORT __attribute__((noinline)) uint64_t name(uint64_t x)                                 \
	{                                                                                          \
		return x * 3 + 1;                                                                  \
	}

/* Starts with a 5-byte nop (0f 1f 44 00 00), which kernels from 6.18 turn
 * into a call to a trampoline instead of a trap. The nop is written out:
 * clang's patchable_function_entry(5) emits 0f 1f 44 00 08. */
#define NOP5_LEAF(name)                                                                            \
	EXPORT __attribute__((naked, noinline)) uint64_t name(uint64_t x)                          \
	{                                                                                          \
		__asm__(".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"                                   \
			"push %rbp\n\t"                                                            \
			"mov %rsp, %rbp\n\t"                                                       \
			"lea 1(%rdi,%rdi,2), %rax\n\t"                                             \
			"pop %rbp\n\t"                                                             \
			"ret");                                                                    \
	}

/* A leaf without a frame whose first instruction (lea) the kernel neither
 * emulates nor optimises: it is single-stepped out of line. */
#define SSTEP_LEAF(name)                                                                           \
	EXPORT __attribute__((naked, noinline)) uint64_t name(uint64_t x)                          \
	{                                                                                          \
		__asm__("lea 1(%rdi,%rdi,2), %rax\n\t"                                             \
			"ret");                                                                    \
	}

/* Calls something (not as a tail call): not a leaf. Written out, for the
 * label NAME_ret on its ret instruction: bpftrace 0.17 attaches to a
 * symbol but refuses an offset into one. */
#define OUTER(name)                                                                                \
	EXPORT __attribute__((naked, noinline)) uint64_t name(uint64_t x)                          \
	{                                                                                          \
		__asm__("push %rbp\n\t"                                                            \
			"mov %rsp, %rbp\n\t"                                                       \
			"call bench_inner\n\t"                                                     \
			"add $1, %rax\n\t"                                                         \
			"pop %rbp\n"                                                               \
			".globl " #name "_ret\n"                                                   \
			".type " #name "_ret, @function\n" #name "_ret:\n\t"                       \
			"ret\n"                                                                    \
			".size " #name "_ret, 1");                                                 \
	}

EXPORT __attribute__((noinline)) uint64_t bench_inner(uint64_t x)
{
	return x ^ (x >> 7);
}

PUSH_LEAF(bench_push)
PUSH_LEAF(bench_push_b)
NOP5_LEAF(bench_nop5)
NOP5_LEAF(bench_nop5_b)
SSTEP_LEAF(bench_sstep)
SSTEP_LEAF(bench_sstep_b)
OUTER(bench_outer)
OUTER(bench_outer_b)

EXPORT __attribute__((noinline)) uint64_t bench_hammer(uint64_t x)
{
	return x * 5 + 3;
}

#ifdef __cplusplus
/* Gives the binary a .gcc_except_table, like any C++ program that catches. */
static __attribute__((noinline)) int cxx_guard(int argc)
{
	try {
		if (argc < 0)
			throw argc;
	} catch (int e) {
		return e;
	}
	return 0;
}
#endif

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_num(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !(*out >= 0) ? -EINVAL : 0;
}

static int write_kv(const char *file, const char *text)
{
	FILE *f = fopen(file, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		fprintf(stderr, "bench_calls: cannot write '%s': %s\n", file, strerror(errno));
		return 1;
	}
	return 0;
}

typedef uint64_t (*func_t)(uint64_t);

/* Inlined with a constant FN: every iteration is one direct call, as untraced
 * code would make it. Returns the seconds the timed calls took. */
static inline __attribute__((always_inline)) double call_loop(func_t fn, double secs,
							      uint64_t *calls)
{
	uint64_t acc = 0, i;
	double t0, t;

	for (i = 0; i < WARMUP; i++)
		acc += fn(i);
	t0 = now();
	do {
		for (int j = 0; j < BATCH; j++, i++)
			acc += fn(i);
		t = now();
	} while (t - t0 < secs);
	sink = acc;
	*calls = i - WARMUP;
	return t - t0;
}

/* Waits for a probe on fn: its first byte, as the process reads its own
 * code, is the probe's. */
static int wait_probe(func_t fn)
{
	uint8_t first = *(volatile uint8_t *)fn;
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 10000; i++) {
		if (*(volatile uint8_t *)fn != first)
			return 0;
		nanosleep(&ms, NULL);
	}
	fprintf(stderr, "bench_calls: no probe on the function after 10 s\n");
	return 1;
}

/* The function FUNC names (push, nop5, sstep, outer), and its twin in
 * *twin when asked; NULL when it names none. */
static func_t func_named(const char *func, func_t *twin)
{
	static const struct {
		const char *name;
		func_t fn, twin;
	} funcs[] = {
		{ "push", bench_push, bench_push_b },
		{ "nop5", bench_nop5, bench_nop5_b },
		{ "sstep", bench_sstep, bench_sstep_b },
		{ "outer", bench_outer, bench_outer_b },
	};

	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		if (strcmp(func, funcs[i].name))
			continue;
		if (twin)
			*twin = funcs[i].twin;
		return funcs[i].fn;
	}
	return NULL;
}

#define TWIN_BATCHES 65536

/* The batches' times of `twin`: [0] FUNC's, [1] its twin's. */
static double twin_batch[2][TWIN_BATCHES];

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the n times in t, as ns per call of a batch. */
static double batch_median(double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	return t[n / 2] * 1e9 / BATCH;
}

/* Inlined with constant A and B, as call_loop(). Returns the batches each
 * made. */
static inline __attribute__((always_inline)) size_t twin_loop(func_t a, func_t b, double secs)
{
	uint64_t acc = 0, i;
	double t0, t, last;
	size_t k;

	for (i = 0; i < WARMUP; i++)
		acc += a(i) + b(i);
	t0 = last = now();
	for (k = 0; k < TWIN_BATCHES;) {
		for (int j = 0; j < BATCH; j++, i++)
			acc += a(i);
		t = now();
		twin_batch[0][k] = t - last;
		last = t;
		for (int j = 0; j < BATCH; j++, i++)
			acc += b(i);
		t = now();
		twin_batch[1][k++] = t - last;
		last = t;
		if (t - t0 >= secs)
			break;
	}
	sink = acc;
	return k;
}

static int twin(const char *func, const char *secs_s, const char *file)
{
	double secs;
	char text[160];
	func_t fn, fn_b;
	size_t n;

	if (parse_num(secs_s, &secs))
		return 2;
	fn = func_named(func, &fn_b);
	if (!fn)
		return 2;
	if (getenv("BENCH_WAIT_PROBE") && wait_probe(fn_b))
		return 1;
	if (fn == bench_push)
		n = twin_loop(bench_push, bench_push_b, secs);
	else if (fn == bench_nop5)
		n = twin_loop(bench_nop5, bench_nop5_b, secs);
	else if (fn == bench_sstep)
		n = twin_loop(bench_sstep, bench_sstep_b, secs);
	else
		n = twin_loop(bench_outer, bench_outer_b, secs);
	snprintf(text, sizeof(text), "calls %llu\na_ns %.3f\nb_ns %.3f\n",
		 (unsigned long long)n * BATCH, batch_median(twin_batch[0], n),
		 batch_median(twin_batch[1], n));
	return write_kv(file, text);
}

static int loop(const char *func, const char *secs_s, const char *file)
{
	uint64_t calls;
	double secs;
	char text[128];
	func_t fn;

	if (parse_num(secs_s, &secs))
		return 2;
	fn = func_named(func, NULL);
	if (!fn)
		return 2;
	if (getenv("BENCH_WAIT_PROBE") && wait_probe(fn))
		return 1;
	if (fn == bench_push)
		secs = call_loop(bench_push, secs, &calls);
	else if (fn == bench_nop5)
		secs = call_loop(bench_nop5, secs, &calls);
	else if (fn == bench_sstep)
		secs = call_loop(bench_sstep, secs, &calls);
	else
		secs = call_loop(bench_outer, secs, &calls);
	snprintf(text, sizeof(text), "calls %llu\nns_per_call %.3f\n", (unsigned long long)calls,
		 secs * 1e9 / calls);
	return write_kv(file, text);
}

struct worker {
	pthread_t tid;
	double rate; /* calls per second, 0: no limit */
	double secs;
	uint64_t calls;
	char pad[64]; /* each worker on its own cache line */
};

/* Calls in batches; when ahead of the rate, spins until the batch is due. */
static void *hammer_thread(void *arg)
{
	struct worker *w = (struct worker *)arg;
	uint64_t acc = 0, i = 0;
	double t0 = now(), t;

	do {
		for (int j = 0; j < BATCH; j++, i++)
			acc += bench_hammer(i);
		t = now();
		while (w->rate > 0 && t - t0 < i / w->rate && t - t0 < w->secs)
			t = now();
	} while (t - t0 < w->secs);
	w->calls = i;
	sink = acc;
	return NULL;
}

static int hammer(const char *nthreads_s, const char *rate_s, const char *secs_s, const char *file)
{
	static struct worker w[MAX_THREADS];
	double nthreads, rate, secs, t0, t1;
	uint64_t calls = 0;
	char text[160];
	int n;

	if (parse_num(nthreads_s, &nthreads) || parse_num(rate_s, &rate) ||
	    parse_num(secs_s, &secs) || nthreads < 1 || nthreads > MAX_THREADS)
		return 2;
	n = (int)nthreads;
	t0 = now();
	for (int i = 0; i < n; i++) {
		w[i].rate = rate / n;
		w[i].secs = secs;
		if (pthread_create(&w[i].tid, NULL, hammer_thread, &w[i])) {
			fprintf(stderr, "bench_calls: cannot create a thread\n");
			return 1;
		}
	}
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].tid, NULL);
		calls += w[i].calls;
	}
	t1 = now();
	snprintf(text, sizeof(text), "calls %llu\nsecs %.6f\nrate %.0f\n",
		 (unsigned long long)calls, t1 - t0, calls / (t1 - t0));
	return write_kv(file, text);
}

int main(int argc, char **argv)
{
	int status = 2;

#ifdef __cplusplus
	if (cxx_guard(argc))
		return 1;
#endif
	if (argc == 5 && !strcmp(argv[1], "loop"))
		status = loop(argv[2], argv[3], argv[4]);
	else if (argc == 5 && !strcmp(argv[1], "twin"))
		status = twin(argv[2], argv[3], argv[4]);
	else if (argc == 6 && !strcmp(argv[1], "hammer"))
		status = hammer(argv[2], argv[3], argv[4], argv[5]);
	if (status == 2)
		fprintf(stderr, "usage: bench_calls loop|twin push|nop5|sstep|outer SECONDS FILE\n"
				"       bench_calls hammer NTHREADS RATE SECONDS FILE\n");
	return status;
}
