// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolizer and unwind-table timings for tools/bench_unwind.sh, linked with
 * flamebpf's library objects (make build/bench/bench_symbolize). Addresses
 * are link-time virtual addresses, in hex, one a line (what addr2line reads).
 * Times are wall-clock (CLOCK_MONOTONIC); results are "key value" lines on
 * standard output.
 *
 *   bench_symbolize addrs FILE N SEED
 *	print N distinct random addresses inside FILE's .text, in random order
 *   bench_symbolize lookup FILE ADDRS NAMES
 *	load FILE's symbols (elf_symtab__load), then look up every address of
 *	ADDRS (elf_symtab__lookup); write "load_s", "lookup_s", "addrs",
 *	"named", "funcs" and "hwm_grow_kib" (how much load and lookups raised
 *	the peak RSS); then the name of each address ("??" for none), one a
 *	line, to NAMES
 *   bench_symbolize unwind FILE REPS
 *	build FILE's unwind table REPS times (unwind_table__build); write
 *	"build_s" (the median), "rows" and "fdes"
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbols/elf_symtab.h"
#include "symbols/unwind_table.h"

struct addrs {
	uint64_t *v;
	size_t n, cap;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The process's peak RSS (VmHWM) in KiB, 0 when unknown. */
static long peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static int fail(const char *what, const char *subject, int err)
{
	fprintf(stderr, "bench_symbolize: %s '%s': %s\n", what, subject, strerror(err));
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_symbolize addrs FILE N SEED\n"
			"       bench_symbolize lookup FILE ADDRS NAMES\n"
			"       bench_symbolize unwind FILE REPS\n");
	return 2;
}

/* Parses a positive decimal number; returns 0 or -EINVAL. */
static int parse_count(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || !*v || s[0] == '-' ? -EINVAL : 0;
}

static int addrs__push(struct addrs *a, uint64_t v)
{
	uint64_t *nv;

	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 1024;
		nv = realloc(a->v, a->cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		a->v = nv;
	}
	a->v[a->n++] = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void addrs__sort_unique(struct addrs *a)
{
	size_t i, k = 0;

	qsort(a->v, a->n, sizeof(*a->v), cmp_u64);
	for (i = 0; i < a->n; i++)
		if (!k || a->v[i] != a->v[k - 1])
			a->v[k++] = a->v[i];
	a->n = k;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The address range of FILE's .text section. Returns 0 or -errno. */
static int text_range(int fd, uint64_t *start, uint64_t *size)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *name;
	int err = -ENOENT;

	if (!elf)
		return -ENOEXEC;
	if (elf_getshdrstrndx(elf, &shstrndx))
		goto out_end;
	while ((scn = elf_nextscn(elf, scn))) {
		name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && !strcmp(name, ".text") && sh.sh_size) {
			*start = sh.sh_addr;
			*size = sh.sh_size;
			err = 0;
			break;
		}
	}
out_end:
	elf_end(elf);
	return err;
}

/* n distinct addresses in [start, start + size), shuffled. */
static int random_addrs(uint64_t start, uint64_t size, size_t n, uint64_t seed, struct addrs *a)
{
	size_t i, j;
	uint64_t t;

	if (n > size)
		return -ERANGE;
	while (a->n < n) {
		for (i = a->n; i < n; i++)
			if (addrs__push(a, start + splitmix64(&seed) % size))
				return -ENOMEM;
		addrs__sort_unique(a);
	}
	for (i = n - 1; i > 0; i--) {
		j = splitmix64(&seed) % (i + 1);
		t = a->v[i];
		a->v[i] = a->v[j];
		a->v[j] = t;
	}
	return 0;
}

static int cmd_addrs(char **argv)
{
	unsigned long n, seed;
	uint64_t start, size;
	struct addrs a = {};
	int fd, err;

	if (parse_count(argv[1], &n) || parse_count(argv[2], &seed))
		return usage();
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open", argv[0], errno);
	err = text_range(fd, &start, &size);
	close(fd);
	if (err)
		return fail("no .text in", argv[0], -err);
	err = random_addrs(start, size, n, seed, &a);
	if (err)
		return fail("cannot pick addresses in", argv[0], -err);
	for (size_t i = 0; i < a.n; i++)
		printf("0x%" PRIx64 "\n", a.v[i]);
	free(a.v);
	return fflush(stdout) ? fail("cannot write", "stdout", errno) : 0;
}

static int read_addrs(const char *path, struct addrs *a)
{
	FILE *f = fopen(path, "re");
	unsigned long long v;
	int err = 0;

	if (!f)
		return -errno;
	while (!err && fscanf(f, "%llx", &v) == 1)
		err = addrs__push(a, v);
	if (!err && !feof(f))
		err = -EINVAL;
	fclose(f);
	return err;
}

static int write_names(const char *path, const char **names, size_t n)
{
	FILE *f = fopen(path, "we");
	int err = 0;

	if (!f)
		return -errno;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", names[i] ? names[i] : "??");
	if (fclose(f))
		err = -errno;
	return err;
}

static int cmd_lookup(char **argv)
{
	struct elf_symtab *t = NULL;
	struct addrs a = {};
	const char **names;
	size_t named = 0;
	double t0, t1, t2;
	long hwm0, hwm1;
	uint64_t off;
	int fd, err;

	err = read_addrs(argv[1], &a);
	if (err || !a.n)
		return fail("cannot read addresses from", argv[1], err ? -err : ENODATA);
	names = calloc(a.n, sizeof(*names));
	if (!names)
		return fail("cannot allocate names for", argv[1], ENOMEM);
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open", argv[0], errno);
	hwm0 = peak_rss_kib();
	t0 = now();
	err = elf_symtab__load(fd, &t);
	t1 = now();
	if (err)
		return fail("cannot load the symbols of", argv[0], -err);
	for (size_t i = 0; i < a.n; i++)
		names[i] = elf_symtab__lookup(t, a.v[i], &off);
	t2 = now();
	hwm1 = peak_rss_kib();
	for (size_t i = 0; i < a.n; i++)
		named += !!names[i];
	printf("load_s %.9f\nlookup_s %.9f\naddrs %zu\nnamed %zu\nfuncs %zu\nhwm_grow_kib %ld\n",
	       t1 - t0, t2 - t1, a.n, named, elf_symtab__count(t), hwm1 - hwm0);
	err = write_names(argv[2], names, a.n);
	elf_symtab__free(t);
	close(fd);
	free(names);
	free(a.v);
	return err ? fail("cannot write", argv[2], -err) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmd_unwind(char **argv)
{
	struct unwind_table *t;
	unsigned long reps;
	double *secs, t0;
	size_t rows = 0, fdes = 0;
	int fd, err = 0;

	if (parse_count(argv[1], &reps) || reps > 1000)
		return usage();
	secs = calloc(reps, sizeof(*secs));
	if (!secs)
		return fail("cannot allocate timings for", argv[0], ENOMEM);
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open", argv[0], errno);
	for (unsigned long i = 0; i < reps && !err; i++) {
		t0 = now();
		err = unwind_table__build(fd, &t);
		secs[i] = now() - t0;
		if (err)
			break;
		unwind_table__rows(t, &rows);
		fdes = unwind_table__stats(t)->nfdes;
		unwind_table__free(t);
	}
	close(fd);
	if (err)
		return fail("cannot build the unwind table of", argv[0], -err);
	qsort(secs, reps, sizeof(*secs), cmp_double);
	printf("build_s %.9f\nrows %zu\nfdes %zu\n", secs[reps / 2], rows, fdes);
	free(secs);
	return 0;
}

int main(int argc, char **argv)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail("cannot initialise", "libelf", EINVAL);
	if (argc == 5 && !strcmp(argv[1], "addrs"))
		return cmd_addrs(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "lookup"))
		return cmd_lookup(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "unwind"))
		return cmd_unwind(argv + 2);
	return usage();
}
