// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "curl_lib.h"

#define CURL_SONAME "libcurl.so.4"

/* The address of libcurl's function name into *fn; false if it has none. */
static bool find(void *h, void *fn, const char *name)
{
	void *p = dlsym(h, name);

	memcpy(fn, &p, sizeof(p));
	return p != NULL;
}

int curl_lib__open(struct curl_lib *l, char *why, size_t len)
{
	void *h = dlopen(CURL_SONAME, RTLD_NOW | RTLD_NODELETE);

	*l = (struct curl_lib){ .handle = h };
	if (h && find(h, &l->easy_init, "curl_easy_init") &&
	    find(h, &l->easy_setopt, "curl_easy_setopt") &&
	    find(h, &l->easy_perform, "curl_easy_perform") &&
	    find(h, &l->easy_getinfo, "curl_easy_getinfo") &&
	    find(h, &l->easy_strerror, "curl_easy_strerror") &&
	    find(h, &l->easy_cleanup, "curl_easy_cleanup") &&
	    find(h, &l->slist_append, "curl_slist_append") &&
	    find(h, &l->slist_free_all, "curl_slist_free_all") &&
	    find(h, &l->mime_init, "curl_mime_init") &&
	    find(h, &l->mime_addpart, "curl_mime_addpart") &&
	    find(h, &l->mime_name, "curl_mime_name") &&
	    find(h, &l->mime_filename, "curl_mime_filename") &&
	    find(h, &l->mime_type, "curl_mime_type") && find(h, &l->mime_data, "curl_mime_data") &&
	    find(h, &l->mime_free, "curl_mime_free"))
		return 0;
	snprintf(why, len, "cannot load %s: %s", CURL_SONAME, dlerror());
	curl_lib__close(l);
	return -ENOENT;
}

void curl_lib__close(struct curl_lib *l)
{
	if (l->handle)
		dlclose(l->handle);
	l->handle = NULL;
}
