/* The string table of the protobuf outputs: text -> index, "" at index 0
 * once it was asked for first. */
#ifndef FLAMEBPF_STRTAB_H
#define FLAMEBPF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

struct strtab {
	char **s;
	size_t n, cap;
	struct hashmap idx; /* hash of the text -> index, probed on collisions */
	char **owned;	    /* strings made here (UTF-8 fixes, comments) */
	size_t nowned;
};

/* Find-or-create s (which must outlive the table) in t; a text that is
 * not UTF-8 is fixed (each bad byte U+FFFD) in a copy t owns. 0 or -ENOMEM. */
int strtab__findnew(struct strtab *t, const char *s, int64_t *idx);

/* "WHAT: TEXT" (TEXT alone when what is ""), a string the table owns. */
int strtab__findnew_named(struct strtab *t, const char *what, const char *text, int64_t *idx);

void strtab__free(struct strtab *t);

#endif
