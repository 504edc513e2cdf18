// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "json_u64.h"

void json_u64__put(FILE *f, uint64_t v)
{
	if (v <= JSON_U64_SAFE_MAX)
		fprintf(f, "%" PRIu64, v);
	else
		fprintf(f, "\"0x%" PRIx64 "\"", v);
}

int json_u64__get(json_object *o, uint64_t *v)
{
	const char *s;
	char *end;

	if (json_object_is_type(o, json_type_int)) {
		int64_t i = json_object_get_int64(o);

		/* json-c keeps integers above INT64_MAX as unsigned */
		if (i < 0)
			return -EINVAL;
		*v = i == INT64_MAX ? json_object_get_uint64(o) : (uint64_t)i;
		return 0;
	}
	if (!json_object_is_type(o, json_type_string))
		return -EINVAL;
	s = json_object_get_string(o);
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}
