/* libcurl's functions that an HTTP POST calls, from the library opened at
 * the first request rather than linked: its TLS and the libraries under it
 * are 5 MiB of pages in the RSS of every run, and only --push uses them. */
#ifndef FLAMEBPF_CURL_CALLS_H
#define FLAMEBPF_CURL_CALLS_H

#include <curl/curl.h>

struct curl_calls {
	void *lib;
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode rc);
	void (*easy_cleanup)(CURL *c);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	curl_mime *(*mime_init)(CURL *c);
	curl_mimepart *(*mime_addpart)(curl_mime *m);
	CURLcode (*mime_name)(curl_mimepart *p, const char *name);
	CURLcode (*mime_filename)(curl_mimepart *p, const char *name);
	CURLcode (*mime_type)(curl_mimepart *p, const char *type);
	CURLcode (*mime_data)(curl_mimepart *p, const char *data, size_t len);
	void (*mime_free)(curl_mime *m);
};

/* Opens libcurl (it stays loaded for the next request: its TLS libraries
 * are not made to be unloaded) and fills k. Returns 0, or -ENOTSUP with
 * why in err (len bytes). */
int curl_calls__load(struct curl_calls *k, char *err, size_t len);

void curl_calls__unload(struct curl_calls *k);

#endif
