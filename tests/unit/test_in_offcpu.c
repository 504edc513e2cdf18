// SPDX-License-Identifier: GPL-2.0
/* Unit tests of how the readers tell a capture of time off the CPU
 * (--off-cpu) or of wall time (--wall) from samples and calls, on small
 * handwritten inputs: folded stacks holding state frames (in_folded.c),
 * perf script with offcpu-time records (in_perf.c), chrome traces of
 * mode off-cpu or with spans named as states (in_chrome.c). */
#include "test_in.h"

#include "profile/profile.h"

static const char *event_of(const struct loaded *l)
{
	return profile__meta(l->p)->event;
}

/* TEXT reads as UNIT, its event WANT ("" for none), its total weight and
 * count as given. */
static void expect_kind(const char *text, const struct reader_opts *o, enum profile_unit unit,
			const char *want, uint64_t weight, uint64_t count)
{
	struct loaded l;

	load(&l, text, o);
	assert_int_equal(l.ret, 0);
	if (profile__unit(l.p) != unit || strcmp(event_of(&l), want))
		fail_msg("'%.200s' read as unit %d, event '%s': expected %d, '%s'", text,
			 profile__unit(l.p), event_of(&l), unit, want);
	assert_int_equal(profile__total_weight(l.p), weight);
	assert_int_equal(profile__total_count(l.p), count);
	loaded_free(&l);
}

/* ---- folded ---- */

static void test_folded(void **state)
{
	(void)state;
	/* --off-cpu: the state at the leaf; time in ns, blocks not known */
	expect_kind("app;main;wait;schedule_[k];[sleeping] 20000000\n"
		    "app;main;io;[disk] 5000000\n",
		    NULL, UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 25000000, 0);
	/* --state-root */
	expect_kind("app;[preempted];main;spin 300\napp;[sleeping];main;wait 700\n", NULL,
		    UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 1000, 0);
	/* --wakers: the state before the waker's "--" */
	expect_kind("app;main;wait;[sleeping];--;wake_up_[k];write;helper;app 60\n", NULL,
		    UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 60, 0);
	/* --wall: samples without a state beside blocks, or [running] */
	expect_kind("app;main;compute 1001001\napp;main;wait;[sleeping] 20000000\n", NULL,
		    UNIT_NANOSECONDS, PROFILE_EVENT_WALL, 21001001, 0);
	expect_kind("app;[running];main;compute 1001001\napp;[sleeping];main;wait 20000000\n", NULL,
		    UNIT_NANOSECONDS, PROFILE_EVENT_WALL, 21001001, 0);
}

/* Another tool's folded file stays samples: no state frame, or one only
 * where no capture puts it (between two functions, or a kernel frame). */
static void test_folded_samples(void **state)
{
	(void)state;
	expect_kind("app;main;a 5\napp;main;b 7\n", NULL, UNIT_SAMPLES, "", 12, 12);
	expect_kind("app;main;[sleeping];b 5\n", NULL, UNIT_SAMPLES, "", 5, 5);
	expect_kind("app;main;[sleeping]_[k] 5\n", NULL, UNIT_SAMPLES, "", 5, 5);
	expect_kind("app;main;[unknown] 5\napp;[running] 1\n", NULL, UNIT_NANOSECONDS,
		    PROFILE_EVENT_WALL, 6, 0);
}

/* ---- perf script ---- */

#define OFF(tid, ts, ns, leaf)                                                                     \
	"app 10/" #tid " [000] " ts ": " #ns " offcpu-time: \n"                                    \
	"\t0 " leaf "+0x0 ([unknown])\n"                                                           \
	"\tffffffff81000000 schedule+0x23 ([kernel.kallsyms])\n"                                   \
	"\t401000 wait+0x4 (/usr/bin/app)\n"                                                       \
	"\t401100 main+0x8 (/usr/bin/app)\n\n"
#define CLOCK(ts)                                                                                  \
	"app 10/10 [001] " ts ": 1001001 cpu-clock: \n"                                            \
	"\t401200 compute+0x4 (/usr/bin/app)\n"                                                    \
	"\t401100 main+0x8 (/usr/bin/app)\n\n"

static const char offcpu_perf[] = OFF(10, "1.000100", 20000000, "[sleeping]")
	OFF(10, "1.030000", 60000000, "[sleeping]") OFF(11, "1.040000", 15000, "[preempted]");

/* perf record --off-cpu's layout, without state frames */
static const char perf_offcpu[] = "app 10/10 [000] 1.000100: 3000 offcpu-time: \n"
				  "\t401000 wait+0x4 (/usr/bin/app)\n\n";

static const char wall_perf[] = CLOCK("1.000000") OFF(10, "1.000100", 20000000, "[sleeping]")
	CLOCK("1.021000") CLOCK("1.022000");

static void test_perf(void **state)
{
	struct reader_opts period = { .period = true }, only = { .event = "offcpu-time" };

	(void)state;
	/* every record weighs its period, with or without --period; one block each */
	expect_kind(offcpu_perf, NULL, UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 80015000, 3);
	expect_kind(offcpu_perf, &period, UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 80015000, 3);
	expect_folded(offcpu_perf, NULL, ROOT_COMM,
		      "app;main;wait;schedule_[k];[preempted] 15000\n"
		      "app;main;wait;schedule_[k];[sleeping] 80000000\n");
	expect_kind(perf_offcpu, NULL, UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 3000, 1);
	/* the samples before the first block count too, each its period */
	expect_kind(wall_perf, NULL, UNIT_NANOSECONDS, PROFILE_EVENT_WALL, 23003003, 4);
	/* --event picks one: the blocks alone */
	expect_kind(wall_perf, &only, UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 20000000, 1);
	/* samples alone stay samples */
	expect_kind(CLOCK("1.000000") CLOCK("1.001000"), NULL, UNIT_SAMPLES, "cpu-clock", 2, 2);
}

/* Kept events: one per record, lasting its period; diff reads them
 * without a time too. */
static void test_perf_events(void **state)
{
	struct reader_opts o = { .keep_events = true, .untimed_events = true };
	struct loaded l;

	(void)state;
	load(&l, wall_perf, &o);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__nr_events(l.p), 4);
	for (size_t i = 0; i < 4; i++) {
		uint64_t dur = profile__event(l.p, i)->dur;

		assert_true(dur == 1001001 || dur == 20000000);
	}
	loaded_free(&l);
	load(&l, "app 10/10 1001001 cpu-clock: \n\t401200 compute+0x4 (/usr/bin/app)\n\n", &o);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__nr_events(l.p), 1);
	loaded_free(&l);
}

/* Read as two halves at once (split_min 1), the same as whole: a half
 * with offcpu-time records and one without (its event unreadable) are not
 * joined (the input libFuzzer found, kept as a seed). */
static void test_perf_halves(void **state)
{
	FILE *f = fopen(u_repo_file("tests/fuzz/corpus/in_perf", "regress-offcpu-halves"), "r");
	struct reader_opts halves = { .split_min = 1 };
	const char *inputs[3] = { wall_perf, offcpu_perf, NULL };
	struct loaded whole, split;
	char odd[4096];
	size_t n;

	(void)state;
	assert_non_null(f);
	n = fread(odd, 1, sizeof(odd) - 1, f);
	fclose(f);
	odd[n] = '\0';
	inputs[2] = odd;
	for (size_t i = 0; i < 3; i++) {
		load(&whole, inputs[i], NULL);
		load(&split, inputs[i], &halves);
		assert_int_equal(whole.ret, 0);
		assert_int_equal(split.ret, 0);
		assert_int_equal(profile__total_weight(split.p), profile__total_weight(whole.p));
		assert_int_equal(profile__unit(split.p), profile__unit(whole.p));
		loaded_free(&whole);
		loaded_free(&split);
	}
}

/* ---- chrome ---- */

#define SPAN(name, ts, dur, samples)                                                               \
	"{\"name\":\"" name "\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":" ts ",\"dur\":" dur       \
	",\"args\":{\"samples\":" samples "}}"

/* main holds two blocks of wait and three samples of its own. */
static const char offcpu_chrome[] = "{\"traceEvents\":[" SPAN("main", "0", "100", "5") "," SPAN(
	"wait", "0", "60", "2") "," SPAN("[sleeping]", "0", "20",
					 "1") "," SPAN("[sleeping]", "30", "30",
						       "1") "],"
							    "\"otherData\":{\"mode\":"
							    "\"off-cpu\",\"event\":"
							    "\"sched_switch\"}}";

static void test_chrome(void **state)
{
	struct reader_opts o = { .keep_events = true };
	struct loaded l;

	(void)state;
	/* 100 us: the blocks' 50 and main's own 40 (wait's gap of 10 is its own) */
	expect_kind(offcpu_chrome, NULL, UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 100000, 5);
	load(&l, offcpu_chrome, &o);
	assert_int_equal(l.ret, 0);
	/* an event per block and sample: main's three share its 40 us of its own */
	assert_int_equal(profile__nr_events(l.p), 5);
	loaded_free(&l);
	/* a hostile count: all counted, no more events than microseconds */
	load(&l, "[" SPAN("[sleeping]", "0", "10", "4000000000") "]", &o);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__total_count(l.p), 4000000000ULL);
	assert_int_equal(profile__nr_events(l.p), 10);
	loaded_free(&l);
	/* no otherData: spans named as states */
	expect_kind("[" SPAN("main", "0", "10", "1") "," SPAN("[disk]", "0", "10", "1") "]", NULL,
		    UNIT_NANOSECONDS, PROFILE_EVENT_OFFCPU, 10000, 1);
	expect_kind("[" SPAN("[running]", "0", "10", "1") "," SPAN("main", "0", "10", "1") "]",
		    NULL, UNIT_NANOSECONDS, PROFILE_EVENT_WALL, 10000, 1);
	/* a trace of calls stays one, even with a function so named */
	expect_kind("{\"traceEvents\":[" SPAN("[sleeping]", "0", "10",
					      "1") "],"
						   "\"otherData\":{\"mode\":\"trace\"}}",
		    NULL, UNIT_NANOSECONDS, "", 10000, 1);
	expect_kind("[{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":2}]", NULL,
		    UNIT_NANOSECONDS, "", 2000, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded),	    cmocka_unit_test(test_folded_samples),
		cmocka_unit_test(test_perf),	    cmocka_unit_test(test_perf_events),
		cmocka_unit_test(test_perf_halves), cmocka_unit_test(test_chrome),
	};

	return cmocka_run_group_tests_name("in_offcpu", tests, NULL, NULL);
}
