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

#include <curl/curl.h>

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

static int set_body(CURL *c, const struct http_request *rq, curl_mime **mime,
		    struct curl_slist **hdrs)
{
	curl_mimepart *part;
	char line[128];

	if (!rq->form_field) {
		snprintf(line, sizeof(line), "Content-Type: %s", rq->content_type);
		*hdrs = curl_slist_append(*hdrs, line);
		if (*hdrs && rq->content_encoding) {
			snprintf(line, sizeof(line), "Content-Encoding: %s", rq->content_encoding);
			*hdrs = curl_slist_append(*hdrs, line);
		}
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
		return *hdrs ? 0 : -ENOMEM;
	}
	*mime = curl_mime_init(c);
	part = *mime ? curl_mime_addpart(*mime) : NULL;
	if (!part || curl_mime_name(part, rq->form_field) ||
	    curl_mime_filename(part, rq->form_field) || curl_mime_type(part, rq->content_type) ||
	    curl_mime_data(part, rq->body, rq->len))
		return -ENOMEM;
	curl_easy_setopt(c, CURLOPT_MIMEPOST, *mime);
	return 0;
}

static int set_auth(const struct http_request *rq, struct curl_slist **hdrs)
{
	char *line;
	struct curl_slist *l;

	if (!rq->token)
		return 0;
	if (asprintf(&line, "Authorization: Bearer %s", rq->token) < 0)
		return -ENOMEM;
	l = curl_slist_append(*hdrs, line);
	explicit_bzero(line, strlen(line));
	free(line);
	if (!l)
		return -ENOMEM;
	*hdrs = l;
	return 0;
}

static int perform(CURL *c, long *status, char *err)
{
	char why[CURL_ERROR_SIZE] = "";
	CURLcode rc;

	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, why);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		snprintf(err, HTTP_ERR_LEN, "%s", why[0] ? why : curl_easy_strerror(rc));
		return rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return 0;
}

int http__post(const struct http_request *rq, long *status, char err[HTTP_ERR_LEN])
{
	struct answer a = { .text = err };
	struct curl_slist *hdrs = NULL;
	curl_mime *mime = NULL;
	CURL *c = curl_easy_init();
	int ret = 0;

	err[0] = '\0';
	if (!c) {
		snprintf(err, HTTP_ERR_LEN, "cannot start libcurl");
		return -ENOMEM;
	}
	curl_easy_setopt(c, CURLOPT_URL, rq->url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, rq->timeout_ms);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_answer);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &a);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "flamebpf/" FLAMEBPF_VERSION);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	/* no "Expect: 100-continue" round trip before a large body */
	hdrs = curl_slist_append(hdrs, "Expect:");
	if (!hdrs)
		ret = -ENOMEM;
	if (rq->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, rq->ca_file);
	ret = ret ?: set_body(c, rq, &mime, &hdrs) ?: set_auth(rq, &hdrs);
	if (!ret) {
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
		ret = perform(c, status, err);
	}
	if (ret == -ENOMEM && !err[0])
		snprintf(err, HTTP_ERR_LEN, "out of memory");
	one_line(err);
	curl_mime_free(mime);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	return ret;
}
