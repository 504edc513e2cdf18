/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer harnesses (tests/fuzz/fuzz_*.c) share: the input as a
 * file, for the parsers that take an fd or a path, and checks of the
 * contracts the headers state. A failing check aborts, which libFuzzer
 * reports as a crash with the input that caused it. Header-only: each
 * harness includes it once.
 */
#ifndef FLAMEBPF_FUZZ_H
#define FLAMEBPF_FUZZ_H

#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The harness itself failed (no /tmp, no memory): not a finding, but no
 * run can go on either. */
static inline void fuzz_die(const char *what)
{
	perror(what);
	exit(2);
}

static inline int fuzz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static char fuzz_dir_path[64];

static inline void fuzz_dir_remove(void)
{
	nftw(fuzz_dir_path, fuzz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* A directory of this process's own under /tmp, removed at exit (a crash
 * leaves it, with the files of the input that crashed). */
static inline const char *fuzz_dir(void)
{
	if (fuzz_dir_path[0])
		return fuzz_dir_path;
	snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "/tmp/flamebpf-fuzz.XXXXXX");
	if (!mkdtemp(fuzz_dir_path))
		fuzz_die("mkdtemp");
	atexit(fuzz_dir_remove);
	return fuzz_dir_path;
}

/* fuzz_dir()/name, in a buffer of the caller's. */
static inline const char *fuzz_path(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", fuzz_dir(), name);
	return buf;
}

/* Writes size bytes to path, replacing the file (a fresh inode each time, so
 * nothing still holding the old one sees it change). */
static inline void fuzz_write(const char *path, const void *data, size_t size, mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		fuzz_die(path);
	if (size && write(fd, data, size) != (ssize_t)size)
		fuzz_die(path);
	close(fd);
}

/* An fd holding exactly data: one memfd per process, rewritten each call.
 * The parsers map it (libelf), and let go of it before returning. */
static inline int fuzz_memfd(const void *data, size_t size)
{
	static int fd = -1;

	if (fd < 0 && (fd = memfd_create("flamebpf-fuzz", MFD_CLOEXEC)) < 0)
		fuzz_die("memfd_create");
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		fuzz_die("memfd");
	return fd;
}

/* A little-endian u64 from up to 8 bytes at p (fewer at the end). */
static inline uint64_t fuzz_u64(const uint8_t *p, size_t avail)
{
	uint64_t v = 0;

	for (size_t i = 0; i < 8 && i < avail; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
