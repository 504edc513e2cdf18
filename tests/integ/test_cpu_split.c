// SPDX-License-Identifier: GPL-2.0
/*
 * --cpu-split: uprobe mode's calls, their time split into on and off the
 * CPU, by state. The offcpu workload computes 10 ms (on the CPU), sleeps
 * 20 ms (wait_a), reads a pipe 60 ms (wait_b) and waits 15 ms for a mutex
 * (wait_c), and measures each: the folded leaves and the chrome args must
 * find those waits off the CPU, asleep, and compute on it.
 */
#include "harness.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS	1e6 /* ns */
#define NSTATES 4

static const char *const states[NSTATES] = { "sleeping", "disk", "preempted", "stopped" };

static bool under(const char *stack, const void *arg)
{
	return h_has_frame(stack, arg);
}

struct in_state {
	const char *frame, *state;
};

/* Under frame, with state as the leaf. */
static bool under_in_state(const char *stack, const void *arg)
{
	const struct in_state *w = arg;
	const char *leaf = strrchr(stack, ';');

	return h_has_frame(stack, w->frame) && leaf && !strcmp(leaf + 1, w->state);
}

/* What the chrome events of one function add up to, in ns. */
struct split_sum {
	unsigned long long calls, dur, on, off, state[NSTATES];
};

static unsigned long long arg_ns(struct json_object *args, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(args, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int))
		fail_msg("args.%s is no integer: %s", key, json_object_to_json_string(args));
	return (unsigned long long)json_object_get_int64(v);
}

/* "12.345" microseconds, exactly, in ns. */
static unsigned long long dur_ns(struct json_object *ev)
{
	struct json_object *v;
	unsigned long long us = 0;
	unsigned int frac = 0;

	if (!json_object_object_get_ex(ev, "dur", &v) ||
	    sscanf(json_object_to_json_string(v), "%llu.%3u", &us, &frac) != 2)
		fail_msg("no dur in %s", json_object_to_json_string(ev));
	return us * 1000 + frac;
}

/* One call: on + off is its dur, off the sum of the states named. */
static void add_event(struct json_object *ev, struct split_sum *s)
{
	struct json_object *args;
	unsigned long long dur = dur_ns(ev), sum = 0, on, off;

	if (!json_object_object_get_ex(ev, "args", &args) ||
	    !json_object_object_get_ex(args, "on_cpu_ns", NULL))
		fail_msg("no on_cpu_ns in %s", json_object_to_json_string(ev));
	on = arg_ns(args, "on_cpu_ns");
	off = arg_ns(args, "off_cpu_ns");
	for (int i = 0; i < NSTATES; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_ns", states[i]);
		s->state[i] += arg_ns(args, key);
		sum += arg_ns(args, key);
	}
	if (on + off != dur || sum != off)
		fail_msg("on %llu + off %llu is not dur %llu, or the states add up to %llu: %s", on,
			 off, dur, sum, json_object_to_json_string(ev));
	s->calls++;
	s->dur += dur;
	s->on += on;
	s->off += off;
}

/* The calls of function name in the trace at path, summed. */
static struct split_sum chrome_sum(const char *path, const char *name)
{
	struct json_object *doc = json_object_from_file(path), *evs, *ev, *v;
	struct split_sum s = { 0 };

	if (!doc || !json_object_object_get_ex(doc, "traceEvents", &evs))
		fail_msg("'%s' is no chrome trace", path);
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		ev = json_object_array_get_idx(evs, i);
		if (!json_object_object_get_ex(ev, "ph", &v) ||
		    strcmp(json_object_get_string(v), "X") ||
		    !json_object_object_get_ex(ev, "name", &v) ||
		    strcmp(json_object_get_string(v), name))
			continue;
		add_event(ev, &s);
	}
	json_object_put(doc);
	return s;
}

static void print_sum(const char *name, const struct split_sum *s)
{
	print_message("%s: %llu calls, %.1f ms: %.1f ms on the CPU (%.1f%%), %.1f ms off "
		      "(sleeping %.1f, disk %.1f, preempted %.1f, stopped %.1f)\n",
		      name, s->calls, s->dur / MS, s->on / MS, s->dur ? 100.0 * s->on / s->dur : 0,
		      s->off / MS, s->state[0] / MS, s->state[1] / MS, s->state[2] / MS,
		      s->state[3] / MS);
}

/* The chrome trace at json, rendered to folded, is the file at folded. */
static void same_when_rendered(const char *json, const char *folded)
{
	const char *back = h_path("back.folded");
	char *want, *got;
	struct h_result r;

	assert_int_equal(h_run(&r, 30, H_ARGV(h_flamebpf(), "render", json, "-o", back)), 0);
	h_assert_status(&r, 0);
	want = h_slurp(folded);
	got = h_slurp(back);
	assert_non_null(want);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(want);
	free(got);
	h_result_free(&r);
}

/*
 * The waits, leaves of the traced nesting: their time off the CPU is the
 * time each measured (within 10%), over 90% of their calls' time and all
 * but 10% asleep, in the folded leaves and in the chrome args alike (a
 * leaf's self time is its inclusive time: exactly). compute spins until 10 ms of wall time
 * went by, so a busy machine's run queue (other tests run beside this one)
 * takes from its time on the CPU: it is all [running] but for [preempted]
 * time (98-100% [running] on an idle machine; 36% with two busy loops
 * beside it on two CPUs). Every call's on + off is its dur, exactly, and
 * the chrome trace rendered back gives the capture's folded file.
 */
static void test_waits_split(void **state)
{
	static const char *const waits[] = { "wait_a", "wait_b", "wait_c" };
	const char *folded = h_path("split.folded"), *json = h_path("split.json");
	struct in_state running = { "compute", "[running]" },
			preempted = { "compute", "[preempted]" };
	struct split_sum s;
	long long took[3], lost;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, folded, &f,
		     H_ARGV(h_flamebpf(), "-f", "^(wait_a|wait_b|wait_c|compute)$", "--cpu-split",
			    "-o", folded, "-o", json, "--", h_workload("offcpu"), "10"));
	if (sscanf(r.out, "wait_a %lld wait_b %lld wait_c %lld", &took[0], &took[1], &took[2]) != 3)
		fail_msg("offcpu printed no times: %s", r.out);
	assert_non_null(strstr(r.err, "traced calls' self time: "));
	lost = h_offcpu_lost(r.err);
	for (size_t i = 0; i < f.n; i++)
		if (!strstr(f.lines[i].stack, ";[")) /* every line ends in its state */
			fail_msg("no state leaf: %s", f.lines[i].stack);
	for (int i = 0; i < 3; i++) {
		struct in_state asleep = { waits[i], "[sleeping]" };
		unsigned long long all = h_sum(&f, under, waits[i]),
				   slept = h_sum(&f, under_in_state, &asleep),
				   off = all - h_sum(&f, under_in_state,
						     &(struct in_state){ waits[i], "[running]" });

		s = chrome_sum(json, waits[i]);
		print_sum(waits[i], &s);
		print_message(
			"  folded: %.1f ms off the CPU (%.1f asleep) of %.1f; measured %.1f\n",
			off / MS, slept / MS, all / MS, took[i] / MS);
		/* short by a counted lost block (a tenth of the wait) each at most */
		if (off < took[i] * h_offcpu_floor(lost) || off > took[i] * 1.1 ||
		    off < all * h_offcpu_floor(lost) || slept < off * 0.9) {
			h_dump(&r, "flamebpf");
			h_folded_dump(&f, 40);
			fail_msg("%s: %.1f ms off the CPU (%.1f asleep) of %.1f, measured %.1f",
				 waits[i], off / MS, slept / MS, all / MS, took[i] / MS);
		}
		assert_int_equal(s.calls, 10);
		assert_true(s.off > s.dur * h_offcpu_floor(lost) && s.state[0] > s.off * 0.9);
		assert_int_equal(s.off, off);
	}
	s = chrome_sum(json, "compute");
	print_sum("compute", &s);
	assert_int_equal(s.calls, 10);
	assert_true(s.on > 0 && s.state[0] + s.state[1] + s.state[3] < s.dur * 0.02);
	same_when_rendered(json, folded);
	assert_true(h_sum(&f, under_in_state, &running) + h_sum(&f, under_in_state, &preempted) >
		    h_sum(&f, under, "compute") * 0.98);
	h_result_free(&r);
	h_folded_free(&f);
}

/*
 * Nested calls, --state-root: main's inclusive time on and off the CPU
 * (chrome) is its own and its callees' (folded self times, under their
 * state roots), exactly: a self time is the inclusive one less the callees';
 * every folded line has its state right under the root.
 */
static void test_nested_state_root(void **state)
{
	const char *folded = h_path("nest.folded"), *json = h_path("nest.json");
	unsigned long long self_off = 0, on;
	struct split_sum m;
	struct h_folded f;
	struct h_result r;

	(void)state;
	require_bpf();
	h_run_folded(&r, 60, folded, &f,
		     H_ARGV(h_flamebpf(), "-f", "^(main|wait_a|compute)$", "--cpu-split",
			    "--state-root", "-o", folded, "-o", json, "--", h_workload("offcpu"),
			    "3"));
	for (size_t i = 0; i < f.n; i++) {
		const char *second = strchr(f.lines[i].stack, ';');

		if (!second || second[1] != '[')
			fail_msg("no state under the root: %s", f.lines[i].stack);
		if (!h_has_frame(f.lines[i].stack, "[running]"))
			self_off += f.lines[i].count;
	}
	on = h_sum(&f, under, "[running]");
	m = chrome_sum(json, "main");
	print_sum("main", &m);
	print_message("folded: %.1f ms on the CPU, %.1f ms off\n", on / MS, self_off / MS);
	assert_int_equal(m.calls, 1);
	assert_int_equal(m.off, self_off);
	assert_int_equal(m.on, on);
	h_result_free(&r);
	h_folded_free(&f);
}

/* dd writing with O_DSYNC: its write() calls wait for the disk,
 * uninterruptibly: [disk] is most of their time off the CPU. */
static void test_disk_split(void **state)
{
	struct in_state disk = { "write", "[disk]" }, running = { "write", "[running]" };
	const char *out = h_path("dd.folded");
	unsigned long long all, off, waited;
	struct h_folded f;
	struct h_result r;
	char of[4200];

	(void)state;
	require_bpf();
	snprintf(of, sizeof(of), "of=%s", h_path("dd.out"));
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "libc:^write$", "--cpu-split", "-o", out, "--",
			    "dd", "if=/dev/zero", of, "bs=64k", "count=100", "oflag=dsync"));
	all = h_sum(&f, under, "write");
	off = all - h_sum(&f, under_in_state, &running);
	waited = h_sum(&f, under_in_state, &disk);
	print_message("write: %.1f ms, %.1f ms off the CPU, %.1f ms of it [disk]\n", all / MS,
		      off / MS, waited / MS);
	if (!waited || waited * 2 < off) {
		h_folded_dump(&f, 20);
		fail_msg("dd's synchronous writes are not [disk] time");
	}
	h_result_free(&r);
	h_folded_free(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_waits_split, h_test_teardown),
		cmocka_unit_test_teardown(test_nested_state_root, h_test_teardown),
		cmocka_unit_test_teardown(test_disk_split, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("cpu_split", tests, h_group_setup, h_group_teardown);
}
