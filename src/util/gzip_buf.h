/* A buffer gzip'd in one call, for bodies sent with Content-Encoding: gzip. */
#ifndef FLAMEBPF_GZIP_BUF_H
#define FLAMEBPF_GZIP_BUF_H

#include <stddef.h>
#include <stdint.h>

/* in (len bytes) as a gzip stream in *out (malloc'd, *outlen bytes).
 * Returns 0 or -ENOMEM. */
int gzip__buffer(const void *in, size_t len, uint8_t **out, size_t *outlen);

#endif
