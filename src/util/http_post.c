// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP POST with libcurl's easy interface: one handle per request (a push
 * is one request a minute or so; keeping connections alive buys nothing),
 * no redirects followed, no proxy from the environment unless curl's own
 * variables say so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curl_lib.h"
#include "http_post.h"

/* The start of the server's answer, for a status that says why. */
struct answer {
	char *text;
	size_t len;
};

static size_t keep_answer(char *data, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t room = HTTP_ERR_LEN - 1 - a->len, take = size * n < room ? size * n : room;

	memcpy(a->text + a->len, data, take);
	a->len += take;
	a->text[a->len] = '\0';
	return size * n;
}

/* The answer on one line: control bytes become spaces. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ')
			*s = ' ';
}

static int set_body(const struct curl_lib *lib, CURL *c, const struct http_request *rq,
		    curl_mime **mime, struct curl_slist **hdrs)
{
	curl_mimepart *part;
	char line[128];

	if (!rq->form_field) {
		snprintf(line, sizeof(line), "Content-Type: %s", rq->content_type);
		*hdrs = lib->slist_append(*hdrs, line);
		if (*hdrs && rq->content_encoding) {
			snprintf(line, sizeof(line), "Content-Encoding: %s", rq->content_encoding);
			*hdrs = lib->slist_append(*hdrs, line);
		}
		lib->easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
		lib->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
		return *hdrs ? 0 : -ENOMEM;
	}
	*mime = lib->mime_init(c);
	part = *mime ? lib->mime_addpart(*mime) : NULL;
	if (!part || lib->mime_name(part, rq->form_field) ||
	    lib->mime_filename(part, rq->form_field) || lib->mime_type(part, rq->content_type) ||
	    lib->mime_data(part, rq->body, rq->len))
		return -ENOMEM;
	lib->easy_setopt(c, CURLOPT_MIMEPOST, *mime);
	return 0;
}

static int set_auth(const struct curl_lib *lib, const struct http_request *rq,
		    struct curl_slist **hdrs)
{
	char *line;
	struct curl_slist *l;

	if (!rq->token)
		return 0;
	if (asprintf(&line, "Authorization: Bearer %s", rq->token) < 0)
		return -ENOMEM;
	l = lib->slist_append(*hdrs, line);
	explicit_bzero(line, strlen(line));
	free(line);
	if (!l)
		return -ENOMEM;
	*hdrs = l;
	return 0;
}

static int perform(const struct curl_lib *lib, CURL *c, long *status, char *err)
{
	char why[CURL_ERROR_SIZE] = "";
	CURLcode rc;

	lib->easy_setopt(c, CURLOPT_ERRORBUFFER, why);
	rc = lib->easy_perform(c);
	if (rc != CURLE_OK) {
		snprintf(err, HTTP_ERR_LEN, "%s", why[0] ? why : lib->easy_strerror(rc));
		return rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
	}
	lib->easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return 0;
}

static int post(const struct curl_lib *lib, const struct http_request *rq, long *status,
		char err[HTTP_ERR_LEN])
{
	struct answer a = { .text = err };
	struct curl_slist *hdrs = NULL;
	curl_mime *mime = NULL;
	CURL *c = lib->easy_init();
	int ret = 0;

	if (!c) {
		snprintf(err, HTTP_ERR_LEN, "cannot start libcurl");
		return -ENOMEM;
	}
	lib->easy_setopt(c, CURLOPT_URL, rq->url);
	lib->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	lib->easy_setopt(c, CURLOPT_TIMEOUT_MS, rq->timeout_ms);
	lib->easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_answer);
	lib->easy_setopt(c, CURLOPT_WRITEDATA, &a);
	lib->easy_setopt(c, CURLOPT_USERAGENT, "flamebpf/" FLAMEBPF_VERSION);
	lib->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	/* no "Expect: 100-continue" round trip before a large body */
	hdrs = lib->slist_append(hdrs, "Expect:");
	if (!hdrs)
		ret = -ENOMEM;
	if (rq->ca_file)
		lib->easy_setopt(c, CURLOPT_CAINFO, rq->ca_file);
	ret = ret ?: set_body(lib, c, rq, &mime, &hdrs) ?: set_auth(lib, rq, &hdrs);
	if (!ret) {
		lib->easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
		ret = perform(lib, c, status, err);
	}
	if (ret == -ENOMEM && !err[0])
		snprintf(err, HTTP_ERR_LEN, "out of memory");
	one_line(err);
	lib->mime_free(mime);
	lib->slist_free_all(hdrs);
	lib->easy_cleanup(c);
	return ret;
}

int http__post(const struct http_request *rq, long *status, char err[HTTP_ERR_LEN])
{
	struct curl_lib curl;
	int ret;

	err[0] = '\0';
	if (curl_lib__open(&curl, err, HTTP_ERR_LEN))
		return -EIO;
	ret = post(&curl, rq, status, err);
	curl_lib__close(&curl);
	return ret;
}

char *http__escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = malloc(3 * strlen(s) + 1), *o = out;

	for (; out && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
		    strchr("-._~", c)) {
			*o++ = (char)c;
			continue;
		}
		*o++ = '%';
		*o++ = hex[c >> 4];
		*o++ = hex[c & 15];
	}
	if (out)
		*o = '\0';
	return out;
}
