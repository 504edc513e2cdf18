// SPDX-License-Identifier: GPL-2.0
/* src/symbols/proc_maps.c: /proc/PID/maps text, whose paths whoever made the files
 * chose; whole (not NUL-terminated), then line by line (NUL-terminated), and
 * the paths as src/symbols/mapped_file.c cuts them. */
#include "fuzz.h"

#include "symbols/mapped_file.h"
#include "symbols/proc_maps.h"

static void check_entry(const struct map_entry *e)
{
	char *path = mapped_file__path(e);

	FUZZ_CHECK(e->start < e->end && e->path && strlen(e->perms) == 4);
	FUZZ_CHECK(path && strlen(path) <= strlen(e->path));
	free(path);
	mapped_file__key(e);
}

static void parse_whole(const uint8_t *data, size_t size)
{
	struct proc_maps m;
	size_t i;

	if (proc_maps__parse((const char *)data, size, &m)) {
		FUZZ_CHECK(!m.n && !m.v);
		return;
	}
	for (i = 0; i < m.n; i++) {
		check_entry(&m.v[i]);
		FUZZ_CHECK(!i || m.v[i - 1].start <= m.v[i].start);
		FUZZ_CHECK(proc_maps__find(&m, m.v[i].start));
		proc_maps__find(&m, m.v[i].end - 1);
		proc_maps__find(&m, m.v[i].end);
	}
	proc_maps__free(&m);
}

static void parse_lines(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save;
	struct map_entry e;

	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (proc_maps__parse_line(line, &e))
			continue;
		check_entry(&e);
		free(e.path);
	}
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_whole(data, size);
	parse_lines(data, size);
	return 0;
}
