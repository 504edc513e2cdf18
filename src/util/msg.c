// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("flamebpf: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
