// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "curl_calls.h"

/* The build names the library by its soname (Makefile). */
#ifndef CURL_SONAME
#define CURL_SONAME "libcurl.so"
#endif

/* The first of k's functions the library lacks, or NULL. */
static const char *find_calls(struct curl_calls *k)
{
#define FIND(field)                                                                                \
	if (!(k->field = (__typeof__(k->field))dlsym(k->lib, "curl_" #field)))                     \
		return "curl_" #field;
	FIND(easy_init);
	FIND(easy_setopt);
	FIND(easy_perform);
	FIND(easy_getinfo);
	FIND(easy_strerror);
	FIND(easy_cleanup);
	FIND(slist_append);
	FIND(slist_free_all);
	FIND(mime_init);
	FIND(mime_addpart);
	FIND(mime_name);
	FIND(mime_filename);
	FIND(mime_type);
	FIND(mime_data);
	FIND(mime_free);
#undef FIND
	return NULL;
}

int curl_calls__load(struct curl_calls *k, char *err, size_t len)
{
	const char *missing;

	memset(k, 0, sizeof(*k));
	k->lib = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!k->lib) {
		snprintf(err, len, "cannot load libcurl: %s", dlerror());
		return -ENOTSUP;
	}
	missing = find_calls(k);
	if (missing) {
		snprintf(err, len, "cannot use %s: it has no %s", CURL_SONAME, missing);
		curl_calls__unload(k);
		return -ENOTSUP;
	}
	return 0;
}

void curl_calls__unload(struct curl_calls *k)
{
	if (k->lib)
		dlclose(k->lib);
	k->lib = NULL;
}
