// SPDX-License-Identifier: GPL-2.0
/*
 * --span: tests/workloads/spans marks its requests with include/flamebpf.h
 * (GET /users: 30 ms in json_encode; POST /orders: 10 ms in save, then a
 * db span labelled 7 around 10 ms in query) and prints how long each took.
 * Sampled, every sample of a request's work sits under its span's frame,
 * in the shares the work has; alone, the spans' own time is what the
 * workload measured, nested as traced calls are, a Chrome event each; the
 * same by classic uprobes (kernels before 6.6).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NROUNDS "20"
#define PERIOD_999 (1e9 / 999) /* ns */

static char req[512], db[512];

/* The two --span arguments for the workload's binary. */
static void span_args(void)
{
	const char *w = h_workload("spans");

	snprintf(req, sizeof(req), "req=usdt:%s:flamebpf:req_begin(arg0),usdt:%s:flamebpf:req_end",
		 w, w);
	snprintf(db, sizeof(db), "db=usdt:%s:flamebpf:db_begin(arg0:int),usdt:%s:flamebpf:db_end",
		 w, w);
}

static bool under(const char *stack, const void *arg)
{
	return h_has_seq(stack, arg);
}

/* Whether stack's frames after its root begin with prefix. */
static bool rooted(const char *stack, const void *prefix)
{
	const char *semi = strchr(stack, ';');

	return semi && !strncmp(semi + 1, prefix, strlen(prefix));
}

/* pprof: each sample's innermost span as the labels span and span_label,
 * as go tool pprof reads them. */
static void expect_pprof_labels(const char *pb)
{
	static const char *const want[] = { " span: Total",    "): req\n",
					    "): db\n",	       " span_label: Total",
					    "): GET /users\n", "): POST /orders\n",
					    "): 7\n" };
	char *text;

	h_require_go();
	text = h_pprof_tags(pb);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(text, want[i]))
			fail_msg("no '%s' in go tool pprof -tags:\n%s", want[i], text);
	free(text);
}

/* A sample in the trap of a probe of the GET span's, in get_users. */
static bool in_get_trap(const char *stack, const void *arg)
{
	(void)arg;
	return strstr(stack, "[req GET /users];") && strstr(stack, ";get_users;asm_exc_int3_[k];");
}

/* Every sample of json_encode under [req GET /users], of save under [req
 * POST /orders] alone, of query under it and [db 7]; the shares those of
 * the work, 30 : 10 : 10 ms a round. */
static void test_samples_under_spans(void **state)
{
	const char *out = h_path("spans.folded"), *pb = h_path("spans.pb.gz");
	unsigned long long get, post, dbs, all;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	span_args();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-F", "999", "--span", req, "--span", db, "-o", out, "-o",
			    pb, "--", h_workload("spans"), NROUNDS));
	assert_non_null(strstr(r.err, "60 spans begun (2 --span), 0 ends of no open span"));
	get = h_sum(&f, rooted, "[req GET /users];");
	post = h_sum(&f, rooted, "[req POST /orders];");
	dbs = h_sum(&f, rooted, "[req POST /orders];[db 7];");
	all = h_sum(&f, under, "busy");
	print_message("under spans: GET %llu, POST %llu (db %llu) of %llu samples in busy\n", get,
		      post, dbs, all);
	/* the span holds json_encode's samples (each checked below), and but
	 * for get_users' own instructions around the call and the kernel's
	 * trap for the span's own probes there (20-100 us each on this VM:
	 * up to 4 samples seen), nothing else */
	assert_in_range(h_sum(&f, under, "[req GET /users];_start"),
			h_sum(&f, under, "json_encode;busy"),
			h_sum(&f, under, "json_encode;busy") + 3 + h_sum(&f, in_get_trap, NULL));
	for (size_t i = 0; i < f.n; i++) {
		const char *s = f.lines[i].stack;

		if ((h_has_frame(s, "json_encode") && !rooted(s, "[req GET /users];_start")) ||
		    (h_has_frame(s, "save") && !rooted(s, "[req POST /orders];_start")) ||
		    (h_has_frame(s, "query") && !rooted(s, "[req POST /orders];[db 7];_start")))
			fail_msg("a sample outside its span: %s", s);
	}
	/* 60%, 40% and 20% of the busy time, within sampling error */
	assert_in_range(get * 100, all * 54, all * 66);
	assert_in_range(post * 100, all * 34, all * 46);
	assert_in_range(dbs * 100, all * 15, all * 25);
	h_result_free(&r);
	h_folded_free(&f);
	expect_pprof_labels(pb);
}

/* The workload's own times: "GET NS POST NS DB NS". */
static void measured(const char *out, double t[3])
{
	if (!out || sscanf(out, "GET %lf POST %lf DB %lf", &t[0], &t[1], &t[2]) != 3)
		fail_msg("spans printed no times: %s", out ? out : "(nothing)");
}

/* "spans wait"'s times and, after them, its requests' time on a CPU:
 * "... ON_CPU GET NS POST NS". */
static void measured_on_cpu(const char *out, double t[3], double cpu[2])
{
	const char *on;

	measured(out, t);
	on = strstr(out, " ON_CPU ");
	if (!on || sscanf(on, " ON_CPU GET %lf POST %lf", &cpu[0], &cpu[1]) != 2)
		fail_msg("spans wait printed no time on the CPU: %s", out);
}

/* Without samples: each span's time less its children's, as the workload
 * measured it around its markers (within 2%: the probes' own traps);
 * Chrome JSON has an event per span, db's inside POST's. By uprobe_multi
 * links or classic uprobes alike. */
static void expect_span_time(bool classic)
{
	const char *out = h_path("time.folded"), *json = h_path("time.json");
	double t[3], get, post, dbt;
	struct h_folded f;
	struct h_result r;
	char *text;

	require_bpf();
	span_args();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--span", req, "--span", db, "-o", out, "-o", json, "--",
			    h_workload("spans"), NROUNDS));
	if (classic)
		h_expect_classic(&r);
	measured(r.out, t);
	assert_non_null(strstr(r.err, "60 spans begun (2 --span), 0 ends of no open span, 0 "
				      "closed by their thread's exit"));
	assert_int_equal(f.n, 3);
	get = h_sum(&f, under, "[req GET /users]");
	post = h_sum(&f, under, "[req POST /orders]");
	dbt = h_sum(&f, under, "[db 7]");
	print_message("span time: GET %.1f ms (measured %.1f), POST %.1f ms (%.1f), db %.1f ms "
		      "(%.1f)\n",
		      get / 1e6, t[0] / 1e6, post / 1e6, t[1] / 1e6, dbt / 1e6, t[2] / 1e6);
	assert_in_range(get, t[0] * 0.98, t[0] * 1.02);
	assert_in_range(post, t[1] * 0.98, t[1] * 1.02);
	assert_in_range(dbt, t[2] * 0.98, t[2] * 1.02);
	assert_in_range(h_sum(&f, under, "[req POST /orders];[db 7]"), dbt, dbt);
	text = h_slurp(json);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"name\":\"[req GET /users]\""));
	assert_non_null(strstr(text, "\"name\":\"[db 7]\""));
	free(text);
	h_result_free(&r);
	h_folded_free(&f);
}

H_UPROBE_TESTS(span_time)

/* The C++ scope guard ends its span with the scope: 10 spans of 20 ms,
 * as the workload measured them. */
static void test_scope_guard(void **state)
{
	const char *w = h_workload("spans_scope"), *out = h_path("scope.folded");
	char arg[512];
	double took;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	snprintf(arg, sizeof(arg), "req=usdt:%s:flamebpf:req_begin(arg0),usdt:%s:flamebpf:req_end",
		 w, w);
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--span", arg, "-o", out, "--", w, "10"));
	if (!r.out || sscanf(r.out, "SCOPED %lf", &took) != 1)
		fail_msg("spans_scope printed no time: %s", r.out ? r.out : "");
	print_message("scoped: %.1f ms (measured %.1f)\n", h_sum(&f, under, "[req scoped]") / 1e6,
		      took / 1e6);
	assert_int_equal(f.n, 1);
	assert_in_range(h_sum(&f, under, "[req scoped]"), took * 0.98, took * 1.02);
	assert_non_null(strstr(r.err, "10 spans begun (1 --span), 0 ends of no open span"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* A thread that exits with its span open: the span closes at the exit,
 * its time counted up to it (20 ms a thread, and the exit), and the
 * summary says how many. */
static void test_span_exit(void **state)
{
	const char *w = h_workload("spans"), *out = h_path("exit.folded");
	double left, got;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	span_args();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--span", req, "-o", out, "--", w, "exit", "5"));
	if (!r.out || sscanf(r.out, "LEFT %lf", &left) != 1)
		fail_msg("spans exit printed no time: %s", r.out ? r.out : "");
	got = h_sum(&f, under, "[req left open]");
	print_message("left open: %.1f ms (measured to the join %.1f)\n", got / 1e6, left / 1e6);
	assert_in_range(got, 5 * 20e6, left * 1.02);
	assert_non_null(strstr(r.err, "5 spans begun (1 --span), 0 ends of no open span, 5 "
				      "closed by their thread's exit"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* "spans wait N": GET /users asleep 20 ms in fetch, POST /orders 10 ms in
 * store, each round. Off the CPU, every block of fetch sits under [req GET
 * /users], of store under [req POST /orders], their time what the workload
 * measured around its markers less its time on a CPU there (within 2%);
 * the 300 ms wait before the first request is under no span. The time on
 * a CPU is measured, not taken as nothing: the probes' traps, and on this
 * nested VM a vCPU that the host takes away for 10 ms now and then, which
 * the guest counts as the thread's time on it (one such: 11 ms short). */
/* A preemption in a request's own function, its span open but its wait not
 * begun: on the way back from the trap of the span's probe, say. */
static bool preempted_in_span(const char *s)
{
	size_t len = strlen(s), tail = strlen(";[preempted]");

	return len > tail && !strcmp(s + len - tail, ";[preempted]") &&
	       ((rooted(s, "[req GET /users];") && h_has_frame(s, "get_users_waiting")) ||
		(rooted(s, "[req POST /orders];") && h_has_frame(s, "post_orders_waiting")));
}

static void test_spans_off_cpu(void **state)
{
	const char *out = h_path("off.folded");
	double t[3], cpu[2], get, post;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	span_args();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--off-cpu", "--span", req, "-o", out, "--",
			    h_workload("spans"), "wait", NROUNDS));
	measured_on_cpu(r.out, t, cpu);
	t[0] -= cpu[0];
	t[1] -= cpu[1];
	get = h_sum(&f, rooted, "[req GET /users];");
	post = h_sum(&f, rooted, "[req POST /orders];");
	print_message("off the CPU under spans: GET %.1f ms (measured %.1f, %.1f on a CPU), POST "
		      "%.1f ms (%.1f, %.1f)\n",
		      get / 1e6, t[0] / 1e6, cpu[0] / 1e6, post / 1e6, t[1] / 1e6, cpu[1] / 1e6);
	for (size_t i = 0; i < f.n; i++) {
		const char *s = f.lines[i].stack;

		if ((h_has_frame(s, "fetch") && !rooted(s, "[req GET /users];_start")) ||
		    (h_has_frame(s, "store") && !rooted(s, "[req POST /orders];_start")) ||
		    (!h_has_frame(s, "fetch") && !h_has_frame(s, "store") && strstr(s, "[req ") &&
		     !preempted_in_span(s)))
			fail_msg("a block outside its span, or in one it is not: %s", s);
	}
	assert_in_range(get, t[0] * 0.98, t[0] * 1.02);
	assert_in_range(post, t[1] * 0.98, t[1] * 1.02);
	/* its stack may be taken before the process's unwind tables load */
	if (f.total - get - post < 290 * 1000000ULL) {
		h_folded_dump(&f, 10);
		fail_msg("the 300 ms wait before the requests is not there, under no span");
	}
	h_result_free(&r);
	h_folded_free(&f);
}

/* --wall: the same requests' wall time, asleep and running, under their
 * spans; pprof labels each sample with its span. At 999 Hz: a sample
 * stands for its period, an estimate of the thread's time on the CPU
 * around it (right on average, off by up to a period a burst), and at 99
 * Hz two 10 ms samples in a span's 1-4 ms of bursts were seen. */
static void test_spans_wall(void **state)
{
	const char *out = h_path("wall.folded"), *pb = h_path("wall.pb.gz");
	double t[3], get, post;
	struct h_folded f;
	struct h_result r;
	char *text;

	(void)state;
	require_bpf();
	span_args();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "--wall", "-F", "999", "--span", req, "-o", out, "-o", pb,
			    "--", h_workload("spans"), "wait", NROUNDS));
	measured(r.out, t);
	get = h_sum(&f, rooted, "[req GET /users];");
	post = h_sum(&f, rooted, "[req POST /orders];");
	print_message("wall time under spans: GET %.1f ms (measured %.1f), POST %.1f ms (%.1f)\n",
		      get / 1e6, t[0] / 1e6, post / 1e6, t[1] / 1e6);
	/* a few samples more or fewer in a span than its time on the CPU */
	assert_in_range(get, t[0] * 0.98 - 3 * PERIOD_999, t[0] * 1.02 + 3 * PERIOD_999);
	assert_in_range(post, t[1] * 0.98 - 3 * PERIOD_999, t[1] * 1.02 + 3 * PERIOD_999);
	h_require_go();
	text = h_pprof_tags(pb);
	if (!strstr(text, "): GET /users\n") || !strstr(text, "): POST /orders\n"))
		fail_msg("no span labels in go tool pprof -tags:\n%s", text);
	free(text);
	h_result_free(&r);
	h_folded_free(&f);
}

/* Writes v to /proc/sys/kernel/pid_max; returns the value it had, or -1. */
static long set_pid_max(long v)
{
	const char *path = "/proc/sys/kernel/pid_max";
	FILE *f = fopen(path, "r");
	long was = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &was) != 1)
		was = -1;
	fclose(f);
	f = fopen(path, "w");
	if (!f)
		return -1;
	if (fprintf(f, "%ld\n", v) < 0)
		was = -1;
	if (fclose(f))
		was = -1;
	return was;
}

/* Two threads whose tids share a span slot (spans collide): the main
 * thread holds it with its "holder" span open while the other's "collider"
 * span is found in its task storage; each one's work under its own span.
 * Tids that far apart need pid_max above 65536: raised for the test. */
static void test_span_slot_shared(void **state)
{
	const char *out = h_path("collide.folded");
	unsigned long long holder, collider;
	struct h_folded f;
	struct h_result r;
	long was;

	(void)state;
	require_bpf();
	span_args();
	was = set_pid_max(4194304);
	if (was < 0) {
		print_message("SKIP: cannot raise kernel.pid_max above 65536\n");
		skip();
	}
	/* pid_max back before anything can fail */
	h_run(&r, 120,
	      H_ARGV(h_flamebpf(), "-F", "999", "--span", req, "-o", out, "--", h_workload("spans"),
		     "collide"));
	set_pid_max(was);
	h_assert_status(&r, 0);
	h_folded_must_load(out, &f);
	if (!r.out || strncmp(r.out, "COLLIDED ", 9))
		fail_msg("spans collide found no thread of the same slot: %s", r.out ? r.out : "");
	holder = h_sum(&f, under, "holder_work");
	collider = h_sum(&f, under, "collider_work");
	print_message("%s: holder_work %llu samples, collider_work %llu\n", r.out, holder,
		      collider);
	for (size_t i = 0; i < f.n; i++) {
		const char *s = f.lines[i].stack;

		if ((h_has_frame(s, "holder_work") && !rooted(s, "[req holder];")) ||
		    (h_has_frame(s, "collider_work") && !rooted(s, "[req collider];")))
			fail_msg("a sample outside its span: %s", s);
	}
	assert_true(holder >= 50 && collider >= 50);
	h_result_free(&r);
	h_folded_free(&f);
}

/* Usage errors before anything runs, and a probe that is nowhere. */
static void test_usage(void **state)
{
	static const struct {
		const char *args[4], *said;
	} cases[] = {
		{ { "--span", "req" }, "invalid --span 'req'" },
		{ { "--span", "req=usdt:x:p:a,usdt:x:p" }, "each one probe" },
		{ { "--span", "a;b=usdt:x:p:a,usdt:x:p:b" }, "no ';'" },
		{ { "--span", "r=usdt:x:p:a(argx),usdt:x:p:b" }, "bad label '(argx)'" },
		{ { "--span", "r=usdt:x:p:a,usdt:x:p:b", "-f", "main" }, "not with -f" },
		{ { "--span", "r=usdt:x:p:a,usdt:x:p:b", "-e", "page-faults" }, "not with -e" },
		{ { "--span", "r=usdt:x:p:a,usdt:x:p:b", "--alloc" }, "not with --span" },
	};
	static const char *const tail[] = { "--", "true", NULL };
	char arg[512], probe[512];
	struct h_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		h_assert_refused(cases[i].args, sizeof(cases[i].args) / sizeof(cases[i].args[0]),
				 tail, cases[i].said);
	require_bpf();
	snprintf(arg, sizeof(arg), "r=usdt:%s:flamebpf:nosuch,usdt:%s:flamebpf:req_end",
		 h_workload("spans"), h_workload("spans"));
	snprintf(probe, sizeof(probe), "--span r: no USDT probe usdt:%s:flamebpf:nosuch",
		 h_workload("spans"));
	assert_int_equal(
		h_run(&r, 30, H_ARGV(h_flamebpf(), "--span", arg, "--", h_workload("spans"), "1")),
		0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, probe));
	h_result_free(&r);
	snprintf(arg, sizeof(arg), "r=usdt:%s:flamebpf:db_begin(arg1),usdt:%s:flamebpf:db_end",
		 h_workload("spans"), h_workload("spans"));
	assert_int_equal(
		h_run(&r, 30, H_ARGV(h_flamebpf(), "--span", arg, "--", h_workload("spans"), "1")),
		0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "has 1 argument: no arg1"));
	h_result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_samples_under_spans, h_test_teardown),
		cmocka_unit_test_teardown(test_span_time, h_test_teardown),
		cmocka_unit_test_teardown(test_span_time_classic, h_classic_teardown),
		cmocka_unit_test_teardown(test_scope_guard, h_test_teardown),
		cmocka_unit_test_teardown(test_span_exit, h_test_teardown),
		cmocka_unit_test_teardown(test_spans_off_cpu, h_test_teardown),
		cmocka_unit_test_teardown(test_spans_wall, h_test_teardown),
		cmocka_unit_test_teardown(test_span_slot_shared, h_test_teardown),
		cmocka_unit_test_teardown(test_usage, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("spans", tests, h_group_setup, h_group_teardown);
}
