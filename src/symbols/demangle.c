// SPDX-License-Identifier: GPL-2.0
/* Wraps libiberty's demangler, the one binutils and perf use. */
#include <ctype.h>
#include <libiberty/demangle.h>
#include <string.h>

#include "demangle.h"

/* "::h" and 16 hex digits: the hash a legacy Rust name ends with. */
#define RUST_HASH_LEN (3 + 16)

bool demangle__is_mangled(const char *name)
{
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

/* libiberty drops the hash itself; this catches names it demangled as C++
 * (an invalid Rust hash makes it fall back to the Itanium rules). */
static void strip_rust_hash(char *s)
{
	size_t len = strlen(s), i;
	char *h;

	if (len <= RUST_HASH_LEN)
		return;
	h = s + len - RUST_HASH_LEN;
	if (strncmp(h, "::h", 3))
		return;
	for (i = 3; i < RUST_HASH_LEN; i++) {
		if (!isxdigit((unsigned char)h[i]))
			return;
	}
	*h = '\0';
}

static char *demangle_with(const char *name, int opts)
{
	char *s;

	if (!demangle__is_mangled(name))
		return NULL;
	/* DMGL_AUTO: Rust first (its legacy names are valid C++ ones), then C++. */
	s = cplus_demangle(name, opts | DMGL_AUTO);
	if (s)
		strip_rust_hash(s);
	return s;
}

char *demangle(const char *name)
{
	return demangle_with(name, DMGL_PARAMS | DMGL_ANSI);
}

char *demangle__short(const char *name)
{
	return demangle_with(name, DMGL_ANSI);
}
