/* Strings kept once however often they are added, each held by a count:
 * the mappings of thousands of short-lived processes name a few dozen
 * files, and a copy of the path per mapping was half of what a busy
 * machine's mapping history held. */
#ifndef FLAMEBPF_STRPOOL_H
#define FLAMEBPF_STRPOOL_H

#include <stddef.h>

#include "hashmap.h"

struct strpool {
	struct hashmap by_hash; /* hash of the text -> its entry */
	size_t held;		/* entries in by_hash that someone holds */
};

/* s's text, held once more: the same pointer for the same text while it is
 * held. NULL when out of memory. */
const char *strpool__get(struct strpool *p, const char *s);

/* Lets go of a string strpool__get gave (NULL: nothing). */
void strpool__put(struct strpool *p, const char *s);

/* Frees the texts no one holds any more: the map cannot delete one at a
 * time, so it is rebuilt without them. Returns 0 or -ENOMEM (then they are
 * kept). */
int strpool__trim(struct strpool *p);

/* Frees the pool and every text in it, held or not. */
void strpool__free(struct strpool *p);

#endif
