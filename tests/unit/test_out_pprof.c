/* Unit tests of src/formats/out_pprof.c: small profiles written to memory, then
 * gunzipped with zlib and decoded with the protobuf-c code generated from
 * proto/profile.proto, and checked field by field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/out_pprof.h"
#include "gen/profile.pb-c.h"
#include "profile/profile.h"

#define APP	"/usr/bin/app"
#define APP_BID "0123456789abcdef0123456789abcdef01234567"
#define LIBC	"/usr/lib/x86_64-linux-gnu/libc.so.6"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;

static struct profile *new_profile(enum profile_unit unit, unsigned int freq)
{
	struct profile_meta m = { .cmdline = "flamebpf -F 100",
				  .event = "cpu-clock",
				  .kernel = "6.1.0",
				  .losses = "",
				  .freq = freq,
				  .secs = 2.5 };
	struct profile *p = profile__new(unit);

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	return p;
}

static uint32_t frame_at(struct profile *p, const char *name, const char *dso, uint64_t addr,
			 enum frame_kind kind)
{
	const char *base = strrchr(dso, '/');
	struct frame f = {
		.name = name,
		.module = kind == FRAME_KERNEL ? "[kernel]"
			  : base	       ? base + 1
					       : dso,
		.kind = kind,
		.addr = addr,
		.dso = dso,
		.build_id = !strcmp(dso, APP) ? APP_BID : "",
	};
	uint32_t id;

	assert_int_equal(profile__findnew_frame_at(p, &f, &id), 0);
	return id;
}

static uint32_t ufr(struct profile *p, const char *name, uint64_t addr)
{
	return frame_at(p, name, APP, addr, FRAME_USER);
}

static uint32_t kfr(struct profile *p, const char *name, uint64_t addr)
{
	return frame_at(p, name, "[kernel.kallsyms]", addr, FRAME_KERNEL);
}

static void add(struct profile *p, uint32_t pid, uint32_t tid, const char *tcomm,
		const uint32_t *frames, uint32_t n, uint64_t weight)
{
	struct stack_owner who = { .pid = pid, .tid = tid, .comm = "app", .tcomm = tcomm };

	assert_int_equal(profile__add_stack(p, &who, frames, n, weight), 0);
}

/* Inflates the gzip stream (windowBits 15 + 16: gzip only, not zlib). */
static uint8_t *gunzip(const char *gz, size_t gzlen, size_t *len)
{
	z_stream z = { .next_in = (Bytef *)gz, .avail_in = (uInt)gzlen };
	size_t cap = 4096;
	uint8_t *out = malloc(cap);
	int ret = Z_OK;

	assert_non_null(out);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	*len = 0;
	while (ret != Z_STREAM_END) {
		if (*len == cap)
			assert_non_null(out = realloc(out, cap *= 2));
		z.next_out = out + *len;
		z.avail_out = (uInt)(cap - *len);
		ret = inflate(&z, Z_NO_FLUSH);
		if (ret != Z_OK && ret != Z_STREAM_END)
			fail_msg("not a gzip stream: inflate says %d", ret);
		*len = cap - z.avail_out;
	}
	assert_int_equal(z.avail_in, 0); /* nothing after the stream */
	inflateEnd(&z);
	return out;
}

/* Writes p as pprof and decodes it back; free with pb_free(). */
static pb_profile *roundtrip(const struct profile *p)
{
	struct write_opts o = {};
	char *gz = NULL;
	size_t gzlen = 0, len;
	FILE *f = open_memstream(&gz, &gzlen);
	pb_profile *pb;
	uint8_t *raw;

	assert_non_null(f);
	assert_int_equal(pprof__write(p, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_true(gzlen > 18 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);
	raw = gunzip(gz, gzlen, &len);
	pb = perftools__profiles__profile__unpack(NULL, len, raw);
	if (!pb)
		fail_msg("protobuf-c cannot decode the %zu bytes written", len);
	free(raw);
	free(gz);
	assert_true(pb->n_string_table > 0);
	assert_string_equal(pb->string_table[0], "");
	return pb;
}

static void pb_free(pb_profile *pb)
{
	perftools__profiles__profile__free_unpacked(pb, NULL);
}

/* The string at index i, which must be in the table. */
static const char *str(const pb_profile *pb, int64_t i)
{
	assert_in_range(i, 0, pb->n_string_table - 1);
	return pb->string_table[i];
}

static void expect_types(const pb_profile *pb, const char *const want[], size_t n, const char *dflt)
{
	assert_int_equal(pb->n_sample_type, n);
	for (size_t i = 0; i < n; i++) {
		char got[128];

		snprintf(got, sizeof(got), "%s/%s", str(pb, pb->sample_type[i]->type),
			 str(pb, pb->sample_type[i]->unit));
		assert_string_equal(got, want[i]);
	}
	assert_string_equal(str(pb, pb->default_sample_type), dflt);
}

static const Perftools__Profiles__Location *location(const pb_profile *pb, uint64_t id)
{
	for (size_t i = 0; i < pb->n_location; i++)
		if (pb->location[i]->id == id)
			return pb->location[i];
	fail_msg("no location %" PRIu64, id);
	return NULL;
}

static const Perftools__Profiles__Function *function(const pb_profile *pb, uint64_t id)
{
	for (size_t i = 0; i < pb->n_function; i++)
		if (pb->function[i]->id == id)
			return pb->function[i];
	fail_msg("no function %" PRIu64, id);
	return NULL;
}

static const Perftools__Profiles__Mapping *mapping(const pb_profile *pb, uint64_t id)
{
	for (size_t i = 0; i < pb->n_mapping; i++)
		if (pb->mapping[i]->id == id)
			return pb->mapping[i];
	fail_msg("no mapping %" PRIu64, id);
	return NULL;
}

/* A sample's frames as "leaf;...;root", function names through the ids. */
static void frames_of(const pb_profile *pb, const pb_sample *s, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n_location_id; i++) {
		const Perftools__Profiles__Location *l = location(pb, s->location_id[i]);

		assert_int_equal(l->n_line, 1);
		used += snprintf(buf + used, len - used, "%s%s", i ? ";" : "",
				 str(pb, function(pb, l->line[0]->function_id)->name));
		assert_true(used < len);
	}
}

/* The sample whose frames are exactly FRAMES (leaf first). */
static const pb_sample *sample(const pb_profile *pb, const char *frames)
{
	char got[512];

	for (size_t i = 0; i < pb->n_sample; i++) {
		frames_of(pb, pb->sample[i], got, sizeof(got));
		if (!strcmp(got, frames))
			return pb->sample[i];
	}
	fail_msg("no sample with the frames '%s'", frames);
	return NULL;
}

static void expect_values(const pb_sample *s, int64_t v0, int64_t v1, size_t n)
{
	assert_int_equal(s->n_value, n);
	assert_int_equal(s->value[0], v0);
	if (n > 1)
		assert_int_equal(s->value[1], v1);
}

/* The label KEY of s: its string, or its number printed. */
static const char *label(const pb_profile *pb, const pb_sample *s, const char *key)
{
	static char num[32];

	for (size_t i = 0; i < s->n_label; i++) {
		if (strcmp(str(pb, s->label[i]->key), key))
			continue;
		if (s->label[i]->str)
			return str(pb, s->label[i]->str);
		snprintf(num, sizeof(num), "%" PRId64, s->label[i]->num);
		return num;
	}
	return NULL;
}

/* main -> run -> work (two addresses) in the app, a kernel tail on one
 * stack, and libc's write: the sampling profile of most tests. */
static struct profile *sampled(unsigned int freq)
{
	struct profile *p = new_profile(UNIT_SAMPLES, freq);
	uint32_t st[5];

	st[0] = ufr(p, "main", 0x401000);
	st[1] = ufr(p, "run", 0x401100);
	st[2] = ufr(p, "work", 0x401200);
	add(p, 10, 10, "app", st, 3, 30);
	st[2] = ufr(p, "work", 0x401208); /* another address of work */
	add(p, 10, 11, "worker", st, 3, 5);
	st[2] = frame_at(p, "write", LIBC, 0x7f0000001000, FRAME_USER);
	st[3] = kfr(p, "ksys_write", 0xffffffff81000000);
	st[4] = kfr(p, "vfs_write", 0xffffffff81000100);
	add(p, 10, 10, "app", st, 5, 7);
	return p;
}

static void test_sampling_types(void **state)
{
	static const char *const want[] = { "samples/count", "cpu/nanoseconds" };
	struct profile *p = sampled(100);
	pb_profile *pb = roundtrip(p);

	(void)state;
	expect_types(pb, want, 2, "cpu");
	assert_non_null(pb->period_type);
	assert_string_equal(str(pb, pb->period_type->type), "cpu");
	assert_string_equal(str(pb, pb->period_type->unit), "nanoseconds");
	assert_int_equal(pb->period, 10000000);
	assert_int_equal(pb->duration_nanos, 2500000000LL);
	assert_int_equal(pb->n_sample, 3);
	pb_free(pb);
	profile__free(p);
}

/* samples x 1e9 / freq, rounded: 999 Hz is not a whole number of ns. */
static void test_sampling_values(void **state)
{
	struct profile *p = sampled(999);
	pb_profile *pb = roundtrip(p);

	(void)state;
	assert_int_equal(pb->period, 1001001);
	expect_values(sample(pb, "work;run;main"), 30, 30030030, 2);
	expect_values(sample(pb, "vfs_write;ksys_write;write;run;main"), 7, 7007007, 2);
	pb_free(pb);
	profile__free(p);
}

/* Without a frequency (a folded file) there is no CPU time to give. */
static void test_sampling_no_freq(void **state)
{
	static const char *const want[] = { "samples/count" };
	struct profile *p = sampled(0);
	pb_profile *pb = roundtrip(p);

	(void)state;
	expect_types(pb, want, 1, "samples");
	assert_null(pb->period_type);
	expect_values(sample(pb, "work;run;main"), 30, 0, 1);
	pb_free(pb);
	profile__free(p);
}

/* Leaf first, with one location per frame: work's two addresses are two
 * locations of one function. */
static void test_locations_leaf_first(void **state)
{
	struct profile *p = sampled(100);
	pb_profile *pb = roundtrip(p);
	const pb_sample *s = sample(pb, "vfs_write;ksys_write;write;run;main");
	const Perftools__Profiles__Location *w1, *w2;

	(void)state;
	assert_int_equal(pb->n_location, profile__nr_frames(p));
	assert_int_equal(location(pb, s->location_id[0])->address, 0xffffffff81000100);
	assert_int_equal(location(pb, s->location_id[4])->address, 0x401000);
	w1 = location(pb, 3);
	w2 = location(pb, 4);
	assert_int_equal(w1->address, 0x401200);
	assert_int_equal(w2->address, 0x401208);
	assert_int_equal(w1->line[0]->function_id, w2->line[0]->function_id);
	assert_int_equal(pb->n_function, 6); /* main run work write ksys_write vfs_write */
	assert_string_equal(str(pb, function(pb, w1->line[0]->function_id)->system_name), "work");
	assert_string_equal(str(pb, function(pb, w1->line[0]->function_id)->filename), APP);
	pb_free(pb);
	profile__free(p);
}

/* One mapping per binary with its build-id and the addresses seen, the
 * executable first and the kernel last. */
static void test_mappings(void **state)
{
	struct profile *p = sampled(100);
	pb_profile *pb = roundtrip(p);
	const Perftools__Profiles__Mapping *app, *libc, *kernel;

	(void)state;
	assert_int_equal(pb->n_mapping, 3);
	app = pb->mapping[0];
	libc = pb->mapping[1];
	kernel = pb->mapping[2];
	assert_string_equal(str(pb, app->filename), APP);
	assert_string_equal(str(pb, app->build_id), APP_BID);
	assert_int_equal(app->memory_start, 0x401000);
	assert_int_equal(app->memory_limit, 0x401209);
	assert_true(app->has_functions);
	assert_string_equal(str(pb, libc->filename), LIBC);
	assert_string_equal(str(pb, libc->build_id), "");
	assert_string_equal(str(pb, kernel->filename), "[kernel.kallsyms]");
	assert_int_equal(kernel->memory_start, 0xffffffff81000000);
	assert_int_equal(kernel->memory_limit, 0xffffffff81000101);
	assert_int_equal(mapping(pb, location(pb, 1)->mapping_id)->id, app->id);
	assert_int_equal(mapping(pb, location(pb, 7)->mapping_id)->id, kernel->id);
	pb_free(pb);
	profile__free(p);
}

/* pid and tid as numbers, process and thread names as strings. */
static void test_labels(void **state)
{
	struct profile *p = sampled(100);
	pb_profile *pb = roundtrip(p);
	const pb_sample *s;

	(void)state;
	assert_int_equal(pb->n_sample, 3);
	s = sample(pb, "vfs_write;ksys_write;write;run;main");
	assert_string_equal(label(pb, s, "pid"), "10");
	assert_string_equal(label(pb, s, "tid"), "10");
	assert_string_equal(label(pb, s, "comm"), "app");
	assert_string_equal(label(pb, s, "thread"), "app");
	for (size_t i = 0; i < pb->n_sample; i++) {
		s = pb->sample[i];
		if (strcmp(label(pb, s, "tid"), "11"))
			continue;
		assert_string_equal(label(pb, s, "thread"), "worker");
		expect_values(s, 5, 50000000, 2);
	}
	pb_free(pb);
	profile__free(p);
}

/* Uprobe mode without events: self wall ns per call path, no call counts. */
static void test_uprobe_wall(void **state)
{
	static const char *const want[] = { "wall/nanoseconds" };
	struct profile *p = new_profile(UNIT_NANOSECONDS, 0);
	uint32_t st[2] = { ufr(p, "outer", 0x1100), ufr(p, "inner", 0x1200) };
	pb_profile *pb;

	(void)state;
	add(p, 5, 5, "app", st, 1, 2000000);
	add(p, 5, 5, "app", st, 2, 3000000);
	pb = roundtrip(p);
	expect_types(pb, want, 1, "wall");
	assert_string_equal(str(pb, pb->period_type->type), "calls");
	assert_int_equal(pb->period, 1);
	expect_values(sample(pb, "outer"), 2000000, 0, 1);
	expect_values(sample(pb, "inner;outer"), 3000000, 0, 1);
	pb_free(pb);
	profile__free(p);
}

/* A memory profile of either view: Go's four heap types, the view asked
 * for by default, each stack's bytes and allocations in both. */
static void check_alloc(enum profile_alloc view)
{
	static const char *const want[] = { "alloc_objects/count", "alloc_space/bytes",
					    "inuse_objects/count", "inuse_space/bytes" };
	struct profile_meta m = { .cmdline = "flamebpf --alloc",
				  .event = "bytes allocated",
				  .period = 1,
				  .alloc = view };
	struct profile *p = profile__new(UNIT_SAMPLES);
	uint32_t a = 0, b = 0;
	struct stack_owner who = { 5, 5, "app", "app" };
	bool live = view == PROFILE_ALLOC_LIVE;
	const pb_sample *s;
	pb_profile *pb;

	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	a = ufr(p, "alloc_a", 0x1100);
	b = ufr(p, "alloc_b", 0x1200);
	/* alloc_a: 4096000 bytes in 1000, none live; alloc_b: 6553600 in 100, all live */
	assert_int_equal(profile__add_stack_alloc(p, &who, &a, 1, live ? 0 : 4096000,
						  live ? 0 : 1000, live ? 4096000 : 0,
						  live ? 1000 : 0),
			 0);
	assert_int_equal(profile__add_stack_alloc(p, &who, &b, 1, 6553600, 100, 6553600, 100), 0);
	pb = roundtrip(p);
	expect_types(pb, want, 4, live ? "inuse_space" : "alloc_space");
	assert_string_equal(str(pb, pb->period_type->type), "space");
	assert_string_equal(str(pb, pb->period_type->unit), "bytes");
	s = sample(pb, "alloc_a");
	assert_int_equal(s->n_value, 4);
	assert_int_equal(s->value[0], 1000);
	assert_int_equal(s->value[1], 4096000);
	assert_int_equal(s->value[2], 0);
	assert_int_equal(s->value[3], 0);
	s = sample(pb, "alloc_b");
	assert_int_equal(s->value[0], 100);
	assert_int_equal(s->value[1], 6553600);
	assert_int_equal(s->value[2], 100);
	assert_int_equal(s->value[3], 6553600);
	pb_free(pb);
	profile__free(p);
}

static void test_alloc_views(void **state)
{
	(void)state;
	check_alloc(PROFILE_ALLOC_TOTAL);
	check_alloc(PROFILE_ALLOC_LIVE);
}

/* Several -e: a sample type per event, the first by default and as the
 * period's; each stack's value under its own event, 0 under the others. */
static void test_several_events(void **state)
{
	static const char *const want[] = { "page-faults/count", "context-switches/count" };
	struct profile_meta m = { .cmdline = "flamebpf -e page-faults -e cs",
				  .event = "page-faults, context-switches",
				  .period = 10,
				  .ntypes = 2,
				  .types = { "page-faults", "context-switches" } };
	struct profile *p = profile__new(UNIT_SAMPLES);
	uint32_t f;
	const pb_sample *s;
	pb_profile *pb;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile__set_meta(p, &m), 0);
	f = ufr(p, "touch", 0x1100);
	add(p, 5, 5, "app", &f, 1, 70);
	f = ufr(p, "pingpong", 0x1200);
	profile__set_type(p, 1);
	add(p, 5, 5, "app", &f, 1, 20);
	pb = roundtrip(p);
	expect_types(pb, want, 2, "page-faults");
	assert_string_equal(str(pb, pb->period_type->type), "page-faults");
	assert_int_equal(pb->period, 10);
	s = sample(pb, "touch");
	expect_values(s, 70, 0, 2);
	s = sample(pb, "pingpong");
	expect_values(s, 0, 20, 2);
	pb_free(pb);
	profile__free(p);
}

/* --span: a sample's innermost span frame ([NAME LABEL] under the root,
 * module [span]) as the labels span and span_label; none without one. */
static void test_span_labels(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES, 99);
	uint32_t st[4];
	pb_profile *pb;

	(void)state;
	assert_int_equal(profile__findnew_frame(p, "[req GET /users]", PROFILE_SPAN_MODULE,
						FRAME_USER, &st[0]),
			 0);
	assert_int_equal(profile__findnew_frame(p, "[db]", PROFILE_SPAN_MODULE, FRAME_USER, &st[1]),
			 0);
	st[2] = ufr(p, "main", 0x401000);
	add(p, 10, 10, "app", st, 3, 5); /* [req GET /users];[db];main */
	st[1] = st[2];
	add(p, 10, 10, "app", st, 2, 7); /* [req GET /users];main */
	add(p, 10, 10, "app", &st[2], 1, 1);
	pb = roundtrip(p);
	assert_string_equal(label(pb, sample(pb, "main;[db];[req GET /users]"), "span"), "db");
	assert_null(label(pb, sample(pb, "main;[db];[req GET /users]"), "span_label"));
	assert_string_equal(label(pb, sample(pb, "main;[req GET /users]"), "span"), "req");
	assert_string_equal(label(pb, sample(pb, "main;[req GET /users]"), "span_label"),
			    "GET /users");
	assert_null(label(pb, sample(pb, "main"), "span"));
	pb_free(pb);
	profile__free(p);
}

/* The calls column holds the calls each path's time is made of. */
static void test_uprobe_calls(void **state)
{
	static const char *const want[] = { "calls/count", "wall/nanoseconds" };
	struct profile *p = new_profile(UNIT_NANOSECONDS, 0);
	uint32_t st[2] = { ufr(p, "outer", 0x1100), ufr(p, "inner", 0x1200) };
	struct stack_owner who = { .pid = 5, .tid = 5, .comm = "app", .tcomm = "app" };
	pb_profile *pb;

	(void)state;
	assert_int_equal(profile__add_stack_count(p, &who, st, 1, 2000000, 3), 0);
	assert_int_equal(profile__add_stack_count(p, &who, st, 2, 3000000, 1), 0);
	pb = roundtrip(p);
	expect_types(pb, want, 2, "wall");
	expect_values(sample(pb, "outer"), 3, 2000000, 2);
	expect_values(sample(pb, "inner;outer"), 1, 3000000, 2);
	pb_free(pb);
	profile__free(p);
}

/* One function per name and binary: the same name in two binaries is two. */
static void test_functions_by_binary(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES, 100);
	uint32_t a[1] = { ufr(p, "helper", 0x401000) };
	uint32_t b[1] = { frame_at(p, "helper", LIBC, 0x7f0000000100, FRAME_USER) };
	pb_profile *pb;

	(void)state;
	add(p, 1, 1, "app", a, 1, 1);
	add(p, 1, 1, "app", b, 1, 1);
	pb = roundtrip(p);
	assert_int_equal(pb->n_function, 2);
	assert_int_equal(pb->n_mapping, 2);
	assert_string_equal(str(pb, pb->function[0]->name), "helper");
	assert_string_equal(str(pb, pb->function[1]->name), "helper");
	assert_true(pb->function[0]->filename != pb->function[1]->filename);
	pb_free(pb);
	profile__free(p);
}

/* Frames with no binary (folded input) have no mapping; no name reads
 * "[unknown]"; a stack with no frames is a sample with no locations. */
static void test_frames_without_binary(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES, 0);
	uint32_t st[2];
	pb_profile *pb;

	(void)state;
	assert_int_equal(profile__findnew_frame(p, "main", "", FRAME_USER, &st[0]), 0);
	assert_int_equal(profile__findnew_frame(p, "", "", FRAME_USER, &st[1]), 0);
	add(p, 1, 1, "app", st, 2, 4);
	add(p, 1, 1, "app", st, 0, 2);
	pb = roundtrip(p);
	assert_int_equal(pb->n_mapping, 0);
	assert_int_equal(location(pb, 1)->mapping_id, 0);
	expect_values(sample(pb, "[unknown];main"), 4, 0, 1);
	expect_values(sample(pb, ""), 2, 0, 1);
	pb_free(pb);
	profile__free(p);
}

/* Go's protobuf rejects strings that are not UTF-8: bad bytes become U+FFFD. */
static void test_utf8(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES, 100);
	uint32_t st[1] = { ufr(p,
			       "bad\xff\xfe"
			       "name",
			       0x401000) };
	struct stack_owner who = { .pid = 1, .tid = 1, .comm = "c\xc3", .tcomm = "t\xc3\xa9" };
	pb_profile *pb;

	(void)state;
	assert_int_equal(profile__add_stack(p, &who, st, 1, 1), 0);
	pb = roundtrip(p);
	sample(pb, "bad\xef\xbf\xbd\xef\xbf\xbdname");
	assert_string_equal(label(pb, pb->sample[0], "comm"), "c\xef\xbf\xbd");
	assert_string_equal(label(pb, pb->sample[0], "thread"), "t\xc3\xa9");
	pb_free(pb);
	profile__free(p);
}

/* Each string once; the capture's description as comments. */
static void test_string_table(void **state)
{
	struct profile *p = sampled(100);
	pb_profile *pb = roundtrip(p);
	bool event = false;

	(void)state;
	for (size_t i = 0; i < pb->n_string_table; i++)
		for (size_t j = i + 1; j < pb->n_string_table; j++)
			if (!strcmp(pb->string_table[i], pb->string_table[j]))
				fail_msg("'%s' at %zu and %zu", pb->string_table[i], i, j);
	assert_int_equal(pb->n_comment, 3); /* no losses */
	for (size_t i = 0; i < pb->n_comment; i++)
		event |= !strcmp(str(pb, pb->comment[i]), "event: cpu-clock");
	assert_true(event);
	pb_free(pb);
	profile__free(p);
}

static void test_empty_profile(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES, 100);
	pb_profile *pb = roundtrip(p);

	(void)state;
	assert_int_equal(pb->n_sample, 0);
	assert_int_equal(pb->n_location, 0);
	assert_int_equal(pb->n_sample_type, 2);
	pb_free(pb);
	profile__free(p);
}

/* Larger than the writer's buffers: the gzip stream spans many chunks. */
static void test_large_profile(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES, 100);
	uint32_t st[2];
	char name[32];
	pb_profile *pb;

	(void)state;
	st[0] = ufr(p, "main", 0x400000);
	for (uint32_t i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "fn_%u", i);
		st[1] = ufr(p, name, 0x500000 + i * 16);
		add(p, 1, 1, "app", st, 2, i + 1);
	}
	pb = roundtrip(p);
	assert_int_equal(pb->n_sample, 20000);
	assert_int_equal(pb->n_function, 20001);
	assert_int_equal(pb->sample[19999]->location_id[0], 20001);
	assert_string_equal(str(pb, function(pb, 20001)->name), "fn_19999");
	expect_values(pb->sample[19999], 20000, 200000000000LL, 2);
	pb_free(pb);
	profile__free(p);
}

static void test_write_error(void **state)
{
	struct write_opts o = {};
	struct profile *p = sampled(100);
	FILE *f = fopen("/dev/null", "r");

	(void)state;
	assert_non_null(f);
	assert_int_equal(pprof__write(p, &o, f), -EIO);
	fclose(f);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampling_types),
		cmocka_unit_test(test_sampling_values),
		cmocka_unit_test(test_sampling_no_freq),
		cmocka_unit_test(test_locations_leaf_first),
		cmocka_unit_test(test_mappings),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_uprobe_wall),
		cmocka_unit_test(test_alloc_views),
		cmocka_unit_test(test_several_events),
		cmocka_unit_test(test_span_labels),
		cmocka_unit_test(test_uprobe_calls),
		cmocka_unit_test(test_functions_by_binary),
		cmocka_unit_test(test_frames_without_binary),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_string_table),
		cmocka_unit_test(test_empty_profile),
		cmocka_unit_test(test_large_profile),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests_name("out_pprof", tests, NULL, NULL);
}
