// SPDX-License-Identifier: GPL-2.0
/*
 * -f 'py:REGEX' on Debian's python3.11 and pyenv's 3.10, 3.11, 3.12 and
 * 3.13, unmodified: tests/workloads/
 * py_calls.py counts its own calls of parse (from Python, from C through
 * map(), and under compute through an untraced helper), compute, boom (which
 * raises every time) and the runs of the generator gen_values. Started as
 * COMMAND and attached with -p, the Chrome JSON must hold exactly as many
 * calls of each as the program counted, parse's under compute exactly as
 * many as it counted there; the folded output nests them the same way; bad
 * regexes and targets are refused with one line. 3.10, whose calls are C
 * calls of its evaluation function (a uprobe session on it, or an entry
 * probe and a uretprobe), runs each check too, and under
 * FLAMEBPF_NO_UPROBE_SESSIONS=1 and classic uprobes.
 */
#include "harness.h"

#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PYTHON	 "/usr/bin/python3.11"
#define PYENV	 "/root/.pyenv/versions/"
#define PY311	 PYENV "3.11.7/bin/python3.11" /* a launcher of libpython3.11.so */
#define PY312	 PYENV "3.12.1/bin/python3.12"
#define PY313	 PYENV "3.13.0/bin/python3.13"
#define PY310	 PYENV "3.10.13/bin/python3.10"
#define WORKLOAD "tests/workloads/py_calls.py"
#define REGEX	 "py:^(parse|compute|boom|gen_values)$"

static void require(const char *python)
{
	if (access(python, X_OK)) {
		print_message("SKIP: %s is not installed\n", python);
		skip();
	}
}

static void require_python(void)
{
	require(PYTHON);
}

struct calls {
	long long parse, compute, parse_in_compute, boom, gen_runs;
	/* calls of parse, compute and gen_values that ended without the
	 * return or yield seen (args.unfinished): none */
	long long unfinished;
};

static long long get_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		fail_msg("no %s in %s", key, json_object_to_json_string(o));
	return json_object_get_int64(v);
}

/* The counts py_calls.py printed (a JSON line in out). */
static struct calls must_truth(const char *out)
{
	const char *line = strchr(out, '{');
	struct json_object *o = line ? json_tokener_parse(line) : NULL;
	struct calls c = {};

	if (!o)
		fail_msg("py_calls printed no counts: '%s'", out);
	c.parse = get_int(o, "parse");
	c.compute = get_int(o, "compute");
	c.parse_in_compute = get_int(o, "parse_in_compute");
	c.boom = get_int(o, "boom");
	c.gen_runs = get_int(o, "gen_runs");
	json_object_put(o);
	return c;
}

struct span {
	long long tid;
	double ts, end;
};

static bool named(struct json_object *ev, const char *func)
{
	struct json_object *v;
	size_t n = strlen(func);

	/* the workload's own: the standard library has a parse too */
	return json_object_object_get_ex(ev, "name", &v) &&
	       !strncmp(json_object_get_string(v), func, n) &&
	       !strncmp(json_object_get_string(v) + n, " (", 2) &&
	       strstr(json_object_get_string(v), "/py_calls.py:");
}

static struct span span_of(struct json_object *ev)
{
	struct json_object *v;
	struct span s = {};

	if (json_object_object_get_ex(ev, "tid", &v))
		s.tid = json_object_get_int64(v);
	if (json_object_object_get_ex(ev, "ts", &v))
		s.ts = json_object_get_double(v);
	if (json_object_object_get_ex(ev, "dur", &v))
		s.end = s.ts + json_object_get_double(v);
	return s;
}

static bool unfinished(struct json_object *ev)
{
	struct json_object *args, *v;

	return json_object_object_get_ex(ev, "args", &args) &&
	       json_object_object_get_ex(args, "unfinished", &v) && json_object_get_boolean(v);
}

/* Whether s lies within one of the n spans of v. */
static bool inside(const struct span *v, size_t n, const struct span *s)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].tid == s->tid && s->ts >= v[i].ts && s->end <= v[i].end)
			return true;
	return false;
}

/* The calls in the Chrome JSON at path, counted as the workload counts. */
static struct calls chrome_calls(const char *path)
{
	struct json_object *doc = json_object_from_file(path), *evs, *ev, *v;
	struct span *computes, *parses;
	size_t nc = 0, np = 0;
	struct calls c = {};

	if (!doc || !json_object_object_get_ex(doc, "traceEvents", &evs))
		fail_msg("'%s' is no Chrome JSON", path);
	computes = calloc(json_object_array_length(evs) + 1, sizeof(*computes));
	parses = calloc(json_object_array_length(evs) + 1, sizeof(*parses));
	assert_non_null(computes);
	assert_non_null(parses);
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		ev = json_object_array_get_idx(evs, i);
		if (!json_object_object_get_ex(ev, "ph", &v) ||
		    strcmp(json_object_get_string(v), "X"))
			continue;
		if (named(ev, "boom")) {
			c.boom++;
			continue;
		}
		if (named(ev, "parse"))
			parses[np++] = span_of(ev);
		else if (named(ev, "compute"))
			computes[nc++] = span_of(ev);
		else if (named(ev, "gen_values"))
			c.gen_runs++;
		else
			continue;
		c.unfinished += unfinished(ev);
	}
	c.parse = np;
	c.compute = nc;
	for (size_t i = 0; i < np; i++)
		c.parse_in_compute += inside(computes, nc, &parses[i]);
	free(computes);
	free(parses);
	json_object_put(doc);
	return c;
}

static void expect_calls(const struct calls *got, const struct calls *want,
			 const struct h_result *r)
{
	print_message("calls: parse %lld/%lld (under compute %lld/%lld), compute %lld/%lld, boom "
		      "%lld/%lld, gen_values runs %lld/%lld, unfinished but boom's %lld/%lld\n",
		      got->parse, want->parse, got->parse_in_compute, want->parse_in_compute,
		      got->compute, want->compute, got->boom, want->boom, got->gen_runs,
		      want->gen_runs, got->unfinished, want->unfinished);
	if (memcmp(got, want, sizeof(*got))) {
		h_dump(r, "flamebpf");
		fail_msg("the calls traced are not the calls the program made");
	}
}

/* Runs python on the workload for rounds as a COMMAND into out (Chrome
 * JSON): every call from the first instruction, exactly. */
static void command_exact(const char *python, const char *rounds, const char *out, bool profiled)
{
	const char *argv[16] = { h_flamebpf(), "-f", REGEX, "-o", out, "--", python };
	size_t n = 7;
	struct calls got, want;
	struct h_result r;

	if (profiled) {
		static const char *const cprofile[] = { "-m", "cProfile", "-o", "/dev/null" };

		memcpy(argv + n, cprofile, sizeof(cprofile));
		n += 4;
	}
	argv[n++] = WORKLOAD;
	argv[n++] = rounds;
	assert_int_equal(h_run(&r, 60, argv), 0);
	h_assert_status(&r, 0);
	want = must_truth(r.out);
	got = chrome_calls(out);
	expect_calls(&got, &want, &r);
	if (!strstr(r.err, "Python functions matched '^(parse|compute|boom|gen_values)$'")) {
		h_dump(&r, "flamebpf");
		fail_msg("the summary does not say what matched");
	}
	h_result_free(&r);
}

static void command_exact_of(const char *python, const char *rounds, const char *out)
{
	require_bpf();
	require(python);
	command_exact(python, rounds, h_path(out), false);
}

/* Under cProfile, which 3.12 and 3.13 run through sys.monitoring: the
 * INSTRUMENTED_ handlers, and each function's first RESUME running twice
 * (it instruments the code, then runs again as INSTRUMENTED_RESUME). */
static void profiled_exact(const char *python)
{
	require_bpf();
	require(python);
	command_exact(python, "100", h_path("py_profiled.json"), true);
}

static void test_command_exact(void **state)
{
	(void)state;
	command_exact_of(PYTHON, "300", "py_command.json");
}

/* pyenv's builds: launchers of libpython3.N.so, whose evaluation loops keep
 * the frame in other registers than Debian's; 3.12's and 3.13's return
 * handlers move on to the caller's frame before their first branch, and
 * 3.13's RESUME_CHECK deoptimises into RESUME. */
static void test_pyenv311_exact(void **state)
{
	(void)state;
	command_exact_of(PY311, "100", "py_311.json");
}

static void test_pyenv312_exact(void **state)
{
	(void)state;
	command_exact_of(PY312, "100", "py_312.json");
}

static void test_pyenv313_exact(void **state)
{
	(void)state;
	command_exact_of(PY313, "100", "py_313.json");
}

/* 3.10: each call a C call of _PyEval_EvalFrameDefault, caught by a uprobe
 * session; without sessions (kernels 6.6 to 6.12) by an entry probe and a
 * uretprobe on every call; classic uprobes (before 6.6) likewise. */
static void test_pyenv310_exact(void **state)
{
	(void)state;
	command_exact_of(PY310, "100", "py_310.json");
}

static void test_pyenv310_no_sessions(void **state)
{
	(void)state;
	setenv("FLAMEBPF_NO_UPROBE_SESSIONS", "1", 1);
	command_exact_of(PY310, "100", "py_310_nosession.json");
}

static int no_sessions_teardown(void **state)
{
	unsetenv("FLAMEBPF_NO_UPROBE_SESSIONS");
	return h_test_teardown(state);
}

static void test_pyenv310_classic(void **state)
{
	(void)state;
	h_classic_uprobes();
	command_exact_of(PY310, "100", "py_310_classic.json");
}

/* 3.10's cProfile, through sys.setprofile, runs the same calls */
static void test_profiled_310(void **state)
{
	(void)state;
	profiled_exact(PY310);
}

static void test_profiled_311(void **state)
{
	(void)state;
	profiled_exact(PY311);
}

static void test_profiled_312(void **state)
{
	(void)state;
	profiled_exact(PY312);
}

static void test_profiled_313(void **state)
{
	(void)state;
	profiled_exact(PY313);
}

/* A stack whose leaf is leaf (arg NULL), or leaf right under mid. */
static bool leaf_of(const char *stack, const void *arg)
{
	const char *leaf = strrchr(stack, ';'), *parent = leaf;

	if (!leaf || strncmp(leaf, ";leaf (", 7))
		return false;
	while (arg && parent > stack && *--parent != ';')
		;
	return !arg || !strncmp(parent, ";mid (", 6);
}

/* The X events of the Chrome JSON at path named func of file, counted. */
static long long chrome_count(const char *path, const char *func, const char *file)
{
	struct json_object *doc = json_object_from_file(path), *evs, *ev, *v;
	char want[4200];
	long long n = 0;

	snprintf(want, sizeof(want), "%s (%s:", func, file);
	if (!doc || !json_object_object_get_ex(doc, "traceEvents", &evs))
		fail_msg("'%s' is no Chrome JSON", path);
	for (size_t i = 0; i < json_object_array_length(evs); i++) {
		ev = json_object_array_get_idx(evs, i);
		n += json_object_object_get_ex(ev, "ph", &v) &&
		     !strcmp(json_object_get_string(v), "X") &&
		     json_object_object_get_ex(ev, "name", &v) &&
		     !strncmp(json_object_get_string(v), want, strlen(want));
	}
	json_object_put(doc);
	return n;
}

/* Coroutines: their start and each resume after an await are calls, as
 * Python's own profiler (cProfile, run on the same program) counts them;
 * an awaited coroutine runs under the one awaiting it. */
static void coroutines(const char *python)
{
	static const char *const funcs[] = { "leaf", "mid", "main" };
	const char *out = h_path("py_coro.json"), *folded = h_path("py_coro.folded");
	char path[4096];
	struct json_object *truth;
	struct h_result r, pr;
	struct h_folded f;

	require_bpf();
	require(python);
	assert_non_null(realpath("tests/workloads/py_coro.py", path));
	assert_int_equal(h_run(&pr, 30, H_ARGV(python, path, "cprofile")), 0);
	h_assert_status(&pr, 0);
	truth = json_tokener_parse(pr.out);
	if (!truth)
		fail_msg("py_coro printed no counts: '%s'", pr.out);
	assert_int_equal(h_run(&r, 60,
			       H_ARGV(h_flamebpf(), "-f", "py:^(leaf|mid|main)$", "-o", out, "-o",
				      folded, "--", python, path)),
			 0);
	h_assert_status(&r, 0);
	for (size_t i = 0; i < 3; i++) {
		long long want = get_int(truth, funcs[i]), got = chrome_count(out, funcs[i], path);

		print_message("%s: %lld calls, cProfile %lld\n", funcs[i], got, want);
		if (got != want) {
			h_dump(&r, "flamebpf");
			fail_msg("%s: %lld calls traced, cProfile counted %lld", funcs[i], got,
				 want);
		}
	}
	h_folded_must_load(folded, &f);
	if (!h_sum(&f, leaf_of, NULL) || h_sum(&f, leaf_of, "mid") != h_sum(&f, leaf_of, NULL)) {
		h_folded_dump(&f, 20);
		fail_msg("leaf does not run under mid only");
	}
	h_folded_free(&f);
	json_object_put(truth);
	h_result_free(&r);
	h_result_free(&pr);
}

static void test_coroutines(void **state)
{
	(void)state;
	coroutines(PYTHON);
}

static void test_coroutines_310(void **state)
{
	(void)state;
	coroutines(PY310);
}

static void test_coroutines_311(void **state)
{
	(void)state;
	coroutines(PY311);
}

static void test_coroutines_312(void **state)
{
	(void)state;
	coroutines(PY312);
}

static void test_coroutines_313(void **state)
{
	(void)state;
	coroutines(PY313);
}

/* Whether process pid holds a uprobe_multi link (it has attached). */
static bool has_uprobe_link(pid_t pid)
{
	char dir[64], path[320], buf[512];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", (int)pid);
	d = opendir(dir);
	while (d && !found && (e = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "r");
		while (f && !found && fgets(buf, sizeof(buf), f))
			found = strstr(buf, "uprobe_multi") != NULL;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* A running program, from the moment the probes are in: its calls begin
 * when the gate file appears, after the attach. */
static void attached_exact(const char *python)
{
	const char *out = h_path("py_attached.json"), *gate = h_path("py_gate");
	struct h_proc work, fb;
	struct h_result r, wr;
	struct calls got, want;
	double deadline;
	char pid[32];
	FILE *g;

	require_bpf();
	require(python);
	unlink(gate);
	h_start_workload(&work, H_ARGV(python, WORKLOAD, "300", gate));
	snprintf(pid, sizeof(pid), "%d", (int)work.pid);
	assert_int_equal(h_start(&fb, H_ARGV(h_flamebpf(), "-f", REGEX, "-p", pid, "-o", out)), 0);
	deadline = h_now() + 20;
	while (!has_uprobe_link(fb.pid) && h_now() < deadline)
		h_sleep(0.02);
	h_sleep(0.2);
	g = fopen(gate, "w");
	assert_non_null(g);
	fclose(g);
	assert_int_equal(h_finish(&work, 60, &wr), 0);
	assert_int_equal(wr.status, 0);
	assert_int_equal(h_finish(&fb, 30, &r), 0);
	h_assert_status(&r, 0);
	want = must_truth(wr.out);
	got = chrome_calls(out);
	expect_calls(&got, &want, &r);
	h_result_free(&r);
	h_result_free(&wr);
}

static void test_attached_exact(void **state)
{
	(void)state;
	attached_exact(PYTHON);
}

static void test_attached_310(void **state)
{
	(void)state;
	attached_exact(PY310);
}

/* 3.13's layout is read from the file under -p too */
static void test_attached_313(void **state)
{
	(void)state;
	attached_exact(PY313);
}

/* The folded output: parse under compute (helper is not traced), the
 * process's root, nothing else but the standard library's parse (in
 * stdlib_parse, a file of python's). */
static void folded_nesting(const char *python, const char *stdlib_parse)
{
	const char *out = h_path("py_nest.folded");
	struct h_result r;
	struct h_folded f;
	size_t nested = 0;

	require_bpf();
	require(python);
	h_run_folded(&r, 60, out, &f,
		     H_ARGV(h_flamebpf(), "-f", "py:^(parse|compute)$", "-o", out, "--", python,
			    WORKLOAD, "100"));
	for (size_t i = 0; i < f.n; i++) {
		const char *s = f.lines[i].stack;
		/* h_depth counts the frames under the root */
		bool ok = h_depth(s) == 1 ||
			  (h_depth(s) == 2 && strstr(s, ";compute (") && strstr(s, ";parse ("));

		nested += h_depth(s) == 2;
		/* the workload's frames name its file and each def's line */
		if (strstr(s, "py_calls.py:") &&
		    !strstr(s, ";parse (/") != !strstr(s, "/tests/workloads/py_calls.py:24)"))
			ok = false;
		if (strstr(s, ";compute (") && !strstr(s, "/tests/workloads/py_calls.py:40)"))
			ok = false;
		if (!ok || (!strstr(s, "py_calls.py:") && !strstr(s, stdlib_parse))) {
			h_folded_dump(&f, 20);
			fail_msg("unexpected stack '%s'", s);
		}
	}
	if (nested != 1) {
		h_folded_dump(&f, 20);
		fail_msg("expected one stack of parse under compute, found %zu", nested);
	}
	h_folded_free(&f);
	h_result_free(&r);
}

static void test_folded_nesting(void **state)
{
	(void)state;
	folded_nesting(PYTHON, "/re/_parser.py:");
}

static void test_folded_nesting_310(void **state)
{
	(void)state;
	folded_nesting(PY310, "/sre_parse.py:");
}

/* A version not known (Debian's python3.11 copied as python3.9), and two
 * versions in one capture: refused in one line. */
static void refused_versions(void)
{
	const char *py39 = h_path("python3.9");
	struct h_result r;
	struct h_proc p12, p13;
	char pids[64];

	assert_int_equal(h_run(&r, 20, H_ARGV("cp", PYTHON, py39)), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	assert_int_equal(
		h_run(&r, 20, H_ARGV(h_flamebpf(), "-f", "py:parse", "--", py39, "-c", "1")), 0);
	h_assert_status(&r, 2);
	assert_non_null(
		strstr(r.err, "is CPython 3.9: Python function tracing knows 3.10 to 3.13"));
	h_result_free(&r);
	if (access(PY312, X_OK) || access(PY313, X_OK))
		return;
	h_start_workload(&p12, H_ARGV(PY312, "-c", "import time; time.sleep(20)"));
	h_start_workload(&p13, H_ARGV(PY313, "-c", "import time; time.sleep(20)"));
	snprintf(pids, sizeof(pids), "%d,%d", (int)p12.pid, (int)p13.pid);
	h_sleep(0.5);
	assert_int_equal(h_run(&r, 20, H_ARGV(h_flamebpf(), "-f", "py:parse", "-p", pids)), 0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "is CPython 3.12, "));
	assert_non_null(strstr(r.err, " 3.13: one capture traces one version"));
	h_result_free(&r);
}

/* Bad regexes, no target, a target that is not Python: refused, status 2,
 * one line naming what was wrong. */
static void test_refused(void **state)
{
	struct h_result r;

	(void)state;
	require_bpf();
	require_python();
	assert_int_equal(
		h_run(&r, 20, H_ARGV(h_flamebpf(), "-f", "py:(parse", "--", PYTHON, WORKLOAD, "1")),
		0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "py:(parse"));
	h_result_free(&r);
	assert_int_equal(h_run(&r, 20, H_ARGV(h_flamebpf(), "-f", "py:parse", "-d", "1")), 0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "-p PID or a COMMAND"));
	h_result_free(&r);
	assert_int_equal(
		h_run(&r, 20, H_ARGV(h_flamebpf(), "-f", "py:parse", "--", "/bin/sleep", "1")), 0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "is not CPython"));
	h_result_free(&r);
	/* a shim, as pyenv's: a script that execs the interpreter it picks */
	h_write_file(h_path("python"), "#!/bin/sh\nexec " PYTHON " \"$@\"\n", 0755);
	assert_int_equal(h_run(&r, 20,
			       H_ARGV(h_flamebpf(), "-f", "py:parse", "--", h_path("python"),
				      WORKLOAD, "1")),
			 0);
	h_assert_status(&r, 2);
	if (!strstr(r.err, "is a script run by /") ||
	    !strstr(r.err, "sh, not CPython: name the interpreter"))
		fail_msg("a shim not said as such: %s", r.err);
	h_result_free(&r);
	assert_int_equal(h_run(&r, 20,
			       H_ARGV(h_flamebpf(), "-f", "py:parse", "-f", "malloc", "--", PYTHON,
				      WORKLOAD, "1")),
			 0);
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "cannot be traced with native ones"));
	h_result_free(&r);
	refused_versions();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_command_exact, h_test_teardown),
		cmocka_unit_test_teardown(test_attached_exact, h_test_teardown),
		cmocka_unit_test_teardown(test_pyenv311_exact, h_test_teardown),
		cmocka_unit_test_teardown(test_pyenv312_exact, h_test_teardown),
		cmocka_unit_test_teardown(test_pyenv313_exact, h_test_teardown),
		cmocka_unit_test_teardown(test_attached_313, h_test_teardown),
		cmocka_unit_test_teardown(test_pyenv310_exact, h_test_teardown),
		cmocka_unit_test_teardown(test_pyenv310_no_sessions, no_sessions_teardown),
		cmocka_unit_test_teardown(test_pyenv310_classic, h_classic_teardown),
		cmocka_unit_test_teardown(test_attached_310, h_test_teardown),
		cmocka_unit_test_teardown(test_profiled_310, h_test_teardown),
		cmocka_unit_test_teardown(test_profiled_311, h_test_teardown),
		cmocka_unit_test_teardown(test_profiled_312, h_test_teardown),
		cmocka_unit_test_teardown(test_profiled_313, h_test_teardown),
		cmocka_unit_test_teardown(test_folded_nesting, h_test_teardown),
		cmocka_unit_test_teardown(test_folded_nesting_310, h_test_teardown),
		cmocka_unit_test_teardown(test_coroutines, h_test_teardown),
		cmocka_unit_test_teardown(test_coroutines_310, h_test_teardown),
		cmocka_unit_test_teardown(test_coroutines_311, h_test_teardown),
		cmocka_unit_test_teardown(test_coroutines_312, h_test_teardown),
		cmocka_unit_test_teardown(test_coroutines_313, h_test_teardown),
		cmocka_unit_test_teardown(test_refused, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("py_trace", tests, h_group_setup, h_group_teardown);
}
