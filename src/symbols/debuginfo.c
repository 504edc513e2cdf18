// SPDX-License-Identifier: GPL-2.0
/* Every file read here may belong to the profiled user (a debuglink names a
 * file beside the binary): only regular files, of bounded size, through
 * libelf's checked accessors; the CRC or build-id must match. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "debuginfo.h"
#include "proc_root.h"

#define LINK_NAME_MAX 255
#define XZ_IN_MAX     (64UL << 20)
/* xz -9 needs 65 MiB to decode; more is a hostile header. */
#define XZ_MEMLIMIT (128ULL << 20)
#define XZ_CHUNK    (64 * 1024)
#define CRC_CHUNK   (256 * 1024)

/* What a stripped file says about where its symbols went. */
struct refs {
	char link[LINK_NAME_MAX + 1]; /* .gnu_debuglink's file name, "" when none */
	uint32_t crc;
	void *xz; /* a copy of .gnu_debugdata, NULL when none */
	size_t xz_len;
};

/* One search: the binary, where it is, and the table found. */
struct search {
	int fd;
	struct stat st;
	const struct debuginfo_where *w;
	const char *root;
	struct elf_symtab *t;
	bool open_only; /* find the file and keep it open (found_fd): no symbols */
	int found_fd;
};

/* The CRC-32 (zlib's, as binutils computes it) of the whole file. */
static int file_crc(int fd, uint32_t *crc)
{
	unsigned char *buf = malloc(CRC_CHUNK);
	uLong c = crc32(0L, Z_NULL, 0);
	uint64_t off = 0;
	ssize_t n;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while ((n = pread(fd, buf, CRC_CHUNK, (off_t)off)) > 0) {
		c = crc32(c, buf, (uInt)n);
		off += (uint64_t)n;
		if (off > DEBUGINFO_FILE_MAX) {
			err = -EFBIG;
			break;
		}
	}
	if (n < 0)
		err = -errno;
	free(buf);
	*crc = (uint32_t)c;
	return err;
}

static int try_file(struct search *s, int dfd, const uint32_t *crc)
{
	struct stat st;
	uint32_t got;
	int err;

	if (fstat(dfd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > DEBUGINFO_FILE_MAX)
		return -EINVAL;
	/* a debuglink naming the stripped file itself */
	if (st.st_dev == s->st.st_dev && st.st_ino == s->st.st_ino)
		return -ENOENT;
	if (crc) {
		err = file_crc(dfd, &got);
		if (err)
			return err;
		if (got != *crc)
			return -ENOMSG;
	}
	if (s->open_only) {
		s->found_fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
		return s->found_fd < 0 ? -errno : 0;
	}
	return elf_symtab__load_as(s->fd, &(struct elf_debug_file){ .fd = dfd }, s->w->names_left,
				   &s->t);
}

/* path as the process sees it, then as we do. */
static int try_path(struct search *s, const char *path, const uint32_t *crc)
{
	int err = -ENOENT;

	for (int ours = s->w->root > 0 ? 0 : 1; ours < 2 && err; ours++) {
		/* O_NONBLOCK: a FIFO put there must not hang us */
		int dfd = proc_root__open(ours ? 0 : s->w->root, path,
					  O_RDONLY | O_CLOEXEC | O_NONBLOCK);

		if (dfd < 0) {
			err = dfd;
			continue;
		}
		err = try_file(s, dfd, crc);
		close(dfd);
	}
	return err;
}

/* ROOT/.build-id/xx/yyyy.debug: the first byte names the directory. */
static int by_build_id(struct search *s, const struct elf_symtab *t)
{
	size_t len, i;
	const uint8_t *id = elf_symtab__build_id(t, &len);
	char path[PATH_MAX], *p;
	int n;

	if (!id || len < 2)
		return -ENOENT;
	n = snprintf(path, sizeof(path), "%s/.build-id/%02x/", s->root, id[0]);
	if (n < 0 || (size_t)n + 2 * len + sizeof(".debug") > sizeof(path))
		return -ENAMETOOLONG;
	p = path + n;
	for (i = 1; i < len; i++)
		p += sprintf(p, "%02x", id[i]);
	strcpy(p, ".debug");
	return try_path(s, path, NULL);
}

/* The section: the file name, NUL, padding to 4 bytes, the CRC in the
 * file's byte order. */
static void take_link(struct refs *r, const Elf_Data *d, bool msb)
{
	const unsigned char *b = d ? d->d_buf : NULL;
	size_t len, at;

	if (!b)
		return;
	len = strnlen((const char *)b, d->d_size);
	at = (len + 4) & ~(size_t)3;
	if (!len || len > LINK_NAME_MAX || at > d->d_size || d->d_size - at < 4)
		return;
	memcpy(r->link, b, len);
	r->link[len] = '\0';
	b += at;
	r->crc = msb ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
		     : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static int take_xz(struct refs *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d;

	if (r->xz || sh->sh_type != SHT_PROGBITS || (sh->sh_flags & SHF_COMPRESSED) ||
	    sh->sh_size > XZ_IN_MAX)
		return 0;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size || d->d_size > XZ_IN_MAX)
		return 0;
	r->xz = malloc(d->d_size);
	if (!r->xz)
		return -ENOMEM;
	memcpy(r->xz, d->d_buf, d->d_size);
	r->xz_len = d->d_size;
	return 0;
}

static int read_refs(int fd, struct refs *r)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	const char *ident, *name;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int err = 0;
	bool msb;

	if (!elf)
		return -ENOEXEC;
	ident = elf_getident(elf, NULL);
	if (!ident || elf_getshdrstrndx(elf, &shstrndx)) {
		err = -ENOEXEC;
		goto end_elf;
	}
	msb = ident[EI_DATA] == ELFDATA2MSB;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".gnu_debuglink") && sh.sh_type == SHT_PROGBITS)
			take_link(r, elf_rawdata(scn, NULL), msb);
		else if (!strcmp(name, ".gnu_debugdata"))
			err = take_xz(r, scn, &sh);
	}
end_elf:
	elf_end(elf);
	return err;
}

/* Where gdb looks for a debuglink: beside the binary, in .debug/ there, and
 * under the debug root by the binary's directory. */
static int link_candidate(const struct search *s, const char *dir, const char *link, int i,
			  char *out, size_t size)
{
	int n = i == 0	 ? snprintf(out, size, "%s/%s", dir, link)
		: i == 1 ? snprintf(out, size, "%s/.debug/%s", dir, link)
			 : snprintf(out, size, "%s%s/%s", s->root, dir, link);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int by_link(struct search *s, const struct refs *r)
{
	const char *path = s->w->path, *slash = path ? strrchr(path, '/') : NULL;
	char dir[PATH_MAX], cand[PATH_MAX];
	int err = -ENOENT;

	/* a file name, not a path that could lead anywhere */
	if (!r->link[0] || strchr(r->link, '/') || !strcmp(r->link, ".") ||
	    !strcmp(r->link, "..") || !slash || path[0] != '/' ||
	    (size_t)(slash - path) >= sizeof(dir))
		return -ENOENT;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	for (int i = 0; i < 3 && err; i++) {
		err = link_candidate(s, dir, r->link, i, cand, sizeof(cand));
		if (!err)
			err = try_path(s, cand, &r->crc);
	}
	return err;
}

static int by_mini(struct search *s, const struct refs *r)
{
	void *img;
	size_t len;
	int err;

	if (!r->xz)
		return -ENOENT;
	err = debuginfo__unxz(r->xz, r->xz_len, DEBUGINFO_XZ_MAX, &img, &len);
	if (err)
		return err;
	err = elf_symtab__load_as(s->fd,
				  &(struct elf_debug_file){ .fd = -1, .image = img, .size = len },
				  s->w->names_left, &s->t);
	free(img);
	return err;
}

static enum debuginfo_from find_debug(struct search *s, const struct elf_symtab *t)
{
	enum debuginfo_from got = DEBUGINFO_NONE;
	struct refs r = { 0 };

	if (!by_build_id(s, t))
		return DEBUGINFO_BUILD_ID;
	if (read_refs(s->fd, &r))
		goto free_refs;
	if (!by_link(s, &r))
		got = DEBUGINFO_LINK;
	else if (!by_mini(s, &r))
		got = DEBUGINFO_MINI;
free_refs:
	free(r.xz);
	return got;
}

int debuginfo__load(int fd, const struct debuginfo_where *w, struct elf_symtab **out,
		    enum debuginfo_from *from)
{
	struct search s = { .fd = fd, .w = w };
	enum debuginfo_from got = DEBUGINFO_NONE;
	int err = elf_symtab__load_as(fd, NULL, w->names_left, out);

	s.root = w->debug_root ? w->debug_root : DEBUGINFO_ROOT;
	if (!err && !elf_symtab__has_symtab(*out) && !fstat(fd, &s.st))
		got = find_debug(&s, *out);
	if (got != DEBUGINFO_NONE) {
		elf_symtab__free(*out);
		*out = s.t;
	}
	if (from)
		*from = got;
	return err;
}

int debuginfo__open_debug_file(int fd, const struct debuginfo_where *w)
{
	struct search s = { .fd = fd, .w = w, .open_only = true, .found_fd = -1 };
	struct elf_symtab *t;
	struct refs r = { 0 };
	int err;

	s.root = w->debug_root ? w->debug_root : DEBUGINFO_ROOT;
	if (fstat(fd, &s.st))
		return -errno;
	err = elf_symtab__load(fd, &t);
	if (err)
		return err;
	err = by_build_id(&s, t);
	elf_symtab__free(t);
	if (err) {
		err = read_refs(fd, &r);
		if (!err)
			err = by_link(&s, &r);
		free(r.xz);
	}
	return err ? err : s.found_fd;
}

/* Makes room for more output, up to max. */
static int grow_out(lzma_stream *z, unsigned char **buf, size_t *cap, size_t max)
{
	size_t ncap = *cap ? *cap * 2 : XZ_CHUNK;
	unsigned char *nb;

	if (*cap >= max)
		return -EFBIG;
	if (ncap > max || ncap < *cap)
		ncap = max;
	nb = realloc(*buf, ncap);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = ncap;
	z->next_out = nb + z->total_out;
	z->avail_out = ncap - z->total_out;
	return 0;
}

static int lzma_errno(lzma_ret ret)
{
	switch (ret) {
	case LZMA_MEM_ERROR:
		return -ENOMEM;
	case LZMA_MEMLIMIT_ERROR:
		return -EFBIG;
	default:
		return -EINVAL;
	}
}

/* Runs the decoder to the end of the stream, growing buf as it goes. */
static int run_decoder(lzma_stream *z, unsigned char **buf, size_t *cap, size_t max)
{
	lzma_ret ret = LZMA_OK;
	int err = 0;

	while (!err && ret == LZMA_OK) {
		if (!z->avail_out)
			err = grow_out(z, buf, cap, max);
		if (!err)
			ret = lzma_code(z, LZMA_FINISH);
	}
	if (!err && ret != LZMA_STREAM_END)
		err = lzma_errno(ret);
	return err;
}

int debuginfo__unxz(const void *in, size_t len, size_t max, void **out, size_t *out_len)
{
	lzma_stream z = LZMA_STREAM_INIT;
	unsigned char *buf = NULL;
	size_t cap = 0;
	int err;

	*out = NULL;
	*out_len = 0;
	if (lzma_stream_decoder(&z, XZ_MEMLIMIT, 0) != LZMA_OK)
		return -ENOMEM;
	z.next_in = in;
	z.avail_in = len;
	err = run_decoder(&z, &buf, &cap, max);
	if (!err) {
		*out = buf;
		*out_len = z.total_out;
	} else {
		free(buf);
	}
	lzma_end(&z);
	return err;
}
