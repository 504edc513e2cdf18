// SPDX-License-Identifier: GPL-2.0
/*
 * USDT probes. -l 'usdt:BINARY:REGEX': the probes a binary declares, as
 * "BINARY:PROVIDER:NAME ARGS" lines: tests/fixtures/sdtfix.c's four,
 * Debian's libstdc++'s and python3.11's, a running process's (no BPF: ELF
 * notes). -f 'usdt:...': every hit counted by its stack, under a
 * [PROVIDER:NAME] leaf: usdt_work's known counts, its semaphore raised only
 * while its probe is traced, libstdc++'s throw and catch in throw_count;
 * the counts and the semaphore the same with classic uprobes (before 6.6).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

static void list(struct h_result *r, const char *spec)
{
	assert_int_equal(h_run(r, 30, H_ARGV(h_flamebpf(), "-l", spec)), 0);
}

static void test_fixture(void **state)
{
	char path[1024], spec[1200], want[5000];
	struct h_result r;

	(void)state;
	if (!realpath("build/tests/fixtures/sdtfix_pie", path))
		fail_msg("no fixture build/tests/fixtures/sdtfix_pie");
	snprintf(spec, sizeof(spec), "usdt:%s:", path);
	list(&r, spec);
	h_assert_status(&r, 0);
	snprintf(want, sizeof(want),
		 "%s:fix:noargs\n%s:fix:one -4@%%edi\n%s:fix:three -8@%%rdi -1@%%sil 8@%%rdx\n"
		 "%s:fix:guarded\n",
		 path, path, path, path);
	assert_string_equal(r.out, want);
	h_result_free(&r);
	snprintf(spec, sizeof(spec), "usdt:%s:^fix:t", path);
	list(&r, spec);
	h_assert_status(&r, 0);
	assert_int_equal(h_count_lines(r.out), 1);
	assert_non_null(strstr(r.out, ":fix:three "));
	h_result_free(&r);
}

static void test_libstdcxx(void **state)
{
	struct h_result r;

	(void)state;
	list(&r, "usdt:libstdc++:");
	h_assert_status(&r, 0);
	print_message("%s", r.out);
	assert_non_null(strstr(r.out, "libstdc++.so.6"));
	assert_non_null(strstr(r.out, ":libstdcxx:throw "));
	assert_non_null(strstr(r.out, ":libstdcxx:catch "));
	assert_non_null(strstr(r.out, ":libstdcxx:rethrow "));
	h_result_free(&r);
}

/* python3.11 as Debian builds it has its probes; -p lists those of every
 * binary the process maps. */
static void test_python_process(void **state)
{
	char pid[16];
	struct h_result r;
	struct h_proc p;

	(void)state;
	if (access("/usr/bin/python3.11", X_OK))
		skip();
	h_start_workload(&p, H_ARGV("/usr/bin/python3.11", "-c", "import time; time.sleep(30)"));
	h_sleep(0.3);
	snprintf(pid, sizeof(pid), "%d", p.pid);
	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "-l", "usdt::gc__", "-p", pid)), 0);
	h_stop(&p);
	h_assert_status(&r, 0);
	print_message("%s", r.out);
	assert_non_null(strstr(r.out, "/usr/bin/python3.11:python:gc__start "));
	assert_non_null(strstr(r.out, "/usr/bin/python3.11:python:gc__done "));
	assert_int_equal(h_count_lines(r.out), 2);
	h_result_free(&r);
}

/* python3.11's gc__start fires once a collection: a script that calls
 * gc.collect() 50 times prints how many collections its interpreter made
 * (gc.get_stats(), the automatic ones too) and leaves before finalizing
 * makes more; the hits are exactly that many. */
static void test_python_gc(void **state)
{
	static const char script[] =
		"import gc, os\n"
		"for _ in range(50): gc.collect()\n"
		"print(sum(s['collections'] for s in gc.get_stats()), flush=True)\n"
		"os._exit(0)\n";
	const char *out = h_path("gc.folded");
	unsigned long long made = 0;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	if (access("/usr/bin/python3.11", X_OK))
		skip();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "usdt:/usr/bin/python3.11:^python:gc__start$", "-o",
			    out, "--", "/usr/bin/python3.11", "-c", script));
	if (!r.out || sscanf(r.out, "%llu", &made) != 1)
		fail_msg("the script printed no count: %s", r.out ? r.out : "");
	print_message("gc__start: %llu hits, %llu collections\n", f.total, made);
	assert_true(made >= 50);
	assert_int_equal(f.total, made);
	h_result_free(&r);
	h_folded_free(&f);
}

static bool hit_under(const char *stack, const void *arg)
{
	const char *const *w = arg;
	const char *leaf = strrchr(stack, ';');

	return h_has_frame(stack, w[0]) && leaf && !strcmp(leaf + 1, w[1]);
}

/* usdt_work 1000: work:tick 1000 times in tick_a and 2000 in tick_b, and
 * work:guarded 1000 times, for its semaphore is raised while traced; by
 * uprobe_multi links or classic uprobes alike. */
static void expect_count(bool classic)
{
	static const char *const a[] = { "tick_a", "[work:tick]" },
				 *b[] = { "tick_b", "[work:tick]" },
				 *g[] = { "guarded", "[work:guarded]" };
	const char *out = h_path("usdt.folded");
	struct h_folded f;
	struct h_result r;

	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "usdt::^work:", "-o", out, "--",
			    h_workload("usdt_work"), "1000"));
	if (classic)
		h_expect_classic(&r);
	print_message("tick_a %llu, tick_b %llu, guarded %llu; %s", h_sum(&f, hit_under, a),
		      h_sum(&f, hit_under, b), h_sum(&f, hit_under, g), r.out);
	assert_int_equal(h_sum(&f, hit_under, a), 1000);
	assert_int_equal(h_sum(&f, hit_under, b), 2000);
	assert_int_equal(h_sum(&f, hit_under, g), 1000);
	assert_int_equal(f.total, 4000);
	assert_non_null(strstr(r.out, "guarded 1000"));
	/* work:tick in three places (tick_a, tick_b, the bench loop), work:guarded */
	assert_non_null(strstr(r.err, "4000 hits of 2 USDT probes"));
	assert_true(h_has_line(r.err, "flamebpf: lost: nothing"));
	h_result_free(&r);
	h_folded_free(&f);
}

H_UPROBE_TESTS(count)

/* The hits of a Chrome JSON trace: instant events named by the probe, with
 * the arguments their specs give: work:tick's arg0 is the loop's i (0 to
 * 999 in tick_a, 0 to 1999 in tick_b), guarded's arg1 how many it saw. */
static void check_hit_events(const char *json, size_t want_ticks, size_t want_guarded)
{
	static int seen[2000];
	json_object *doc, *evs;
	size_t ticks = 0, guarded = 0;
	uint64_t last_seen = 0;

	doc = json_object_from_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "traceEvents", &evs));
	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		json_object *e = json_object_array_get_idx(evs, i), *v, *args;
		const char *name;

		if (!json_object_object_get_ex(e, "ph", &v) ||
		    strcmp(json_object_get_string(v), "i"))
			continue;
		assert_true(json_object_object_get_ex(e, "name", &v));
		name = json_object_get_string(v);
		assert_true(json_object_object_get_ex(e, "args", &args));
		if (!strcmp(name, "[work:tick]")) {
			json_object_object_get_ex(args, "arg0", &v);
			assert_in_range(json_object_get_int64(v), 0, 1999);
			seen[json_object_get_int64(v)]++;
			ticks++;
		} else if (!strcmp(name, "[work:guarded]")) {
			json_object_object_get_ex(args, "arg1", &v);
			assert_true((uint64_t)json_object_get_int64(v) == last_seen + 1);
			last_seen++;
			guarded++;
		} else {
			fail_msg("an instant event of no probe: %s", name);
		}
	}
	print_message("%s: instant events: %zu ticks, %zu guarded\n", json, ticks, guarded);
	assert_int_equal(ticks, want_ticks);
	assert_int_equal(guarded, want_guarded);
	for (int i = 0; i < 2000 && want_ticks; i++)
		if (seen[i] != (i < 1000 ? 2 : 1))
			fail_msg("work:tick's arg0 %d seen %d times", i, seen[i]);
	json_object_put(doc);
}

/* The same hits in perf script (each its probe's event, its arguments
 * after it, arg1= first, as perf names an SDT event's fields) and in the
 * HTML page (events.hits): rendered back to Chrome JSON, they are the
 * same (from perf script, an event at a time, as its reader keeps one). */
static void test_hit_events(void **state)
{
	const char *json = h_path("hits.json"), *perf = h_path("hits.perf"),
		   *html = h_path("hits.html"), *again = h_path("again.json");
	struct h_result r;
	char *text;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-f", "usdt::^work:", "-o", json, "-o", perf,
				      "-o", html, "--", h_workload("usdt_work"), "1000")),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	check_hit_events(json, 3000, 1000);
	text = h_slurp(perf);
	assert_non_null(text);
	assert_non_null(strstr(text, " work:guarded: arg1=0 arg2=1 arg3=0\n"));
	assert_non_null(strstr(text, " work:guarded: arg1=999 arg2=1000 arg3=0\n"));
	free(text);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(h_run(&r, 60,
				       k == 2 ? H_ARGV(h_flamebpf(), "render", html, "-o", again)
					      : H_ARGV(h_flamebpf(), "render", perf, "--event",
						       k ? "work:guarded" : "work:tick", "-o", again)),
				 0);
		h_assert_status(&r, 0);
		h_result_free(&r);
		check_hit_events(again, k == 1 ? 0 : 3000, k == 0 ? 0 : 1000);
	}
}

/* The types: probes' hits in a Chrome JSON trace, each probe's args as
 * JSON text (json-c's), n of each. */
static void check_typed(const char *json, size_t n)
{
	static const char *const want[][2] = {
		{ "[types:small]", "{ \"arg0\": -5, \"arg1\": 250, \"arg2\": -300 }" },
		{ "[types:mid]", "{ \"arg0\": 65000, \"arg1\": -100000, \"arg2\": 4000000000 }" },
		{ "[types:big]",
		  "{ \"arg0\": -1099511627776, \"arg1\": \"0x8000000000000005\", \"arg2\": 42 }" },
		{ "[types:regs]", "{ \"arg0\": -100000, \"arg1\": 65000, \"arg2\": -5 }" },
	};
	size_t seen[5] = { 0 };
	json_object *doc = json_object_from_file(json), *evs;

	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "traceEvents", &evs));
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		json_object *e = json_object_array_get_idx(evs, i), *v, *args, *a;
		const char *name, *text;
		size_t k = 0;

		if (!json_object_object_get_ex(e, "ph", &v) ||
		    strcmp(json_object_get_string(v), "i"))
			continue;
		json_object_object_get_ex(e, "name", &v);
		name = json_object_get_string(v);
		assert_true(json_object_object_get_ex(e, "args", &args));
		text = json_object_to_json_string_ext(args, JSON_C_TO_STRING_SPACED);
		for (; k < 4 && strcmp(name, want[k][0]); k++)
			;
		if (k < 4 && strcmp(text, want[k][1]))
			fail_msg("%s: %s's args %s, not %s", json, name, text, want[k][1]);
		if (k == 4) {
			/* a string; a pointer to no text, and one to "": numbers */
			assert_string_equal(name, "[types:text]");
			json_object_object_get_ex(args, "arg0", &a);
			assert_string_equal(json_object_get_string(a), "GET /users");
			json_object_object_get_ex(args, "arg1", &a);
			assert_true(json_object_is_type(a, json_type_int) &&
				    json_object_get_int64(a) > 0x10000);
			json_object_object_get_ex(args, "arg2", &a);
			assert_true(json_object_is_type(a, json_type_int) &&
				    json_object_get_int64(a) > 0x10000);
		}
		seen[k]++;
	}
	for (size_t k = 0; k < 5; k++)
		assert_int_equal(seen[k], n);
	json_object_put(doc);
}

/* Arguments of every width and sign, in stack slots and registers, a
 * constant, a string and pointers (usdt_work types): as the program passed
 * them, in Chrome JSON, in perf script (types:text: arg1="GET /users"),
 * and from the HTML report and perf script rendered back. */
static void test_typed_args(void **state)
{
	const char *json = h_path("types.json"), *perf = h_path("types.perf"),
		   *html = h_path("types.html"), *again = h_path("types-again.json");
	struct h_result r;
	char *text;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-f", "usdt::^types:", "-o", json, "-o", perf,
				      "-o", html, "--", h_workload("usdt_work"), "types", "3")),
			 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	check_typed(json, 3);
	text = h_slurp(perf);
	assert_non_null(text);
	assert_non_null(strstr(text, " types:text: arg1=\"GET /users\" arg2="));
	assert_non_null(strstr(text, " types:small: arg1=-5 arg2=250 arg3=-300\n"));
	free(text);
	assert_int_equal(h_run(&r, 60, H_ARGV(h_flamebpf(), "render", html, "-o", again)), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	check_typed(again, 3);
}

/* Only work:tick traced: guarded's semaphore stays down, it never fires. */
static void expect_semaphore(bool classic)
{
	const char *out = h_path("tick.folded");
	struct h_folded f;
	struct h_result r;

	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "usdt::work:tick", "-o", out, "--",
			    h_workload("usdt_work"), "1000"));
	if (classic)
		h_expect_classic(&r);
	assert_int_equal(f.total, 3000);
	assert_non_null(strstr(r.out, "guarded 0"));
	h_result_free(&r);
	h_folded_free(&f);
}

H_UPROBE_TESTS(semaphore)

/* throw_count 200: libstdc++'s throw probe 200 times under thrower, its
 * catch probe 200 times under catcher. */
static void test_libstdcxx_throw(void **state)
{
	static const char *const t[] = { "thrower(int)", "[libstdcxx:throw]" },
				 *c[] = { "catcher(int)", "[libstdcxx:catch]" };
	const char *out = h_path("throw.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "usdt:libstdc++:throw|catch", "-o", out, "--",
			    h_workload("throw_count"), "200"));
	print_message("throw %llu under thrower, catch %llu under catcher (%llu in all)\n",
		      h_sum(&f, hit_under, t), h_sum(&f, hit_under, c), f.total);
	assert_int_equal(h_sum(&f, hit_under, t), 200);
	assert_int_equal(h_sum(&f, hit_under, c), 200);
	assert_int_equal(f.total, 400);
	assert_non_null(strstr(r.out, "caught 200"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* A command that never reaches the probes: one line that says so, exit 1,
 * no file. */
static void test_no_hits(void **state)
{
	const char *out = h_path("none.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(
		h_run(&r, 60,
		      H_ARGV(h_flamebpf(), "-f", "usdt:libstdc++:throw", "-o", out, "--", "true")),
		0);
	h_assert_status(&r, 1);
	assert_non_null(strstr(r.err, "no hits: the command never reached the USDT probes"));
	assert_false(h_exists(out));
	h_result_free(&r);
}

static void test_refused(void **state)
{
	static const struct {
		const char *args[5], *said;
	} cases[] = {
		{ { "-l", "usdt:/bin/true:" }, "no USDT probe in /usr/bin/true" },
		{ { "-l", "usdt:libstdc++:nope" }, "no USDT probe matches nope" },
		{ { "-l", "usdt:" }, "give the binary" },
		{ { "-l", "usdt:libstdc++:(" }, "invalid regular expression '('" },
		{ { "-l", "usdt:nosuchlib:" }, "no binary 'nosuchlib'" },
		{ { "-f", "usdt:libstdc++:nope", "--", "true" }, "no USDT probe matches" },
		{ { "-f", "usdt:libstdc++:throw", "-f", "main" }, "not both in one capture" },
		{ { "-f", "usdt:libstdc++:throw", "-F", "99" }, "counts every hit of the probes" },
	};

	(void)state;
	h_assert_all_refused(cases, NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_fixture, h_test_teardown),
		cmocka_unit_test_teardown(test_libstdcxx, h_test_teardown),
		cmocka_unit_test_teardown(test_python_process, h_test_teardown),
		cmocka_unit_test_teardown(test_count, h_test_teardown),
		cmocka_unit_test_teardown(test_count_classic, h_classic_teardown),
		cmocka_unit_test_teardown(test_hit_events, h_test_teardown),
		cmocka_unit_test_teardown(test_typed_args, h_test_teardown),
		cmocka_unit_test_teardown(test_python_gc, h_test_teardown),
		cmocka_unit_test_teardown(test_semaphore, h_test_teardown),
		cmocka_unit_test_teardown(test_semaphore_classic, h_classic_teardown),
		cmocka_unit_test_teardown(test_libstdcxx_throw, h_test_teardown),
		cmocka_unit_test_teardown(test_no_hits, h_test_teardown),
		cmocka_unit_test_teardown(test_refused, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("usdt", tests, h_group_setup, h_group_teardown);
}
