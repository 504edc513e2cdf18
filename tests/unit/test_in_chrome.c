// SPDX-License-Identifier: GPL-2.0
/* Unit tests of src/formats/in_chrome.c: chrome traces nested into call paths
 * weighed by self time, events kept for timelines, and JSON errors placed. */
#include "test_in.h"

#include "util/strbuf.h"

static const struct reader_opts tids = { .keep_ids = true, .ids_in_root = true };
static const struct reader_opts timeline = { .keep_ids = true, .keep_events = true };

static void test_data_file(void **state)
{
	(void)state;
	expect_data("chrome-nested.json", NULL, ROOT_COMM, "chrome-nested.folded");
	expect_data("chrome-nested.json", &tids, ROOT_TID, "chrome-nested-tids.folded");
}

static void test_bare_array(void **state)
{
	(void)state;
	expect_folded(
		"[{\"name\":\"f\",\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1},\n"
		" {\"name\":\"g\",\"ph\":\"X\",\"ts\":1.5,\"dur\":0.25,\"pid\":1,\"tid\":1}]\n",
		NULL, ROOT_COMM, "[unknown];f 1750\n[unknown];f;g 250\n");
}

static void test_model(void **state)
{
	const struct profile_event *e;
	const struct profile_stack *s;
	const struct profile_meta *m;
	char *text = data_text("chrome-nested.json");
	struct loaded l;

	(void)state;
	load(&l, text, &timeline);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.format, IN_CHROME);
	assert_int_equal(profile__unit(l.p), UNIT_NANOSECONDS);
	assert_int_equal(profile__nr_events(l.p), 7);
	assert_int_equal(l.st.ignored, 2); /* the instant and the counter */
	for (size_t i = 0; i < profile__nr_events(l.p); i++) {
		e = profile__event(l.p, i);
		s = profile__stack(l.p, e->stack);
		if (strcmp(profile__frame(l.p, s->frames[s->nframes - 1])->name, "lex"))
			continue;
		assert_int_equal(e->ts, 12000);
		assert_int_equal(e->dur, 8500);
		assert_int_equal(e->args[0], 0x10);
		assert_int_equal(e->ret, 3);
		assert_string_equal(s->who.comm, "server");
		assert_string_equal(profile__frame(l.p, s->frames[2])->module, "libparse.so");
	}
	m = profile__meta(l.p);
	assert_string_equal(m->cmdline, "flamebpf -f parse -- server");
	assert_string_equal(m->kernel, "6.1.0");
	assert_int_equal(m->ncpus, 2);
	assert_true(m->secs == 0.5);
	free(text);
	loaded_free(&l);
}

/* Names: the process's, else the thread's; a B without E ends with its thread. */
static void test_names_and_open_calls(void **state)
{
	struct loaded l;

	(void)state;
	expect_folded(
		"{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":3,\"tid\":4,"
		"\"args\":{\"name\":\"io\"}},"
		"{\"ph\":\"B\",\"name\":\"loop\",\"ts\":0,\"pid\":3,\"tid\":4},"
		"{\"ph\":\"X\",\"name\":\"poll\",\"ts\":1,\"dur\":4,\"pid\":3,\"tid\":4}]}",
		NULL, ROOT_COMM, "io;loop 1000\nio;loop;poll 4000\n");
	load(&l, "[{\"ph\":\"B\",\"name\":\"loop\",\"ts\":0,\"pid\":3,\"tid\":4}]", &timeline);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__event(l.p, 0)->flags, PROFILE_EVENT_UNFINISHED);
	loaded_free(&l);
}

/* --cpu-split's args: each call's self time split into state leaves, its
 * time off the CPU less its callees', the rest [running]; events keep it. */
static void test_cpu_split(void **state)
{
	const struct profile_split *sp;
	struct loaded l;
	static const char *const trace =
		"[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":1,"
		"\"args\":{\"name\":\"p\"}},"
		"{\"ph\":\"X\",\"name\":\"outer\",\"ts\":0,\"dur\":100,\"pid\":1,\"tid\":1,"
		"\"args\":{\"arg0\":0,\"ret\":0,\"on_cpu_ns\":25000,\"off_cpu_ns\":75000,"
		"\"sleeping_ns\":60000,\"disk_ns\":5000,\"preempted_ns\":10000}},"
		"{\"ph\":\"X\",\"name\":\"inner\",\"ts\":10,\"dur\":50,\"pid\":1,\"tid\":1,"
		"\"args\":{\"on_cpu_ns\":5000,\"off_cpu_ns\":45000,\"sleeping_ns\":40000,"
		"\"disk_ns\":5000}}]";

	(void)state;
	expect_folded(trace, NULL, ROOT_COMM,
		      "p;outer;[preempted] 10000\n"
		      "p;outer;[running] 20000\n"
		      "p;outer;[sleeping] 20000\n"
		      "p;outer;inner;[disk] 5000\n"
		      "p;outer;inner;[running] 5000\n"
		      "p;outer;inner;[sleeping] 40000\n");
	load(&l, trace, &timeline);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__nr_events(l.p), 2);
	sp = profile__event_split(l.p, profile__event(l.p, 1));
	assert_non_null(sp);
	assert_int_equal(sp->off_ns[PROFILE_OFF_DISK], 5000);
	assert_int_equal(sp->off_ns[PROFILE_OFF_SLEEPING], 40000);
	loaded_free(&l);
}

/* A sampling capture's spans ("mode":"sample") are weighed in samples, as
 * its folded output is: args.samples under a span, less its children's,
 * ended in it. As time, main would have had the gap between two runs of
 * burn and a span without samples a weight. */
static void test_sample_mode(void **state)
{
	struct loaded l;
	static const char *const trace =
		"{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,"
		"\"tid\":1,\"args\":{\"name\":\"p\"}},"
		"{\"ph\":\"X\",\"name\":\"main\",\"ts\":0,\"dur\":70000,\"pid\":1,\"tid\":1,"
		"\"args\":{\"samples\":7}},"
		"{\"ph\":\"X\",\"name\":\"burn\",\"ts\":0,\"dur\":20000,\"pid\":1,\"tid\":1,"
		"\"args\":{\"samples\":2}},"
		"{\"ph\":\"X\",\"name\":\"burn\",\"ts\":40000,\"dur\":30000,\"pid\":1,"
		"\"tid\":1,\"args\":{\"samples\":3}}],"
		"\"otherData\":{\"mode\":\"sample\",\"frequency\":99}}";

	(void)state;
	expect_folded(trace, NULL, ROOT_COMM, "p;main 2\np;main;burn 5\n");
	load(&l, trace, &timeline);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__unit(l.p), UNIT_SAMPLES);
	assert_int_equal(profile__total_weight(l.p), 7);
	assert_int_equal(profile__nr_events(l.p), 7); /* a sample each */
	loaded_free(&l);
}

/* Samples that weigh themselves (--weight, --alloc) carry args.weight: the
 * span's, its children's included, as args.samples. */
static void test_sample_weights(void **state)
{
	uint64_t events = 0;
	struct loaded l;
	static const char *const trace =
		"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"main\",\"ts\":0,\"dur\":3,"
		"\"pid\":1,\"tid\":1,\"args\":{\"samples\":3,\"weight\":12288}},"
		"{\"ph\":\"X\",\"name\":\"write\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1,"
		"\"args\":{\"samples\":2,\"weight\":8192}}],"
		"\"otherData\":{\"mode\":\"sample\"}}";

	(void)state;
	expect_folded(trace, NULL, ROOT_COMM, "[unknown];main 4096\n[unknown];main;write 8192\n");
	load(&l, trace, &timeline);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__nr_events(l.p), 3);
	for (size_t i = 0; i < profile__nr_events(l.p); i++)
		events += profile__event(l.p, i)->weight;
	assert_int_equal(events, 12288);
	loaded_free(&l);
}

/* Calls that do not nest are clipped to their parent; an E alone is dropped. */
/* Brackets and escaped quotes inside strings; members before and after the
 * events; an array of events spread over many chunks of input. */
static void test_structure(void **state)
{
	struct strbuf b = { 0 };
	struct loaded l;

	(void)state;
	expect_folded(
		"{\"meta\":{\"x\":[1,{\"y\":\"]}\"}]},\"traceEvents\":[\n"
		"{\"name\":\"a]}\\\"[{\",\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}\n"
		"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"event\":\"e\"}}",
		NULL, ROOT_COMM, "[unknown];a]}\"[{ 2000\n");
	assert_int_equal(strbuf__add(&b, "[", 1), 0);
	for (int i = 0; i < 20000; i++)
		assert_int_equal(strbuf__addf(&b,
					      "%s{\"name\":\"f%d\",\"ph\":\"X\",\"ts\":%d,"
					      "\"dur\":1,\"pid\":1,\"tid\":%d,\"args\":{\"pad\":"
					      "\"....................................\"}}\n",
					      i ? "," : "", i % 10, i, i % 3),
				 0);
	assert_int_equal(strbuf__add(&b, "]", 1), 0);
	load(&l, b.s, NULL);
	assert_int_equal(l.ret, 0);
	assert_int_equal(profile__nr_stacks(l.p), 10);
	assert_int_equal(profile__total_weight(l.p), 20000000);
	loaded_free(&l);
	strbuf__free(&b);
}

static void test_bad_nesting(void **state)
{
	struct loaded l;

	(void)state;
	load(&l,
	     "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":10,\"pid\":1,\"tid\":1},"
	     "{\"ph\":\"X\",\"name\":\"b\",\"ts\":5,\"dur\":10,\"pid\":1,\"tid\":1},"
	     "{\"ph\":\"E\",\"ts\":20,\"pid\":1,\"tid\":1}]",
	     NULL);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.st.unmatched, 2);
	assert_int_equal(profile__total_weight(l.p), 10000);
	loaded_free(&l);
}

static void test_errors(void **state)
{
	char *text = data_text("chrome-nested.json");

	(void)state;
	/* cut short: the line the JSON stops at */
	text[strlen(text) / 2] = '\0';
	expect_error(text, NULL, -EINVAL, "line 8: the JSON ends early (truncated?)");
	free(text);
	expect_error("{\"traceEvents\":[\n{\"ph\":\"X\",,}]}", NULL, -EINVAL, "line 2: ");
	expect_error("[]\n]", NULL, -EINVAL, "line 2: more data after the JSON document");
	expect_error("{\"events\":[]}", NULL, -EINVAL, "no \"traceEvents\"");
	expect_error("{\"traceEvents\":{}}", NULL, -EINVAL, "\"traceEvents\" is not an array");
	expect_error("{\"traceEvents\":[1]}", NULL, -EINVAL, "traceEvents[0] is not an object");
	expect_error("[{\"ph\":\"X\",\"ts\":1,\"dur\":1},{\"name\":\"x\"}]", NULL, -EINVAL,
		     "traceEvents[1]: \"ph\" is not a string");
	expect_error("[{\"ph\":\"X\",\"ts\":\"1\",\"dur\":1}]", NULL, -EINVAL,
		     "traceEvents[0]: \"ts\" is not a time in microseconds");
	expect_error("[{\"ph\":\"X\",\"ts\":1,\"dur\":-1}]", NULL, -EINVAL,
		     "traceEvents[0]: \"dur\" is not a time");
	expect_error("[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":\"main\"}]", NULL, -EINVAL,
		     "traceEvents[0]: \"pid\" is not a number");
	/* no integer to convert to (found by fuzz_in_chrome) */
	expect_error("[{\"ph\":\"M\",\"pid\":109e150}]", NULL, -EINVAL,
		     "traceEvents[0]: \"pid\" is not a number that fits 64 bits");
	expect_error("[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"tid\":-1e19}]", NULL, -EINVAL,
		     "traceEvents[0]: \"tid\" is not a number that fits 64 bits");
	expect_error("[\n{\"ph\":\"X\",\"ts\":1,\"dur\":1},\n{\"ph\":\"X\",\"ts\":true}]", NULL,
		     -EINVAL, "line 3: traceEvents[1]: \"ts\" is not a time");
	/* the structure around the events */
	expect_error("[{\"ph\":\"i\"},]", NULL, -EINVAL,
		     "line 1: a comma before the end of the array");
	expect_error("{\"traceEvents\":[,{}]}", NULL, -EINVAL,
		     "line 1: an empty element in the array");
	expect_error("[{\"ph\":\"i\"}\n,,{}]", NULL, -EINVAL,
		     "line 2: an empty element in the array");
	expect_error("{\"traceEvents\":[],\"otherData\":}", NULL, -EINVAL,
		     "a value expected after a member name");
	expect_error("{\"traceEvents\" []}", NULL, -EINVAL, "a ':' expected");
	expect_error("{\"traceEvents\":[{\"ph\":\"i\"}}]}", NULL, -EINVAL,
		     "a closing bracket that closes nothing");
	expect_error("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1}],\"otherData\":{\"a\":}}",
		     NULL, -EINVAL, "line 1: ");
	expect_error("{\"traceEvents\":[],\n\n\"otherData\":{\"x\":1}", NULL, -EINVAL,
		     "line 3: the JSON ends early");
	expect_error("[{\"name\":\"a]b\",\"ph\":\"X\",\"ts\":1,\"dur\":1}\n", NULL, -EINVAL,
		     "line 2: the JSON ends early");
	expect_error("[]", NULL, -ENODATA, "no stacks");
	expect_error("{\"traceEvents\":[{\"ph\":\"i\",\"ts\":1}]}", NULL, -ENODATA, "no stacks");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_file),
		cmocka_unit_test(test_bare_array),
		cmocka_unit_test(test_cpu_split),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_sample_mode),
		cmocka_unit_test(test_sample_weights),
		cmocka_unit_test(test_names_and_open_calls),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_bad_nesting),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests_name("in_chrome", tests, NULL, NULL);
}
