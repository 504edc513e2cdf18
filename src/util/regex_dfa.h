/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A POSIX extended regex (a subset) compiled into a byte DFA, so that a BPF
 * program can match names by walking a table: no regex engine in the kernel.
 */
#ifndef FLAMEBPF_REGEX_DFA_H
#define FLAMEBPF_REGEX_DFA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFA_MAX_STATES	256
#define DFA_MAX_CLASSES 64
#define DFA_AT_END	1 /* accept[]: a match if the input ends in this state */
#define DFA_MATCHED	2 /* accept[]: a match whatever follows (the state absorbs) */

struct dfa {
	uint32_t nstates, nclasses;			 /* state 0 is the start */
	uint8_t cls[256];				 /* byte -> class */
	uint16_t next[DFA_MAX_STATES * DFA_MAX_CLASSES]; /* [state * DFA_MAX_CLASSES + class] */
	uint8_t accept[DFA_MAX_STATES];			 /* DFA_AT_END | DFA_MATCHED bits */
};

/*
 * Compiles regex (POSIX extended: literals, '\' escapes of metacharacters,
 * '.', bracket expressions with [:class:]es of the C locale, * + ? {m} {m,}
 * {m,n}, groups, '|', and '^' '$' anywhere as anchors) into *out with the
 * semantics of regexec(REG_EXTENDED|REG_NOSUB) on a NUL-free string: a match
 * anywhere unless anchored. Returns 0; -EINVAL with a one-line reason in err
 * (syntax error, or syntax outside the subset, naming it); -E2BIG when the
 * DFA needs more than DFA_MAX_STATES states or DFA_MAX_CLASSES byte classes
 * (or the expanded regex is too large); -ENOMEM.
 */
int dfa__compile(const char *regex, struct dfa *out, char *err, size_t errlen);

/* Runs the DFA over s[0..len): what the BPF program does. */
bool dfa__match(const struct dfa *d, const char *s, size_t len);

#endif
