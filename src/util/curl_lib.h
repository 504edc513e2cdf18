/* libcurl, opened when a request is made rather than linked: linked, it and
 * the 28 libraries it needs (TLS, Kerberos, LDAP, ...) were mapped and
 * relocated at every start, 5 ms of it, though only --push sends anything. */
#ifndef FLAMEBPF_CURL_LIB_H
#define FLAMEBPF_CURL_LIB_H

#include <curl/curl.h>

struct curl_lib {
	void *handle;
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

/* Opens libcurl into l (it stays mapped: the next open is cheap). Returns
 * 0, or -ENOENT with dlerror()'s reason in why (len bytes). */
int curl_lib__open(struct curl_lib *l, char *why, size_t len);

void curl_lib__close(struct curl_lib *l);

#endif
