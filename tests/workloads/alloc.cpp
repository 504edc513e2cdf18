// SPDX-License-Identifier: GPL-2.0
/*
 * alloc: allocations of known sizes from known stacks, for --alloc.
 *
 *   alloc_a      1000 x malloc(4096), each freed
 *   alloc_b      100 x malloc(65536), kept to the end (6400 KiB live)
 *   new_objects  5000 x new Obj (48 bytes), each deleted, every other one by
 *                the sized operator delete (which calls the plain one, which
 *                calls free: one free)
 *   grow         realloc of one buffer from NULL to 1 KiB, 2 KiB, ... 10 KiB
 *                (56320 bytes in 10 calls), then freed
 *   zeroed       10 x calloc(100, 40), each freed
 *   aligned      10 x aligned_alloc(64, 1024) and 10 x posix_memalign(.., 64,
 *                2048), each freed
 *   throwing     3 x new of 2^62 bytes, which fails: bad_alloc caught (the
 *                probes must leave C++ exceptions alone)
 *
 * usage: alloc [DELAY_MS]: first early() allocates 10 x 1000 bytes, then it
 * sleeps DELAY_MS (default 100: a capture of a COMMAND has its unwind tables
 * by then; a -p capture attaches meanwhile), then does the above, frees
 * early()'s blocks (allocated before a -p capture began), and prints "caught 3"
 * and "done".
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <new>

/* declared by <new> only with -fsized-deallocation (g++'s default, not
 * clang 14's), defined by libstdc++ either way */
void operator delete(void *, std::size_t) noexcept;

#define NOINLINE __attribute__((noinline, disable_tail_calls))

/* what escapes here cannot be optimised away */
static void *volatile sink;

struct Obj {
	long v[6];
};

static void *kept[100];
static void *early_blocks[10];

NOINLINE static void early()
{
	for (int i = 0; i < 10; i++)
		sink = early_blocks[i] = malloc(1000);
}

NOINLINE static void alloc_a()
{
	for (int i = 0; i < 1000; i++) {
		char *p = (char *)malloc(4096);

		p[0] = 1;
		sink = p;
		free(p);
	}
}

NOINLINE static void alloc_b()
{
	for (int i = 0; i < 100; i++)
		sink = kept[i] = malloc(65536);
}

NOINLINE static void new_objects()
{
	for (int i = 0; i < 5000; i++) {
		Obj *o = new Obj();

		sink = o;
		if (i % 2)
			::operator delete(o, sizeof(*o));
		else
			delete o;
	}
}

NOINLINE static void grow()
{
	void *p = nullptr;

	for (int i = 1; i <= 10; i++)
		sink = p = realloc(p, i * 1024);
	free(p);
}

NOINLINE static void zeroed()
{
	for (int i = 0; i < 10; i++) {
		sink = calloc(100, 40);
		free(sink);
	}
}

NOINLINE static void aligned()
{
	void *p;

	for (int i = 0; i < 10; i++) {
		sink = aligned_alloc(64, 1024);
		free(sink);
		if (posix_memalign(&p, 64, 2048))
			abort();
		sink = p;
		free(p);
	}
}

static volatile size_t huge = 1UL << 62;

NOINLINE static int throwing()
{
	int caught = 0;

	for (int i = 0; i < 3; i++) {
		try {
			sink = new char[huge];
		} catch (const std::bad_alloc &) {
			caught++;
		}
	}
	return caught;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 100;
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000 };

	early();
	nanosleep(&d, nullptr);
	alloc_a();
	alloc_b();
	new_objects();
	grow();
	zeroed();
	aligned();
	printf("caught %d\n", throwing());
	for (int i = 0; i < 10; i++)
		free(early_blocks[i]);
	printf("done\n");
	return 0;
}
