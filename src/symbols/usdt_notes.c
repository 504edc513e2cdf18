// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "usdt_notes.h"

#define NT_STAPSDT 3

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* The three strings after the addresses, each ending inside desc. */
static int take_strings(const uint8_t *s, size_t n, struct usdt_note *note)
{
	const char **out[] = { &note->provider, &note->name, &note->args };

	for (size_t i = 0; i < 3; i++) {
		const uint8_t *nul = memchr(s, '\0', n);

		if (!nul)
			return -ENOEXEC;
		*out[i] = (const char *)s;
		n -= nul + 1 - s;
		s = nul + 1;
	}
	return 0;
}

static int take_desc(const uint8_t *d, size_t n, struct usdt_note *note)
{
	if (n < 24)
		return -ENOEXEC;
	note->pc = u64_at(d);
	note->base = u64_at(d + 8);
	note->sema = u64_at(d + 16);
	return take_strings(d + 24, n - 24, note);
}

int usdt_notes__parse(const uint8_t *data, size_t size, usdt_note_cb cb, void *arg)
{
	size_t off = 0;

	while (size - off >= 12) {
		uint32_t namesz = u32_at(data + off), descsz = u32_at(data + off + 4);
		uint32_t type = u32_at(data + off + 8);
		size_t name_at = off + 12, desc_at;
		struct usdt_note note;
		int err;

		if (namesz > size - name_at || align4(namesz) > size - name_at)
			return -ENOEXEC;
		desc_at = name_at + align4(namesz);
		if (descsz > size - desc_at)
			return -ENOEXEC;
		off = desc_at + descsz;
		off = align4(off) <= size ? align4(off) : size;
		if (type != NT_STAPSDT || namesz != 8 || memcmp(data + name_at, "stapsdt", 8))
			continue;
		err = take_desc(data + desc_at, descsz, &note);
		if (!err)
			err = cb(&note, arg);
		if (err)
			return err;
	}
	return 0;
}
