// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <string.h>

#include "util/utf8.h"
#include "xml.h"

/* The length of the character at s (n bytes left; a byte that starts no
 * well-formed UTF-8 sequence counts alone) and whether XML 1.0 may carry
 * it: not control characters, nor U+FFFE and U+FFFF. */
static size_t xml_char(const unsigned char *s, size_t n, bool *ok)
{
	size_t len = utf8__seq_len(s, n);

	if (!len) {
		*ok = false;
		return 1;
	}
	if (len == 1)
		*ok = s[0] >= 0x20 && s[0] != 0x7f;
	else if (len == 2)
		*ok = !(s[0] == 0xc2 && s[1] < 0xa0); /* C1 controls */
	else
		*ok = !(len == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe);
	return len;
}

size_t xml__len(const unsigned char *s, size_t n)
{
	size_t chars = 0;
	bool ok;

	for (size_t i = 0; i < n; chars++)
		i += xml_char(s + i, n - i, &ok);
	return chars;
}

/* Markup characters as entities (names may hold "]]>", quotes, anything),
 * what XML cannot carry as U+FFFD. Returns the bytes used. */
static size_t put_char(FILE *f, const unsigned char *s, size_t n)
{
	static const char *const ent[] = {
		['&'] = "&amp;",  ['<'] = "&lt;",    ['>'] = "&gt;",
		['"'] = "&quot;", ['\''] = "&apos;",
	};
	bool ok;
	size_t len = xml_char(s, n, &ok);

	if (!ok)
		fputs("\xef\xbf\xbd", f);
	else if (s[0] < sizeof(ent) / sizeof(ent[0]) && ent[s[0]])
		fputs(ent[s[0]], f);
	else
		fwrite(s, 1, len, f);
	return len;
}

void xml__put(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), chars = xml__len(s, n);
	size_t keep = chars > max ? max - 2 : chars;

	for (size_t i = 0, c = 0; c < keep; c++)
		i += put_char(f, s + i, n - i);
	if (keep < chars)
		fputs("..", f);
}
