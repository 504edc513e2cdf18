// SPDX-License-Identifier: GPL-2.0
/* src/symbols/perfmap.c: a JIT's /tmp/perf-PID.map, written by the profiled user;
 * parsed from memory (not NUL-terminated), then read from a file as flamebpf
 * reads it. Lookups at addresses the input suggests. */
#include "fuzz.h"

#include "symbols/perfmap.h"

static void lookups(const struct perfmap *m, const uint8_t *data, size_t size)
{
	uint64_t off;
	const char *name;

	for (size_t i = 0; i < size && i < 256; i += 8) {
		uint64_t addr = fuzz_u64(data + i, size - i);

		name = perfmap__lookup(m, addr, &off);
		FUZZ_CHECK(!name || (off <= addr && strlen(name) <= PERFMAP_MAX_NAME));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap *m = (void *)1;
	char path[128];
	int err = perfmap__parse((const char *)data, size, &m);

	FUZZ_CHECK(err <= 0 && (err ? !m : !!m));
	if (m) {
		FUZZ_CHECK(perfmap__count(m) <= PERFMAP_MAX_ENTRIES);
		lookups(m, data, size);
	}
	perfmap__free(m);
	fuzz_write(fuzz_path("perf-1.map", path, sizeof(path)), data, size, 0600);
	if (!perfmap__read(0, path, getuid(), 0, &m))
		lookups(m, data, size);
	perfmap__free(m);
	return 0;
}
