/* The spool: uploads that could not be sent, kept on disk in order until
 * the backend takes them, bounded in bytes (the oldest go first). One file
 * per upload, NNNNNNNNNNNNNNNN.push (a sequence number in hex), written
 * whole then renamed into place; a restart finds and keeps them. */
#ifndef FLAMEBPF_PUSH_SPOOL_H
#define FLAMEBPF_PUSH_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spool;

/* What an upload needs to be sent again. */
struct spool_item {
	char *url;
	char *content_type;
	char *form_field; /* NULL: the body is sent as it is */
	char *encoding;	  /* the body's Content-Encoding; NULL: none */
	uint8_t *body;
	size_t len;
};

/* Opens dir (made, mode 0700, when missing) and takes in the uploads
 * already there. Returns 0, or -errno with what failed in err. */
int spool__open(struct spool **s, const char *dir, uint64_t max_bytes, char *err, size_t errlen);

/* Appends it as the newest, then drops the oldest until the spool fits
 * max_bytes again (it too, when it alone is larger): *dropped says how
 * many went, *dropped_bytes their size. Returns 0 or -errno (not written). */
int spool__add(struct spool *s, const struct spool_item *it, uint64_t *dropped,
	       uint64_t *dropped_bytes);

/* The oldest upload (free with spool_item__free), -ENOENT when none, or
 * -errno when it cannot be read (then spool__pop it: it is lost). */
int spool__peek(struct spool *s, struct spool_item *it);

/* Removes the oldest upload. */
void spool__pop(struct spool *s);

size_t spool__count(const struct spool *s);
uint64_t spool__bytes(const struct spool *s);
const char *spool__dir(const struct spool *s);

void spool_item__free(struct spool_item *it);

/* Closes; the directory is removed too when rm_empty and no upload is
 * left in it. */
void spool__free(struct spool *s, bool rm_empty);

#endif
