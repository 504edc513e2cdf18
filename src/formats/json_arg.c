// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>

#include "util/utf8.h"
#include "json_arg.h"
#include "json_u64.h"

void json_arg__put(FILE *f, const struct profile *p, const struct profile_event *e, int i,
		   bool tagged)
{
	const char *str = profile__event_str(p, e, i);

	if (str && tagged) {
		fputs("{\"s\":", f);
		utf8__put_json_str_html(f, str);
		fputc('}', f);
	} else if (str) {
		utf8__put_json_str(f, str);
	} else if (e->flags & PROFILE_EVENT_ARG_SIGNED(i)) {
		fprintf(f, "%" PRId64, (int64_t)e->args[i]);
	} else {
		json_u64__put(f, e->args[i]);
	}
}

int json_arg__get(json_object *o, struct profile *p, struct profile_event *e, int i)
{
	json_object *s;

	if (json_object_is_type(o, json_type_object)) {
		if (!json_object_object_get_ex(o, "s", &s) ||
		    !json_object_is_type(s, json_type_string))
			return -EINVAL;
		return profile__set_event_str(p, e, i, json_object_get_string(s));
	}
	if (json_object_is_type(o, json_type_int) && json_object_get_int64(o) < 0) {
		e->args[i] = (uint64_t)json_object_get_int64(o);
		e->flags |= PROFILE_EVENT_ARG_SIGNED(i);
		return 0;
	}
	return json_u64__get(o, &e->args[i]);
}
