/* The pusher: each finished profile sent to the fleet's backend, a
 * Grafana Pyroscope server (POST /ingest?format=pprof, the pprof as the
 * "profile" file of a form) or an OpenTelemetry collector (OTLP profiles
 * over HTTP, POST /v1development/profiles, opentelemetry-proto v1.9.0).
 *
 * Contract: pusher__push() sends at once, oldest first: when uploads wait
 * in the spool it joins them at the end and the spool is flushed. An
 * upload the backend could not take (no connection, timeout, TLS failure,
 * 5xx, 408, 429) is spooled and sent again by the next push or flush; a
 * 4xx is the upload's fault, not retried, and counted as rejected. Beyond
 * the spool's size the oldest uploads are dropped and counted. Each such
 * event is said once on stderr; nothing is lost without a word. The
 * interval loop calls pusher__push() once per interval and
 * pusher__flush() at the end. */
#ifndef FLAMEBPF_PUSH_H
#define FLAMEBPF_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

#define PUSH_MAX_LABELS	  16
#define PUSH_SPOOL_SIZE	  (256ULL << 20)
#define PUSH_DAEMON_SPOOL "/var/lib/flamebpf/spool" /* --continuous's default --spool */
#define PUSH_TIMEOUT_MS	  10000
#define PUSH_APP	  "flamebpf"
#define PUSH_ERR_LEN	  512

struct push_opts {
	const char *url;		     /* --push: checked by push__check_url */
	const char *app;		     /* --app; NULL: PUSH_APP */
	const char *labels[PUSH_MAX_LABELS]; /* --label KEY=VALUE, checked */
	size_t nlabels;
	const char *ca_file;	/* --push-ca; NULL: the system's */
	const char *token_file; /* --push-token-file; NULL: no Authorization */
	const char *spool_dir;	/* --spool; NULL: a temporary one, removed if left empty */
	uint64_t spool_size;	/* --spool-size; 0: PUSH_SPOOL_SIZE */
	long timeout_ms;	/* 0: PUSH_TIMEOUT_MS */
};

struct push_stats {
	uint64_t sent, sent_bytes;
	uint64_t spooled;		 /* uploads that had to wait in the spool */
	uint64_t dropped, dropped_bytes; /* the oldest, dropped from a full spool */
	uint64_t rejected;		 /* refused by the backend (4xx): not retried */
	uint64_t lost;			 /* could not be encoded or spooled */
	/* the last push: its upload's size, the time to encode it, and to
	 * send it and what waited before it */
	uint64_t last_bytes, encode_ns, send_ns;
};

struct pusher;

/* A --push URL: http(s)://HOST[:PORT][/PREFIX] (Pyroscope) or
 * otlp+http(s)://HOST[:PORT][/PREFIX]. 0, or -EINVAL with why in err. */
int push__check_url(const char *url, char *err, size_t len);

/* A --label KEY=VALUE: KEY [A-Za-z_][A-Za-z0-9_.]* (at most 64), VALUE
 * non-empty, without ',', '{', '}', '=', quotes or control bytes (they
 * would break Pyroscope's name{k=v,...}). 0, or -EINVAL with why in err. */
int push__check_label(const char *kv, char *err, size_t len);

/* Reads the token file, opens the spool (sending nothing yet). Returns 0;
 * -EINVAL for what the user must fix (the token file), with why in err;
 * -errno otherwise (the spool directory), likewise. */
int pusher__new(struct pusher **p, const struct push_opts *o, char *err, size_t len);

/* Sends prof, which covers [start, end) (ns since the epoch). Returns 0
 * when it was delivered (or refused: see the stats), -EAGAIN when it waits
 * in the spool, -errno when it is lost (said on stderr, counted). */
int pusher__push(struct pusher *p, const struct profile *prof, uint64_t start_ns, uint64_t end_ns);

/* Sends what waits in the spool, oldest first, until the backend fails
 * again. Returns 0 when nothing waits any more, -EAGAIN when some does. */
int pusher__flush(struct pusher *p);

const struct push_stats *pusher__stats(const struct pusher *p);
size_t pusher__pending(const struct pusher *p);
const char *pusher__spool_dir(const struct pusher *p);
void pusher__free(struct pusher *p);

#endif
