// SPDX-License-Identifier: GPL-2.0
/*
 * -e EVENT: stacks weighed by a software event instead of time. The events
 * workload makes known counts: N page faults in touch_pages, 2N context
 * switches in a pipe ping-pong of N rounds. Hardware events need a PMU,
 * which VMs rarely have: then one clear line and no output.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool under(const char *stack, const void *arg)
{
	return h_has_frame(stack, arg);
}

static bool under_pingpong(const char *stack, const void *arg)
{
	(void)arg;
	return h_has_frame(stack, "pingpong") || h_has_frame(stack, "echo");
}

static bool in_events(const char *stack, const void *arg)
{
	(void)arg;
	return !strncmp(stack, "events;", 7);
}

/* events faults 5000: every fault counted, those of touch_pages exactly. */
static void test_page_faults(void **state)
{
	const char *out = h_path("faults.folded");
	unsigned long long in_touch;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-e", "page-faults", "-o", out, "--",
			    h_workload("events"), "faults", "5000"));
	in_touch = h_sum(&f, under, "touch_pages");
	print_message("page faults: %llu in touch_pages of %llu\n", in_touch, f.total);
	if (in_touch < 5000 || in_touch > 5050 || in_touch < f.total * 0.9) {
		h_folded_dump(&f, 20);
		fail_msg("%llu page faults in touch_pages (of %llu), 5000 made", in_touch, f.total);
	}
	assert_non_null(strstr(r.err, " page-faults in "));
	assert_non_null(strstr(r.err, "samples (one every 1)"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* -c 10: a sample every 10 faults, each weighing 10. */
static void test_every_tenth(void **state)
{
	const char *out = h_path("faults10.folded");
	unsigned long long in_touch;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-e", "minor-faults", "-c", "10", "-o", out, "--",
			    h_workload("events"), "faults", "5000"));
	in_touch = h_sum(&f, under, "touch_pages");
	print_message("-c 10: %llu faults in touch_pages\n", in_touch);
	if (in_touch < 4500 || in_touch > 5500 || in_touch % 10)
		fail_msg("-c 10: %llu faults in touch_pages, 5000 made", in_touch);
	assert_non_null(strstr(r.err, "(one every 10)"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* -F 999: the kernel's frequency mode, each sample weighing its period:
 * about the 20000 faults made, over half a second. A period is the
 * kernel's guess from the rate it saw, and now and then one is far off
 * (a sum of 3x the faults, once in some 15 runs here) and under ASan the
 * sums spread by a third: the median of three runs, within -30%/+40%,
 * against the ~280 samples that unweighted counting would give. */
static unsigned long long frequency_run(const char *out)
{
	unsigned long long in_touch;
	struct h_folded f;
	struct h_result r;

	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-e", "page-faults", "-F", "999", "-o", out, "--",
			    h_workload("events"), "paced", "20000"));
	in_touch = h_sum(&f, under, "touch_pages");
	assert_non_null(strstr(r.err, "samples at 999 Hz (each its own period)"));
	h_result_free(&r);
	h_folded_free(&f);
	return in_touch;
}

static void test_frequency(void **state)
{
	const char *out = h_path("faultsf.folded");
	unsigned long long n[3], t, mid;

	(void)state;
	require_bpf();
	for (int i = 0; i < 3; i++)
		n[i] = frequency_run(out);
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (n[j] < n[i]) {
				t = n[i];
				n[i] = n[j];
				n[j] = t;
			}
	mid = n[1];
	print_message("-F 999: %llu, %llu and %llu faults in touch_pages\n", n[0], n[1], n[2]);
	if (mid < 14000 || mid > 28000)
		fail_msg("-F 999: %llu faults in touch_pages (the median of 3), 20000 made", mid);
}

/* events pingpong 5000 on one CPU: each thread leaves the CPU once a round
 * (at its read, or preempted at its write by the thread it woke). */
static void test_context_switches(void **state)
{
	const char *out = h_path("cs.folded");
	unsigned long long in_pp, all;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-e", "cs", "-o", out, "--", "taskset", "-c", "0",
			    h_workload("events"), "pingpong", "5000"));
	in_pp = h_sum(&f, under_pingpong, NULL);
	all = h_sum(&f, in_events, NULL);
	print_message("context switches: %llu in events (%llu under pingpong or echo) for 5000 "
		      "rounds\n",
		      all, in_pp);
	/* preemptions on a loaded machine add a few; stacks taken before the
	 * tables were loaded may miss the function */
	if (all < 10000 || all > 10500 || in_pp < all * 0.95) {
		h_folded_dump(&f, 20);
		fail_msg("%llu context switches in events (%llu in the ping-pong), 10000 made", all,
			 in_pp);
	}
	h_result_free(&r);
	h_folded_free(&f);
}

/* Several -e in one capture: events both 5000 (5000 faults in
 * touch_pages, then 5000 ping-pong rounds on one CPU) counted as page
 * faults and context switches at once: each event's own file holds what a
 * capture of it alone holds; pprof has a sample type each, read by go tool
 * pprof; an event that never came (alignment-faults) gets no file. */
static void expect_faults_and_switches(const char *faults, const char *switches)
{
	unsigned long long in_touch, in_pp, all;
	struct h_folded f;

	h_folded_must_load(faults, &f);
	in_touch = h_sum(&f, under, "touch_pages");
	h_folded_free(&f);
	h_folded_must_load(switches, &f);
	in_pp = h_sum(&f, under_pingpong, NULL);
	all = h_sum(&f, in_events, NULL);
	h_folded_free(&f);
	print_message("page faults in touch_pages %llu; context switches %llu in events, %llu "
		      "under pingpong or echo\n",
		      in_touch, all, in_pp);
	if (in_touch < 5000 || in_touch > 5050)
		fail_msg("%llu page faults in touch_pages, 5000 made", in_touch);
	if (all < 10000 || all > 10500 || in_pp < all * 0.95)
		fail_msg("%llu context switches in events (%llu in the ping-pong), 10000 made", all,
			 in_pp);
}

/* go tool pprof's total of sample type index ("Showing nodes accounting
 * for X, P% of TOTAL total") is within [lo, hi]. */
static void expect_pprof_total(const char *file, const char *index, double lo, double hi)
{
	char *text = h_pprof_top(file, index, "count", true);
	const char *of = strstr(text, "% of ");
	const char *type = strstr(text, "Type: ");
	double total = of ? strtod(of + 5, NULL) : -1;

	print_message("pprof -sample_index=%s: %.0f\n", index, total);
	if (!type || strncmp(type + 6, index, strlen(index)) || total < lo || total > hi)
		fail_msg("-sample_index=%s: a total of %.0f, not %.0f to %.0f:\n%s", index, total,
			 lo, hi, text);
	free(text);
}

static void test_several_events(void **state)
{
	const char *out = h_path("both.folded"), *pb = h_path("both.pb.gz");
	const char *faults = h_path("both.page-faults.folded"),
		   *switches = h_path("both.context-switches.folded"),
		   *none = h_path("both.alignment-faults.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-e", "page-faults", "-e", "cs", "-e",
				      "alignment-faults", "-o", out, "-o", pb, "--", "taskset",
				      "-c", "0", h_workload("events"), "both", "5000")),
			 0);
	h_assert_status(&r, 0);
	expect_faults_and_switches(faults, switches);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(access(none, F_OK), -1);
	if (!strstr(r.err, "no alignment-faults during the capture: '") ||
	    !strstr(r.err, " page-faults in ") || !strstr(r.err, " context-switches in ") ||
	    !strstr(r.err, "3 events, "))
		fail_msg("the summary does not name each event: %s", r.err);
	h_result_free(&r);
	h_require_go();
	expect_pprof_total(pb, "page-faults", 5000, 5500);
	expect_pprof_total(pb, "context-switches", 10000, 10600);
}

/* --show: the one event the other formats draw, to the file as named. */
static void test_show_event(void **state)
{
	const char *out = h_path("shown.folded");
	struct h_folded f;
	struct h_result r;
	unsigned long long in_touch;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-e", "cs", "-e", "page-faults", "--show", "page-faults",
			    "-o", out, "--", h_workload("events"), "faults", "5000"));
	in_touch = h_sum(&f, under, "touch_pages");
	if (in_touch < 5000 || in_touch > 5050)
		fail_msg("--show page-faults: %llu page faults in touch_pages, 5000 made",
			 in_touch);
	h_result_free(&r);
	h_folded_free(&f);
}

/* events writes 1000 at sys_enter_write: write_a's 1000 writes and
 * write_b's 2000 exactly; weighed by the count argument (arg2), 10 and 100
 * bytes each; at sys_exit_write by what they returned, the same. */
static void expect_writes(const char *tp, const char *weight, unsigned long long a,
			  unsigned long long b)
{
	const char *out = h_path("writes.folded");
	unsigned long long got_a, got_b;
	struct h_folded f;
	struct h_result r;

	h_run_folded(&r, 60, out, &f,
		     weight ? H_ARGV(h_flamebpf(), "-e", tp, "--weight", weight, "-o", out, "--",
				     h_workload("events"), "writes", "1000")
			    : H_ARGV(h_flamebpf(), "-e", tp, "-o", out, "--", h_workload("events"),
				     "writes", "1000"));
	got_a = h_sum(&f, under, "write_a");
	got_b = h_sum(&f, under, "write_b");
	print_message("%s%s%s: write_a %llu, write_b %llu\n", tp, weight ? " --weight " : "",
		      weight ? weight : "", got_a, got_b);
	if (got_a != a || got_b != b) {
		h_folded_dump(&f, 20);
		fail_msg("%s: write_a %llu (want %llu), write_b %llu (want %llu)", tp, got_a, a,
			 got_b, b);
	}
	assert_non_null(strstr(r.err, "hits of the tracepoint"));
	h_result_free(&r);
	h_folded_free(&f);
}

static void test_tracepoint_writes(void **state)
{
	(void)state;
	require_bpf();
	expect_writes("tracepoint:syscalls:sys_enter_write", NULL, 1000, 2000);
	expect_writes("t:syscalls:sys_enter_write", "arg2", 10000, 200000);
	expect_writes("t:syscalls:sys_exit_write", "ret", 10000, 200000);
}

/* Runs flamebpf with args (a shell's words) in a mount namespace of its
 * own with tracefs mounted there (WITH_TRACEFS) or none (WITHOUT_TRACEFS),
 * the machine's left as it is. Skips, saying why, where the kernel has no
 * tracefs or no mount namespaces. */
static void run_in_namespace(struct h_result *r, const char *mount, const char *args)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "%s && exec '%s' %s", mount, h_flamebpf(), args);
	assert_int_equal(h_run(r, 60, H_ARGV("unshare", "-m", "sh", "-c", cmd)), 0);
	if (r->status && (strstr(r->err, "mount:") || strstr(r->err, "unshare:"))) {
		print_message("skipped: no tracefs or no mount namespace here: %s\n", r->err);
		skip();
	}
}

/* Whatever tracefs or debugfs the machine has mounted is let go of in the
 * namespace first: mounting tracefs where it already is fails (EBUSY). */
#define WITHOUT_TRACEFS                                                                            \
	"for m in $(awk '$3 == \"tracefs\" || $3 == \"debugfs\" { print $2 }' /proc/mounts); "     \
	"do umount -l \"$m\" 2>/dev/null; done; true"
#define WITH_TRACEFS WITHOUT_TRACEFS " && mount -t tracefs nodev /sys/kernel/tracing"

/* --weight by the argument's name, from tracefs's format file. */
static void test_weight_by_name(void **state)
{
	const char *out = h_path("named.folded");
	char args[2048];
	unsigned long long a, b;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	snprintf(args, sizeof(args),
		 "-e t:syscalls:sys_enter_write --weight count -o '%s' -- '%s' writes 100", out,
		 h_workload("events"));
	run_in_namespace(&r, WITH_TRACEFS, args);
	h_assert_status(&r, 0);
	h_folded_must_load(out, &f);
	a = h_sum(&f, under, "write_a");
	b = h_sum(&f, under, "write_b");
	print_message("--weight count: write_a %llu, write_b %llu\n", a, b);
	assert_int_equal(a, 1000);
	assert_int_equal(b, 20000);
	assert_non_null(strstr(r.err, "syscalls:sys_enter_write:count in 301 hits"));
	h_result_free(&r);
	h_folded_free(&f);
}

/* The sum of the numbers after each KEY in text ("1,228,800" reads as
 * 1228800); *n how many there were. */
static unsigned long long sum_after(const char *text, const char *key, size_t *n)
{
	unsigned long long sum = 0;

	*n = 0;
	for (const char *at = strstr(text, key); at; at = strstr(at, key)) {
		unsigned long long v = 0;

		for (at += strlen(key); (*at >= '0' && *at <= '9') || *at == ','; at++)
			if (*at != ',')
				v = v * 10 + (unsigned long long)(*at - '0');
		sum += v;
		(*n)++;
	}
	return sum;
}

/* The Chrome trace's "_start" spans: their args.weight summed, and the
 * longest one's dur in us. */
static unsigned long long chrome_start_weight(const char *text, double *longest)
{
	unsigned long long sum = 0;
	const char *at = text;

	*longest = 0;
	while ((at = strstr(at, "{\"name\":\"_start\",\"ph\":\"X\""))) {
		const char *end = strchr(at, '\n'), *w = strstr(at, "\"weight\":"),
			   *d = strstr(at, "\"dur\":");
		double dur;

		assert_non_null(end);
		if (!w || w > end || !d || d > end)
			fail_msg("a _start span without weight or dur: %.*s", (int)(end - at), at);
		sum += strtoull(w + 9, NULL, 10);
		dur = strtod(d + 6, NULL);
		if (dur > *longest)
			*longest = dur;
		at = end;
	}
	return sum;
}

/* --weight count of dd's 300 writes of 4096 bytes, in every output: the
 * folded stacks, perf script's periods (rendered back with --period), the
 * Chrome trace's spans (args.weight; each hit lasting a microsecond) and
 * the heatmap's cells, in the event's words. */
static void test_weight_outputs(void **state)
{
	const char *folded = h_path("w.folded"), *perf = h_path("w.perf"), *json = h_path("w.json"),
		   *heat = h_path("wh.svg"), *back = h_path("back.folded");
	const unsigned long long want = 300ULL * 4096;
	unsigned long long heat_sum, start, folded_start;
	char args[4096];
	struct h_folded f;
	struct h_result r;
	double longest;
	size_t cells;
	char *text;

	(void)state;
	require_bpf();
	snprintf(args, sizeof(args),
		 "-e t:syscalls:sys_enter_write --weight count -o '%s' -o '%s' -o '%s' "
		 "--heatmap -o '%s' -- dd if=/dev/zero 'of=%s' bs=4096 count=300 status=none",
		 folded, perf, json, heat, h_path("dd.out"));
	run_in_namespace(&r, WITH_TRACEFS, args);
	h_assert_status(&r, 0);
	h_result_free(&r);
	h_folded_must_load(folded, &f);
	assert_int_equal(f.total, want);
	/* the writes made before dd's table was built are cut short of
	 * _start (35% of them in a CI run's ASan pass) */
	folded_start = h_sum_frame(&f, "_start");
	h_folded_free(&f);

	h_run_folded(&r, 60, back, &f,
		     H_ARGV(h_flamebpf(), "render", "--period", perf, "-o", back));
	print_message("folded %llu; perf script rendered back %llu\n", want, f.total);
	assert_int_equal(f.total, want);
	h_result_free(&r);
	h_folded_free(&f);

	/* all of it rendered back; under _start, what the folded stacks hold
	 * under it (in bytes: hits would be 300 at most) */
	text = h_slurp(json);
	start = chrome_start_weight(text, &longest);
	print_message("chrome: _start spans weigh %llu, the folded stacks under it %llu, the "
		      "longest lasts %.3f us\n",
		      start, folded_start, longest);
	assert_true(folded_start >= want / 10);
	assert_true(start <= folded_start && start >= folded_start * 9 / 10);
	assert_true(longest > 0 && longest < 1000 * 300);
	free(text);
	h_run_folded(&r, 60, back, &f, H_ARGV(h_flamebpf(), "render", json, "-o", back));
	print_message("chrome rendered back %llu\n", f.total);
	assert_int_equal(f.total, want);
	h_result_free(&r);
	h_folded_free(&f);

	text = h_slurp(heat);
	heat_sum = sum_after(text, " s: ", &cells);
	print_message("heatmap: %llu in %zu cells\n", heat_sum, cells);
	assert_int_equal(heat_sum, want);
	assert_non_null(strstr(text, "syscalls:sys_enter_write:count</title>"));
	assert_null(strstr(text, " samples<"));
	assert_null(strstr(text, " sample<"));
	free(text);
}

/* --weight FIELD at a tracepoint that is no system call's: events signals
 * 1000 raises SIGUSR1 (10) 1000 times in signal_a, SIGUSR2 (12) 2000 times
 * in signal_b: signal_generate's sig sums to 10000 and 24000 there; and
 * its hits, without --weight (a raw tracepoint), 1000 and 2000. */
static void expect_signals(const char *weight, unsigned long long a, unsigned long long b)
{
	const char *out = h_path("signals.folded");
	char args[1024];
	struct h_folded f;
	struct h_result r;

	snprintf(args, sizeof(args),
		 "-e t:signal:signal_generate %s%s -o '%s' -- '%s' signals 1000",
		 weight ? "--weight " : "", weight ? weight : "", out, h_workload("events"));
	run_in_namespace(&r, WITH_TRACEFS, args);
	h_assert_status(&r, 0);
	h_folded_must_load(out, &f);
	print_message("signal_generate%s%s: signal_a %llu, signal_b %llu\n",
		      weight ? " --weight " : "", weight ? weight : "",
		      h_sum(&f, under, "signal_a"), h_sum(&f, under, "signal_b"));
	if (h_sum(&f, under, "signal_a") != a || h_sum(&f, under, "signal_b") != b) {
		h_folded_dump(&f, 20);
		fail_msg("signal_a %llu (want %llu), signal_b %llu (want %llu)",
			 h_sum(&f, under, "signal_a"), a, h_sum(&f, under, "signal_b"), b);
	}
	assert_non_null(strstr(r.err, weight ? "signal:signal_generate:sig in " : "hits of the"));
	h_result_free(&r);
	h_folded_free(&f);
}

static void test_weight_by_field(void **state)
{
	(void)state;
	require_bpf();
	expect_signals("sig", 10000, 24000);
	expect_signals(NULL, 1000, 2000);
}

/* What --weight FIELD refuses, exit 2: a field that is no number, one the
 * tracepoint has not (its numeric fields listed), any without tracefs. */
static void expect_refused(const char *mount, const char *tp, const char *field, const char *said)
{
	char args[512];
	struct h_result r;

	snprintf(args, sizeof(args), "-e %s --weight %s -d 1", tp, field);
	run_in_namespace(&r, mount, args);
	h_assert_status(&r, 2);
	if (!strstr(r.err, said))
		fail_msg("-e %s --weight %s: '%s' not said: %s", tp, field, said, r.err);
	h_result_free(&r);
}

static void test_weight_refused(void **state)
{
	(void)state;
	require_bpf();
	expect_refused(WITH_TRACEFS, "t:signal:signal_generate", "comm",
		       "'char comm[16]' of signal:signal_generate is an array, not a number");
	expect_refused(WITH_TRACEFS, "t:sched:sched_process_exec", "filename",
		       "'__data_loc char[] filename' of sched:sched_process_exec is a string");
	expect_refused(WITH_TRACEFS, "t:signal:signal_generate", "nosuch",
		       "signal:signal_generate has no such field (numeric fields: sig, errno, "
		       "code, pid, group, result)");
	expect_refused(WITH_TRACEFS, "t:signal:signal_generate", "common_pid", "has no such field");
	expect_refused(WITH_TRACEFS, "t:nosuch:thing", "x",
		       "this kernel has no tracepoint 'nosuch:thing'");
	expect_refused(WITHOUT_TRACEFS, "t:signal:signal_generate", "sig",
		       "--weight 'sig': the fields of signal:signal_generate come from tracefs, "
		       "which is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
}

/* A tracepoint of its own name, not a system call's: sched_process_exec
 * for each program sh runs. */
static void test_tracepoint_exec(void **state)
{
	const char *out = h_path("exec.folded");
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-e", "t:sched:sched_process_exec", "-o", out, "--", "sh",
			    "-c", "true; /bin/true; /bin/true"));
	print_message("%llu execs\n", f.total);
	/* sh itself, then the two /bin/true (the builtin runs none) */
	assert_int_equal(f.total, 3);
	assert_int_equal(h_sum_frame(&f, "true"), 2);
	h_result_free(&r);
	h_folded_free(&f);
}

/* cycles: on a machine without a PMU, one line that says so, exit 1, no
 * file; with one, a capture. */
static void test_hardware_event(void **state)
{
	const char *out = h_path("cycles.folded");
	struct h_result r;

	(void)state;
	require_bpf();
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-e", "cycles", "-c", "100000", "-o", out, "--",
				      h_workload("cpu_tree"), "0.3")),
			 0);
	if (r.status == 0) {
		print_message("this machine has a PMU: cycles were sampled\n");
		assert_true(h_exists(out));
	} else {
		h_assert_status(&r, 1);
		assert_non_null(strstr(r.err, "cannot count 'cycles': this machine has no hardware "
					      "performance counters"));
		assert_false(h_exists(out));
	}
	h_result_free(&r);
}

static void test_usage(void **state)
{
	static const struct {
		const char *args[6], *said;
	} cases[] = {
		{ { "-e", "page-faults", "-F", "99", "-c", "5" }, "-c N and -F FREQ both" },
		{ { "-e", "nosuch" }, "unknown event 'nosuch' (software events: cpu-clock," },
		{ { "-c", "10", "-d", "1" }, "-c N samples every N events of a counted event" },
		{ { "-e", "cs", "-c", "0" }, "invalid -c '0'" },
		{ { "-e", "cs", "-e", "faults", "-o", "-" }, "several -e to standard output" },
		{ { "-e", "cs", "-e", "cs" }, "-e context-switches given twice" },
		{ { "-e", "cs", "-e", "cpu-clock" }, "cpu-clock is a clock, sampled alone" },
		{ { "-e", "cs", "-e", "t:sched:sched_switch" }, "counts its hits alone" },
		{ { "-e", "t:sched:sched_switch", "-e", "cs" }, "counts its hits alone" },
		{ { "-e", "cs", "--show", "cs" }, "--show chooses one of several -e" },
		{ { "-e", "cs", "-e", "faults", "--show", "cycles" }, "--show cycles: not one of" },
		{ { "-e", "t:syscalls:sys_enter_nosuch" }, "no such system call" },
		{ { "-e", "t:syscalls" }, "invalid tracepoint 't:syscalls'" },
		{ { "-e", "t:syscalls:sys_enter_write", "--weight", "ret" },
		  "invalid --weight 'ret'" },
		{ { "-F", "99", "--weight", "arg1" }, "--weight weighs the hits of a tracepoint" },
		{ { "-e", "t:sched:sched_switch", "-F", "99" },
		  "counts every hit of the tracepoint" },
		{ { "-e", "cycles:u" }, "not modifiers" },
	};
	static const char *const tail[] = { "-d", "1", NULL };

	(void)state;
	h_assert_all_refused(cases, tail);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_page_faults, h_test_teardown),
		cmocka_unit_test_teardown(test_every_tenth, h_test_teardown),
		cmocka_unit_test_teardown(test_frequency, h_test_teardown),
		cmocka_unit_test_teardown(test_context_switches, h_test_teardown),
		cmocka_unit_test_teardown(test_several_events, h_test_teardown),
		cmocka_unit_test_teardown(test_show_event, h_test_teardown),
		cmocka_unit_test_teardown(test_tracepoint_writes, h_test_teardown),
		cmocka_unit_test_teardown(test_weight_by_name, h_test_teardown),
		cmocka_unit_test_teardown(test_weight_outputs, h_test_teardown),
		cmocka_unit_test_teardown(test_weight_by_field, h_test_teardown),
		cmocka_unit_test_teardown(test_weight_refused, h_test_teardown),
		cmocka_unit_test_teardown(test_tracepoint_exec, h_test_teardown),
		cmocka_unit_test_teardown(test_hardware_event, h_test_teardown),
		cmocka_unit_test_teardown(test_usage, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("events", tests, h_group_setup, h_group_teardown);
}
