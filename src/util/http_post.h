/* One HTTP(S) POST through libcurl: the bytes out, the status back. Knows
 * nothing of what it carries. */
#ifndef FLAMEBPF_HTTP_POST_H
#define FLAMEBPF_HTTP_POST_H

#include <stddef.h>

#define HTTP_ERR_LEN 256

struct http_request {
	const char *url;
	const void *body;
	size_t len;
	const char *content_type;     /* the body's type, sent as it is */
	const char *content_encoding; /* NULL, or "gzip" for a gzip'd body */
	/* not NULL: the body goes as the file field of this name in a
	 * multipart/form-data form (content_type is then the field's type) */
	const char *form_field;
	const char *ca_file; /* NULL: the system's certificates */
	const char *token;   /* NULL: no Authorization: Bearer header */
	long timeout_ms;     /* the whole request, connecting included */
};

/* Sends rq. Returns 0 and the server's status in *status (whatever it is:
 * 2xx, 4xx, 5xx), with the start of its answer in err for a status that is
 * not 2xx; or -EIO when no answer came (refused, timed out, TLS failed),
 * -ENOMEM, with the reason in err. */
int http__post(const struct http_request *rq, long *status, char err[HTTP_ERR_LEN]);

/* s percent-encoded for a URL's query, every byte but the unreserved ones
 * (RFC 3986: letters, digits, "-._~") as %XX, in a new string; NULL when
 * out of memory. */
char *http__escape(const char *s);

#endif
