/* Unit tests of src/profile/heatmap.c: samples counted in their cell, calls
 * where they begin, time off the CPU spread over the cells it crosses
 * (a --wall sample over the period before it);
 * column 0 at the capture's start when known; the bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "profile/heatmap.h"

#define S  1000000000ULL
#define MS 1000000ULL

static struct profile *with_events(enum profile_unit unit, const char *event, uint64_t start,
				   const uint64_t (*ev)[2], size_t n)
{
	struct profile *p = profile__new(unit);
	struct stack_owner who = { .pid = 1, .tid = 1, .comm = "c", .tcomm = "c" };
	struct profile_meta m = { .cmdline = "", .event = event, .kernel = "", .losses = "" };
	uint32_t f;

	assert_non_null(p);
	m.start_ns = start;
	assert_int_equal(profile__set_meta(p, &m), 0);
	assert_int_equal(profile__findnew_frame(p, "f", "m", FRAME_USER, &f), 0);
	for (size_t i = 0; i < n; i++) {
		struct profile_event e = { .ts = ev[i][0], .dur = ev[i][1] };

		assert_int_equal(profile__add_event(p, &who, &f, 1, &e), 0);
	}
	return p;
}

static uint64_t cell(const struct heatmap *h, uint32_t col, uint32_t row)
{
	assert_true(col < h->ncols && row < h->nrows);
	return h->cells[(size_t)col * h->nrows + row];
}

static void test_samples(void **state)
{
	static const uint64_t ev[][2] = {
		{ 100 * S, MS },
		{ 100 * S + 5 * MS, MS },
		{ 101 * S + 990 * MS, MS },
		{ 102 * S, MS },
	};
	struct profile *p = with_events(UNIT_SAMPLES, "cpu-clock", 0, ev, 4);
	struct heatmap h;

	(void)state;
	assert_int_equal(heatmap__build(p, 50, &h), 0);
	assert_int_equal(h.what, HEAT_SAMPLES);
	assert_int_equal(h.t0, 100 * S);
	assert_int_equal(h.ncols, 3);
	assert_int_equal(cell(&h, 0, 0), 2);
	assert_int_equal(cell(&h, 1, 49), 1);
	assert_int_equal(cell(&h, 2, 0), 1);
	assert_int_equal(h.max, 2);
	heatmap__free(&h);
	profile__free(p);
}

/* The capture began 1.5 s before its first sample: that is column 1. */
static void test_start(void **state)
{
	static const uint64_t ev[][2] = { { 11 * S + 500 * MS, MS } };
	struct profile *p = with_events(UNIT_SAMPLES, "cpu-clock", 10 * S, ev, 1);
	struct heatmap h;

	(void)state;
	assert_int_equal(heatmap__build(p, 10, &h), 0);
	assert_int_equal(h.t0, 10 * S);
	assert_int_equal(h.ncols, 2);
	assert_int_equal(cell(&h, 1, 5), 1);
	heatmap__free(&h);
	profile__free(p);
}

/* A block from 0.95 s to 1.15 s: 50 ms in the last 100 ms cell of column
 * 0, 100 ms in the first of column 1, 50 in the next. */
static void test_spread(void **state)
{
	static const uint64_t ev[][2] = { { 0, MS }, { 950 * MS, 200 * MS } };
	struct profile *p = with_events(UNIT_NANOSECONDS, "sched_switch", 0, ev, 2);
	struct heatmap h;

	(void)state;
	assert_int_equal(heatmap__build(p, 10, &h), 0);
	assert_int_equal(h.what, HEAT_NS);
	assert_int_equal(h.ncols, 2);
	assert_int_equal(cell(&h, 0, 0), MS);
	assert_int_equal(cell(&h, 0, 9), 50 * MS);
	assert_int_equal(cell(&h, 1, 0), 100 * MS);
	assert_int_equal(cell(&h, 1, 1), 50 * MS);
	assert_int_equal(h.max, 100 * MS);
	heatmap__free(&h);
	profile__free(p);
}

/* --wall: a sample is the period before it was taken. One taken at
 * 100 ms stands for 0-100 ms; one at 1.005 s for 995 ms to 1.005 s, half
 * in each column. */
static void test_wall_samples(void **state)
{
	static const uint64_t ev[][2] = { { 100 * MS, 100 * MS }, { 1005 * MS, 10 * MS } };
	struct profile *p = with_events(UNIT_NANOSECONDS, PROFILE_EVENT_WALL, 0, ev, 2);
	struct heatmap h;

	(void)state;
	assert_int_equal(heatmap__build(p, 10, &h), 0);
	assert_int_equal(h.what, HEAT_NS);
	assert_int_equal(h.t0, 0);
	assert_int_equal(h.ncols, 2);
	assert_int_equal(cell(&h, 0, 0), 100 * MS);
	assert_int_equal(cell(&h, 0, 9), 5 * MS);
	assert_int_equal(cell(&h, 1, 0), 5 * MS);
	heatmap__free(&h);
	profile__free(p);
}

/* Traced calls count where they begin, however long. */
static void test_calls(void **state)
{
	static const uint64_t ev[][2] = { { 0, 3 * S }, { 10 * MS, MS } };
	struct profile *p = with_events(UNIT_NANOSECONDS, "", 0, ev, 2);
	struct heatmap h;

	(void)state;
	assert_int_equal(heatmap__build(p, 50, &h), 0);
	assert_int_equal(h.what, HEAT_CALLS);
	assert_int_equal(h.ncols, 1);
	assert_int_equal(cell(&h, 0, 0), 2);
	heatmap__free(&h);
	profile__free(p);
}

/* --alloc: a cell holds the bytes allocated in it. */
static void test_bytes(void **state)
{
	static const uint64_t ev[][2] = {
		{ 10 * S, 100 }, { 10 * S + 1, 200 }, { 11 * S, 300 }, { 11 * S, 1ULL << 40 }
	};
	struct profile *p = with_events(UNIT_SAMPLES, "bytes allocated", 0, NULL, 0);
	struct profile_meta m = *profile__meta(p);
	struct stack_owner who = { .pid = 1, .tid = 1, .comm = "c", .tcomm = "c" };
	struct heatmap h;
	uint32_t f = 0;

	(void)state;
	m.alloc = PROFILE_ALLOC_TOTAL;
	assert_int_equal(profile__set_meta(p, &m), 0);
	for (size_t i = 0; i < 4; i++) {
		struct profile_event e = { .ts = ev[i][0], .dur = 1000, .weight = ev[i][1] };

		assert_int_equal(profile__add_event(p, &who, &f, 1, &e), 0);
	}
	assert_int_equal(heatmap__build(p, 10, &h), 0);
	assert_int_equal(h.what, HEAT_BYTES);
	assert_int_equal(cell(&h, 0, 0), 300);
	assert_int_equal(cell(&h, 1, 0), 300 + (1ULL << 40));
	heatmap__free(&h);
	profile__free(p);
}

/* A counted event: a cell holds the events (a tracepoint's values) its
 * samples stand for: their own weight, else the capture's period. */
static void test_counted(void **state)
{
	static const uint64_t ev[][2] = { { 10 * S, 4096 }, { 10 * S + 1, 4096 }, { 11 * S, 0 } };
	struct profile *p = with_events(UNIT_SAMPLES, "syscalls:sys_enter_write:count", 0, NULL, 0);
	struct profile_meta m = *profile__meta(p);
	struct stack_owner who = { .pid = 1, .tid = 1, .comm = "c", .tcomm = "c" };
	struct heatmap h;
	uint32_t f = 0;

	(void)state;
	m.period = 10;
	assert_int_equal(profile__set_meta(p, &m), 0);
	for (size_t i = 0; i < 3; i++) {
		struct profile_event e = { .ts = ev[i][0], .dur = 1000, .weight = ev[i][1] };

		assert_int_equal(profile__add_event(p, &who, &f, 1, &e), 0);
	}
	assert_int_equal(heatmap__build(p, 10, &h), 0);
	assert_int_equal(h.what, HEAT_COUNTED);
	assert_string_equal(h.counted, "syscalls:sys_enter_write:count");
	assert_int_equal(cell(&h, 0, 0), 8192);
	assert_int_equal(cell(&h, 1, 0), 10);
	heatmap__free(&h);
	profile__free(p);
}

static void test_bounds(void **state)
{
	static const uint64_t ev[][2] = { { 0, MS }, { 2 * 86400 * S, MS } };
	struct profile *p = with_events(UNIT_SAMPLES, "cpu-clock", 0, ev, 2);
	struct profile *none = with_events(UNIT_SAMPLES, "cpu-clock", 0, ev, 0);
	struct heatmap h;

	(void)state;
	assert_int_equal(heatmap__build(p, 50, &h), -E2BIG);
	heatmap__free(&h);
	assert_int_equal(heatmap__build(none, 50, &h), -ENODATA);
	heatmap__free(&h);
	assert_int_equal(heatmap__build(p, 0, &h), -EINVAL);
	heatmap__free(&h);
	assert_int_equal(heatmap__build(p, HEATMAP_MAX_ROWS + 1, &h), -EINVAL);
	heatmap__free(&h);
	profile__free(p);
	profile__free(none);
}

/* A hostile file's times at the end of the clock: its ts + dur (or ts + 1)
 * must not wrap to a short span and let an event's cell fall past the map. */
static void test_wrap(void **state)
{
	static const uint64_t ev[][2] = { { 0, 1 }, { UINT64_MAX - 10, 100 } };
	static const uint64_t last[][2] = { { 0, MS }, { UINT64_MAX, MS } };
	static const uint64_t alone[][2] = { { UINT64_MAX - 10, 100 } };
	struct profile *off = with_events(UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 0, ev, 2);
	struct profile *smp = with_events(UNIT_SAMPLES, "cpu-clock", 0, last, 2);
	struct profile *one = with_events(UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 0, alone, 1);
	struct heatmap h;

	(void)state;
	assert_int_equal(heatmap__build(off, 50, &h), -E2BIG);
	heatmap__free(&h);
	assert_int_equal(heatmap__build(smp, 50, &h), -E2BIG);
	heatmap__free(&h);
	/* alone, it is 10 ns to the clock's end: what is past it is cut */
	assert_int_equal(heatmap__build(one, 10, &h), 0);
	assert_int_equal(h.ncols, 1);
	assert_int_equal(h.max, 10);
	heatmap__free(&h);
	profile__free(off);
	profile__free(smp);
	profile__free(one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples), cmocka_unit_test(test_start),
		cmocka_unit_test(test_spread),	cmocka_unit_test(test_calls),
		cmocka_unit_test(test_bounds),	cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_bytes),	cmocka_unit_test(test_counted),
		cmocka_unit_test(test_wall_samples),
	};

	return cmocka_run_group_tests_name("heatmap", tests, NULL, NULL);
}
