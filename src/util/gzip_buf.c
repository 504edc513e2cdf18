// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include <zlib.h>

#include "gzip_buf.h"

int gzip__buffer(const void *in, size_t len, uint8_t **out, size_t *outlen)
{
	z_stream z = { .next_in = (Bytef *)in, .avail_in = (uInt)len };
	uLong bound;
	int ret;

	*out = NULL;
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	bound = deflateBound(&z, (uLong)len);
	*out = malloc(bound);
	if (!*out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_out = *out;
	z.avail_out = (uInt)bound;
	ret = deflate(&z, Z_FINISH);
	*outlen = bound - z.avail_out;
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}
