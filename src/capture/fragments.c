// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "fragments.h"

/* ".cold" alone or followed by ".DIGITS", at the end of the name. */
static bool is_cold_suffix(const char *s)
{
	if (strncmp(s, ".cold", 5))
		return false;
	s += 5;
	if (!*s)
		return true;
	if (*s++ != '.' || !*s)
		return false;
	return strspn(s, "0123456789") == strlen(s);
}

bool fragment__is(const char *name)
{
	for (const char *p = strstr(name, ".cold"); p; p = strstr(p + 1, ".cold"))
		if (p != name && is_cold_suffix(p))
			return true;
	return false;
}

bool fragment__of(const char *name, const char *sym)
{
	size_t n = strlen(sym);

	return n && !strncmp(name, sym, n) && is_cold_suffix(name + n);
}
