// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>

#include "numfmt.h"

void numfmt__count(uint64_t v, char *buf, size_t size)
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, v);
	size_t o = 0;

	for (int i = 0; i < len && o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

void numfmt__ns(uint64_t ns, char *buf, size_t size)
{
	static const struct {
		double ns;
		const char *unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xc2\xb5s" } };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double v = ns / units[i].ns;
		int decimals = v < 10 ? 2 : v < 100;

		if (v >= 1) {
			snprintf(buf, size, "%.*f %s", decimals, v, units[i].unit);
			return;
		}
	}
	snprintf(buf, size, "%" PRIu64 " ns", ns);
}
