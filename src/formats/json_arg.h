/* SPDX-License-Identifier: GPL-2.0 */
/* A probe's hit's argument in JSON, as the Chrome trace and the HTML report
 * write it and the report reads it back: a string the program passed, a
 * signed number, or an unsigned one as json_u64 writes it. */
#ifndef FLAMEBPF_JSON_ARG_H
#define FLAMEBPF_JSON_ARG_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "profile/profile.h"

/* Argument i of e. tagged (the report's data): a string as {"s":"..."},
 * which a reader tells from a number json_u64 wrote as a string, and
 * escaped to sit in a <script>; else a plain JSON string. */
void json_arg__put(FILE *f, const struct profile *p, const struct profile_event *e, int i,
		   bool tagged);

/* Argument i of e from o, as json_arg__put wrote it tagged: its value and
 * its flags (a string interned in p). Returns 0, -EINVAL for anything
 * else, or -ENOMEM. */
int json_arg__get(json_object *o, struct profile *p, struct profile_event *e, int i);

#endif
