// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

static int is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t utf8__seq_len(const unsigned char *s, size_t n)
{
	unsigned int cp;
	size_t len;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if (!is_cont(s[i]))
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* html: '<', '>' and '&' as \u escapes too, so that the string can sit
 * inside a <script> element, which "</script" or "<!--" would end. */
static void put_json_str(FILE *f, const char *str, bool html)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);

	fputc('"', f);
	while (n) {
		size_t len = utf8__seq_len(s, n);

		if (!len)
			fputs("\xef\xbf\xbd", f); /* U+FFFD for one bad byte */
		else if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20 || *s == 0x7f || (html && strchr("<>&", *s)))
			fprintf(f, "\\u%04x", *s);
		else
			fwrite(s, 1, len, f);
		len = len ? len : 1;
		s += len;
		n -= len;
	}
	fputc('"', f);
}

void utf8__put_json_str(FILE *f, const char *str)
{
	put_json_str(f, str, false);
}

void utf8__put_json_str_html(FILE *f, const char *str)
{
	put_json_str(f, str, true);
}
