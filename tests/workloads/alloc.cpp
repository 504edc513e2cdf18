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
 *
 * alloc mmap [DELAY_MS]: after the sleep, mmap and munmap instead:
 *
 *   map_anon     20 x anonymous mmap of 10000 bytes (3 pages of 4 KiB), 5
 *                kept, 15 unmapped
 *   map_partial  an anonymous mmap of 4 pages, unmapped in two: its last page
 *                (a munmap inside the block), then the 3 pages from its start
 *   map_file     an mmap of 2 pages of /proc/self/exe, unmapped: a file's
 *   map_failed   an anonymous mmap of 2^62 bytes, which fails
 *   big_malloc   2 x malloc(1 MiB), above glibc's mmap threshold (fixed at
 *                its default, 128 KiB): 1 kept, 1 freed (glibc's malloc and
 *                free call mmap and munmap)
 *   big_new      2 x new char[1 MiB]: 1 kept, 1 deleted (operator new calls
 *                malloc, delete[] delete, delete free, free munmap)
 *
 * and prints "mmapped 4" (the big blocks that glibc mmapped) and "done".
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

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

static void *anon(size_t len)
{
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	return p;
}

NOINLINE static void map_anon()
{
	static void *maps[20];

	for (int i = 0; i < 20; i++)
		sink = maps[i] = anon(10000);
	for (int i = 5; i < 20; i++)
		munmap(maps[i], 10000);
}

NOINLINE static void map_partial()
{
	size_t page = sysconf(_SC_PAGESIZE);
	char *p = (char *)anon(4 * page);

	sink = p;
	munmap(p + 3 * page, page);
	munmap(p, 3 * page);
}

NOINLINE static void map_file()
{
	int fd = open("/proc/self/exe", O_RDONLY);
	void *p = mmap(nullptr, 2 * sysconf(_SC_PAGESIZE), PROT_READ, MAP_PRIVATE, fd, 0);

	if (fd < 0 || p == MAP_FAILED)
		abort();
	sink = p;
	munmap(p, 2 * sysconf(_SC_PAGESIZE));
	close(fd);
}

NOINLINE static void map_failed()
{
	void *p =
		mmap(nullptr, huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p != MAP_FAILED)
		abort();
}

/* Whether glibc mmapped the block of p: IS_MMAPPED in its chunk's size
 * field, the word before p. */
static bool mmapped(const void *p)
{
	return ((const size_t *)p)[-1] & 2;
}

NOINLINE static int big_malloc()
{
	static void *kept_big;
	void *p;
	int n;

	sink = kept_big = malloc(1 << 20);
	sink = p = malloc(1 << 20);
	n = mmapped(kept_big) + mmapped(p);
	free(p);
	return n;
}

NOINLINE static int big_new()
{
	static char *kept_big;
	char *p;
	int n;

	sink = kept_big = new char[1 << 20];
	sink = p = new char[1 << 20];
	n = mmapped(kept_big) + mmapped(p);
	delete[] p;
	return n;
}

static void mmaps()
{
	int n;

	/* else freeing an mmapped block raises the threshold above its size */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	map_anon();
	map_partial();
	map_file();
	map_failed();
	n = big_malloc();
	n += big_new();
	printf("mmapped %d\n", n);
	printf("done\n");
}

int main(int argc, char **argv)
{
	bool maps = argc > 1 && !strcmp(argv[1], "mmap");
	long ms = argc > 1 + maps ? atol(argv[1 + maps]) : 100;
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000 };

	if (maps) {
		nanosleep(&d, nullptr);
		mmaps();
		return 0;
	}
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
