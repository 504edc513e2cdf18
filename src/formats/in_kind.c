// SPDX-License-Identifier: GPL-2.0
/* What an input that is not text is, for the line that refuses it: a
 * binary file has no "line 1" to blame. pprof is told from other gzip'd
 * data by the first bytes it inflates to: a profile.proto message starts
 * with its field 1 (sample_type, length-delimited: tag 0x0a), and is not
 * text. */
#include <string.h>

#include <zlib.h>

#include "in.h"

#define INFLATE_LOOK 64 /* bytes of a gzip stream's content looked at */

static bool is_gzip(const unsigned char *buf, size_t len)
{
	return len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
}

/* Tabs, line ends and printable bytes (UTF-8's included) only. */
static bool is_text(const unsigned char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] < 0x20 && !strchr("\t\n\r", buf[i]))
			return false;
	return true;
}

/* Up to INFLATE_LOOK bytes of what the gzip stream in buf holds; 0 when
 * they cannot be had. */
static size_t inflate_start(const unsigned char *buf, size_t len, unsigned char *out)
{
	z_stream z = { .next_in = (unsigned char *)buf, .avail_in = (uInt)len };
	size_t n;

	if (inflateInit2(&z, 15 + 16) != Z_OK) /* + 16: a gzip header */
		return 0;
	z.next_out = out;
	z.avail_out = INFLATE_LOOK;
	inflate(&z, Z_SYNC_FLUSH);
	n = INFLATE_LOOK - z.avail_out;
	inflateEnd(&z);
	return n;
}

static enum in_kind gzip_kind(const unsigned char *buf, size_t len)
{
	unsigned char out[INFLATE_LOOK];
	size_t n = inflate_start(buf, len, out);

	return n && out[0] == 0x0a && !is_text(out, n) ? IN_KIND_PPROF : IN_KIND_GZIP;
}

enum in_kind in__kind(const char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)buf;

	if (is_gzip(u, len))
		return gzip_kind(u, len);
	return memchr(buf, '\0', len) ? IN_KIND_BINARY : IN_KIND_TEXT;
}
