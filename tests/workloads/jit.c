// SPDX-License-Identifier: GPL-2.0
/*
 * jit: runs machine code from anonymous executable memory, as the output of
 * a JIT compiler runs, and names it in /tmp/perf-PID.map the way JITs do
 * for perf ("START SIZE NAME", hex). The file stays after exit, as V8's
 * does: whoever reads it removes it.
 *
 *   main -> jitted_loop (a copy of jit_template, in an anonymous mapping)
 *
 * usage: jit SECONDS
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

#define UNIT 400009UL

typedef unsigned long (*loop_fn)(unsigned long);

/* In a section of its own, whose bounds the linker provides: the copy is
 * exactly the function. Position-independent: no call, no global. */
__attribute__((section("jit_text"), noinline)) unsigned long jit_template(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x = x * 31 + i;
	return x;
}

extern const char __start_jit_text[], __stop_jit_text[];

/* Returns the copy, executable and no longer writable, or NULL. */
static loop_fn compile(size_t *size)
{
	void *code;

	*size = (size_t)(__stop_jit_text - __start_jit_text);
	code = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return NULL;
	memcpy(code, __start_jit_text, *size);
	if (mprotect(code, *size, PROT_READ | PROT_EXEC))
		return NULL;
	return (loop_fn)code;
}

static int write_perf_map(loop_fn fn, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lx %zx jitted_loop\n", (unsigned long)(uintptr_t)fn, size);
	return fclose(f);
}

int main(int argc, char **argv)
{
	double seconds, deadline;
	size_t size;
	loop_fn fn;

	if (argc != 2 || parse_num(argv[1], &seconds)) {
		fprintf(stderr, "usage: jit SECONDS\n");
		return 2;
	}
	fn = compile(&size);
	if (!fn || write_perf_map(fn, size)) {
		perror("jit");
		return 1;
	}
	deadline = now() + seconds;
	do
		sink += fn(UNIT);
	while (now() < deadline);
	return 0;
}
