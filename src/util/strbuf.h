/* A growable string. */
#ifndef FLAMEBPF_STRBUF_H
#define FLAMEBPF_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *s; /* NUL-terminated once anything was added */
	size_t len, cap;
};

/* Each returns 0 or -ENOMEM. */
int strbuf__add(struct strbuf *b, const char *s, size_t n);
int strbuf__addc(struct strbuf *b, char c);
int strbuf__addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Room for extra more bytes, so that adding them moves nothing. */
int strbuf__reserve(struct strbuf *b, size_t extra);
/* Hands the string over (never NULL on success) and empties b. */
char *strbuf__detach(struct strbuf *b);
void strbuf__reset(struct strbuf *b);
void strbuf__free(struct strbuf *b);

#endif
