/* UTF-8 checks for the writers whose formats must be valid UTF-8 (JSON,
 * XML): names come from binaries and /proc, which promise no encoding. */
#ifndef FLAMEBPF_UTF8_H
#define FLAMEBPF_UTF8_H

#include <stddef.h>
#include <stdio.h>

/* The length (1-4) of the well-formed UTF-8 sequence at s, which holds n
 * bytes; 0 when the bytes there are not one (overlong forms, surrogates and
 * code points above U+10FFFF are not). */
size_t utf8__seq_len(const unsigned char *s, size_t n);

/* Writes str as a JSON string: quoted, '"', '\\' and control bytes
 * escaped, each byte that starts no well-formed sequence as U+FFFD. */
void utf8__put_json_str(FILE *f, const char *str);

/* The same, with '<', '>' and '&' escaped too (\u003c ...): safe inside an
 * HTML <script> element. */
void utf8__put_json_str_html(FILE *f, const char *str);

#endif
