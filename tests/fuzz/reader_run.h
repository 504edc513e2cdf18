/* SPDX-License-Identifier: GPL-2.0 */
/* The profile readers through their public API (src/formats/reader.h), for the
 * harnesses of one format or of all: the input as a file, read with every
 * option off, then on. */
#ifndef FLAMEBPF_FUZZ_READER_RUN_H
#define FLAMEBPF_FUZZ_READER_RUN_H

#include "fuzz.h"

#include "formats/reader.h"

/* Returns the profile's total weight, or UINT64_MAX when it failed. */
static inline uint64_t reader_run_one(const char *path, const struct reader_opts *o)
{
	char err[READER_ERR_LEN] = "";
	struct profile *p = (void *)1;
	struct reader_stats st;
	enum in_format f;
	int ret = reader__load(path, o, &p, &f, &st, err);
	uint64_t total = UINT64_MAX;

	FUZZ_CHECK(ret <= 0 && (ret ? !p || p == (void *)1 : !!p));
	/* every failure says why, in a string that ends */
	FUZZ_CHECK(!ret || (err[0] && memchr(err, '\0', sizeof(err))));
	if (!ret) {
		total = profile__total_weight(p);
		profile__free(p);
	}
	return total;
}

/* Reads the input, unless want (an enum in_format; -1: any, and what is
 * none) is not what it looks like: a harness of one format spends its time
 * there. */
static inline void reader_run(const uint8_t *data, size_t size, int want)
{
	const struct reader_opts off = { .split_min = UINT64_MAX };
	const struct reader_opts on = { .keep_events = true,
					.keep_ids = true,
					.keep_addrs = true,
					.ids_in_root = true,
					.period = true };
	const struct reader_opts halves = { .split_min = 1 };
	uint64_t whole;
	enum in_format f;
	char path[128];

	if (want >= 0 && (reader__detect((const char *)data, size, &f) || (int)f != want))
		return;
	fuzz_write(fuzz_path("profile", path, sizeof(path)), data, size, 0600);
	whole = reader_run_one(path, &off);
	/* a perf script read as two halves at once: the same outcome */
	FUZZ_CHECK(reader_run_one(path, &halves) == whole);
	reader_run_one(path, &on);
}

#endif
