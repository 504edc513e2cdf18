// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/btf.h>

#include "kernel_btf.h"

#define BTF_MAX_SIZE (256u << 20) /* far above any kernel's; bounds a read */

/* The kinds newer than the uapi header of the build machine. */
#ifndef BTF_KIND_ENUM64
#define BTF_KIND_ENUM64 19
#endif
#define BTF_KIND_DECL_TAG_ 17
#define BTF_KIND_TYPE_TAG_ 18

struct btf_view {
	const uint8_t *types, *strs;
	uint32_t types_len, strs_len;
};

/* The NUL-terminated string at off, or NULL when it runs out of the section. */
static const char *btf_str(const struct btf_view *v, uint32_t off)
{
	if (off >= v->strs_len || !memchr(v->strs + off, '\0', v->strs_len - off))
		return NULL;
	return (const char *)v->strs + off;
}

/* Bytes that follow a type's header, by kind; -1 for a kind unknown here. */
static long extra_bytes(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG_:
		return 4;
	case BTF_KIND_ARRAY:
		return 12;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case BTF_KIND_ENUM64:
		return 12L * vlen;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return 8L * vlen;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG_:
		return 0;
	default:
		return -1;
	}
}

/* The enum's values (struct btf_enum, read by copy: fuzzers give any
 * alignment) against the names asked about. */
static void mark_values(const struct btf_view *v, const uint8_t *p, uint32_t vlen,
			const char *const *values, size_t n, int *has)
{
	for (uint32_t i = 0; i < vlen; i++) {
		struct btf_enum e;
		const char *name;

		memcpy(&e, p + (size_t)i * sizeof(e), sizeof(e));
		name = btf_str(v, e.name_off);
		for (size_t k = 0; name && k < n; k++)
			if (!strcmp(name, values[k]))
				has[k] = 1;
	}
}

static int scan_types(const struct btf_view *v, const char *type, const char *const *values,
		      size_t n, int *has)
{
	uint32_t pos = 0;

	while (pos < v->types_len) {
		struct btf_type t;
		uint32_t kind, vlen;
		long extra;
		const char *name;

		if (v->types_len - pos < sizeof(t))
			return -EINVAL;
		memcpy(&t, v->types + pos, sizeof(t));
		kind = BTF_INFO_KIND(t.info);
		vlen = BTF_INFO_VLEN(t.info);
		extra = extra_bytes(kind, vlen);
		if (extra < 0 || (uint64_t)v->types_len - pos - sizeof(t) < (uint64_t)extra)
			return -EINVAL;
		name = kind == BTF_KIND_ENUM ? btf_str(v, t.name_off) : NULL;
		if (name && !strcmp(name, type)) {
			mark_values(v, v->types + pos + sizeof(t), vlen, values, n, has);
			return 0;
		}
		pos += sizeof(t) + (uint32_t)extra;
	}
	return -ENOENT;
}

int kernel_btf__enum_has_in(const void *btf, size_t len, const char *type,
			    const char *const *values, size_t n, int *has)
{
	const uint8_t *b = btf;
	struct btf_header h;
	struct btf_view v;

	for (size_t k = 0; k < n; k++)
		has[k] = 0;
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, b, sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) || h.hdr_len > len)
		return -EINVAL;
	if ((uint64_t)h.type_off + h.type_len > len - h.hdr_len ||
	    (uint64_t)h.str_off + h.str_len > len - h.hdr_len)
		return -EINVAL;
	v.types = b + h.hdr_len + h.type_off;
	v.types_len = h.type_len;
	v.strs = b + h.hdr_len + h.str_off;
	v.strs_len = h.str_len;
	return scan_types(&v, type, values, n, has);
}

/* The file's bytes: mapped when the kernel allows it (6.16+), else read. */
static void *map_or_read(int fd, size_t len, bool *mapped)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	size_t got = 0;

	*mapped = p != MAP_FAILED;
	if (*mapped)
		return p;
	p = malloc(len);
	while (p && got < len) {
		ssize_t r = pread(fd, (char *)p + got, len - got, (off_t)got);

		if (r <= 0) {
			free(p);
			return NULL;
		}
		got += (size_t)r;
	}
	return p;
}

int kernel_btf__enum_has(const char *path, const char *type, const char *const *values, size_t n,
			 int *has)
{
	struct stat st;
	bool mapped;
	void *p;
	int fd, err;

	for (size_t k = 0; k < n; k++)
		has[k] = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto close_fd;
	}
	if (st.st_size <= 0 || (uint64_t)st.st_size > BTF_MAX_SIZE) {
		err = -EFBIG;
		goto close_fd;
	}
	p = map_or_read(fd, (size_t)st.st_size, &mapped);
	if (!p) {
		err = -EIO;
		goto close_fd;
	}
	err = kernel_btf__enum_has_in(p, (size_t)st.st_size, type, values, n, has);
	if (mapped)
		munmap(p, (size_t)st.st_size);
	else
		free(p);
close_fd:
	close(fd);
	return err;
}
