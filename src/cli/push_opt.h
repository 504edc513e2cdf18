/* The pusher's options: --push URL, --app NAME, --label KEY=VALUE,
 * --push-ca FILE, --push-token-file FILE, --spool DIR, --spool-size SIZE. */
#ifndef FLAMEBPF_PUSH_OPT_H
#define FLAMEBPF_PUSH_OPT_H

#include "push.h"

enum push_opt {
	PUSH_OPT_URL,
	PUSH_OPT_APP,
	PUSH_OPT_LABEL,
	PUSH_OPT_CA,
	PUSH_OPT_TOKEN_FILE,
	PUSH_OPT_SPOOL,
	PUSH_OPT_SPOOL_SIZE,
};

/* The most --spool-size takes: 1 TiB. */
#define PUSH_OPT_MAX_SPOOL (1ULL << 40)

/* One of them into o. Returns 0, or -EINVAL with a one-line message in
 * err (OPTIONS_ERR_LEN bytes). */
int push_opt__parse(enum push_opt which, const char *arg, struct push_opts *o, char *err);

/* The others without --push: -EINVAL with the message in err. */
int push_opt__check(const struct push_opts *o, char *err);

#endif
