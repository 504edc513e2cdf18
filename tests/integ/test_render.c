// SPDX-License-Identifier: GPL-2.0
/*
 * flamebpf render: files in tests/data read back and written out (no BPF).
 * Folded round-trips byte for byte; perf script text folds as
 * stackcollapse-perf.pl --kernel (--pid, --tid) folds it, but counting
 * samples (--period: periods, as the script does); the format is
 * told from the content whatever the extension; bad inputs fail with the
 * file and line named, exit 1, and leave no output behind; usage errors
 * exit 2.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *data(const char *name)
{
	static char paths[8][256];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "tests/data/%s", name);
	return p;
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void copy_file(const char *from, const char *to)
{
	char *text = h_slurp(from);

	assert_non_null(text);
	write_file(to, text, strlen(text));
	free(text);
}

/* Runs flamebpf render ARGS...; the result is R's to free. */
static void render(struct h_result *r, const char *const args[])
{
	const char *argv[24] = { h_flamebpf(), "render" };
	size_t n = 2;

	for (size_t i = 0; args[i] && n < 23; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	assert_int_equal(h_run(r, 30, argv), 0);
}

/* flamebpf render IN -o OUT [EXTRA] must write exactly the file WANT. */
static void expect_output(const char *in, const char *extra, const char *want)
{
	const char *out = h_path("out.folded");
	char *got, *expected = h_slurp(data(want));
	struct h_result r;

	assert_non_null(expected);
	unlink(out);
	render(&r, extra ? H_ARGV(in, "-o", out, extra) : H_ARGV(in, "-o", out));
	h_assert_status(&r, 0);
	got = h_slurp(out);
	assert_non_null(got);
	if (strcmp(got, expected)) {
		print_message("%s %s: got\n%s\nwanted\n%s\n", in, extra ? extra : "", got,
			      expected);
		fail_msg("render %s does not give %s", in, want);
	}
	free(got);
	free(expected);
	h_result_free(&r);
}

static void test_folded_round_trip(void **state)
{
	(void)state;
	expect_output(data("roundtrip.folded"), NULL, "roundtrip.folded");
	expect_output(data("perf-modern.folded"), NULL, "perf-modern.folded");
	expect_output(data("perf-old-pids.folded"), "--format=folded", "perf-old-pids.folded");
}

static void test_perf_like_stackcollapse(void **state)
{
	(void)state;
	expect_output(data("perf-modern.perf"), NULL, "perf-modern.folded");
	expect_output(data("perf-old.perf"), NULL, "perf-old.folded");
	expect_output(data("perf-old.perf"), "--pids", "perf-old-pids.folded");
	expect_output(data("perf-old.perf"), "--tids", "perf-old-tids.folded");
	expect_output(data("perf-sched.perf"), NULL, "perf-sched.folded");
	expect_output(data("perf-nocallchain.perf"), NULL, "perf-nocallchain.folded");
	expect_output(data("perf-real-cpuclock.perf"), NULL, "perf-real-cpuclock.folded");
	expect_output(data("perf-real-sched.perf"), NULL, "perf-real-sched.folded");
}

/* --period: each record weighs its period, as stackcollapse-perf.pl does. */
static void test_perf_period(void **state)
{
	(void)state;
	expect_output(data("perf-modern.perf"), "--period", "perf-modern-period.folded");
	expect_output(data("perf-nocallchain.perf"), "--period", "perf-nocallchain-period.folded");
	expect_output(data("perf-real-cpuclock.perf"), "--period",
		      "perf-real-cpuclock-period.folded");
	expect_output(data("perf-real-faults.perf"), "--period", "perf-real-faults-period.folded");
	expect_output(data("perf-real-faults.perf"), NULL, "perf-real-faults.folded");
	/* no periods, or all of 1: the same as without it */
	expect_output(data("perf-old.perf"), "--period", "perf-old.folded");
	expect_output(data("perf-real-sched.perf"), "--period", "perf-real-sched.folded");
}

/* --top N keeps the N processes with the most samples (the lower pid of
 * two equal), by root name in folded input, and says their share. */
static void test_top(void **state)
{
	const char *out = h_path("top.folded");
	char *got, *want = h_slurp(data("perf-old-top2.folded"));
	struct h_folded f;
	struct h_result r;

	(void)state;
	render(&r, H_ARGV("--top", "2", "--pids", data("perf-old.perf"), "-o", out));
	h_assert_status(&r, 0);
	assert_non_null(strstr(r.err, "top 2 processes of 3: 80.0% of the samples"));
	h_result_free(&r);
	got = h_slurp(out);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	free(want);
	render(&r, H_ARGV("--top", "1", "--pids", data("perf-old.perf"), "-o", out));
	h_folded_must_load(out, &f);
	assert_int_equal(f.n, 1);
	assert_non_null(strstr(f.lines[0].stack, "java-4242;"));
	h_folded_free(&f);
	h_result_free(&r);
	/* the timeline keeps the events of the processes kept, no others */
	render(&r, H_ARGV("--top", "1", data("perf-old.perf"), "-o", h_path("top.json")));
	h_assert_status(&r, 0);
	got = h_slurp(h_path("top.json"));
	assert_non_null(strstr(got, "\"pid\":4242"));
	assert_null(strstr(got, "\"pid\":5150"));
	assert_null(strstr(got, "\"pid\":7000"));
	free(got);
	h_result_free(&r);
	render(&r, H_ARGV("--top", "1", data("perf-real-cpuclock.folded"), "-o", out));
	assert_non_null(strstr(r.err, "top 1 process of 2: 93.8% of the samples"));
	h_folded_must_load(out, &f);
	for (size_t i = 0; i < f.n; i++)
		assert_true(!strncmp(f.lines[i].stack, "sh;", 3));
	h_folded_free(&f);
	h_result_free(&r);
	render(&r, H_ARGV("--top", "0", data("perf-old.perf")));
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "invalid --top '0'"));
	h_result_free(&r);
}

static void test_chrome(void **state)
{
	(void)state;
	expect_output(data("chrome-nested.json"), NULL, "chrome-nested.folded");
	expect_output(data("chrome-nested.json"), "--tids", "chrome-nested-tids.folded");
}

/* The content decides, not the extension. */
static void test_misleading_extension(void **state)
{
	(void)state;
	copy_file(data("perf-old.perf"), h_path("really-perf.json"));
	copy_file(data("chrome-nested.json"), h_path("really-chrome.folded"));
	copy_file(data("roundtrip.folded"), h_path("really-folded.perf"));
	expect_output(h_path("really-perf.json"), NULL, "perf-old.folded");
	expect_output(h_path("really-chrome.folded"), NULL, "chrome-nested.folded");
	expect_output(h_path("really-folded.perf"), NULL, "roundtrip.folded");
}

static void test_stdin_stdout(void **state)
{
	char cmd[1024];
	struct h_result r;
	char *want = h_slurp(data("perf-old.folded"));

	(void)state;
	snprintf(cmd, sizeof(cmd), "'%s' render - < %s", h_flamebpf(), data("perf-old.perf"));
	assert_int_equal(h_run(&r, 30, H_ARGV("sh", "-c", cmd)), 0);
	h_assert_status(&r, 0);
	assert_string_equal(r.out, want);
	/* the note about the other event names the input */
	assert_non_null(strstr(r.err, "'instructions'"));
	free(want);
	h_result_free(&r);
}

/* A bad input: exit 1, its name (and line) in the first line of stderr, no
 * output file, and an older output left as it was. */
static void expect_bad_input(const char *in, const char *what)
{
	const char *out = h_path("bad.folded");
	struct h_result r;
	char *kept;

	write_file(out, "older 1\n", 8);
	render(&r, H_ARGV(in, "-o", out));
	h_assert_status(&r, 1);
	print_message("%s -> %s", in, r.err);
	if (strncmp(r.err, "flamebpf: ", 10) || !strstr(r.err, in) || !strstr(r.err, what)) {
		h_dump(&r, "flamebpf render");
		fail_msg("stderr does not name '%s' and '%s'", in, what);
	}
	assert_true(h_count_lines(r.err) == 1);
	assert_string_equal(r.out, "");
	kept = h_slurp(out);
	assert_string_equal(kept, "older 1\n");
	free(kept);
	unlink(out);
	render(&r, H_ARGV(in, "-o", out));
	assert_false(h_exists(out));
	h_result_free(&r);
}

static void bad_text(const char *name, const char *text, const char *what)
{
	write_file(h_path(name), text, strlen(text));
	expect_bad_input(h_path(name), what);
}

static void test_bad_inputs(void **state)
{
	char *json = h_slurp(data("chrome-nested.json"));

	(void)state;
	bad_text("garbage.folded", "this is not\na profile at all\n",
		 "line 1: not a profile (folded stacks, perf script text, a chrome trace or a "
		 "flamebpf HTML report)");
	bad_text("binary.perf",
		 "\x7f"
		 "ELF\x02\x01\x01\x00\x00\x00",
		 "not a profile");
	bad_text("empty.folded", "", "is empty: no stacks in it");
	bad_text("blank.folded", "\n\n   \n", "is empty");
	bad_text("count.folded", "a;b 1\na;c 2.5\n", "line 2: count '2.5' is not a whole number");
	json[strlen(json) / 2] = '\0';
	bad_text("truncated.json", json, "line 8: the JSON ends early (truncated?)");
	expect_bad_input(h_path("no-such-file.perf"), "No such file or directory");
	expect_bad_input(h_tmpdir(), "Is a directory");
	free(json);
}

/* pprof is an output format: flamebpf's own, given back, is named as one
 * (not "line 1"), and so is a gzip'd folded file. */
static void test_pprof_input(void **state)
{
	const char *pb = h_path("written.pb.gz"), *gz = h_path("folded.gz");
	char cmd[1024];
	struct h_result r;

	(void)state;
	render(&r, H_ARGV(data("roundtrip.folded"), "-o", pb));
	h_assert_status(&r, 0);
	h_result_free(&r);
	expect_bad_input(pb, "is a pprof profile (gzip'd protobuf): flamebpf writes pprof but "
			     "does not read it");
	snprintf(cmd, sizeof(cmd), "gzip -c %s > %s", data("roundtrip.folded"), gz);
	assert_int_equal(h_run(&r, 30, H_ARGV("sh", "-c", cmd)), 0);
	h_assert_status(&r, 0);
	h_result_free(&r);
	expect_bad_input(gz, "is gzip-compressed: decompress it first");
}

/* IN rendered with ARGS: exit 0, folded WANT, and NLINES lines on stderr
 * that name IN and hold each of NOTES. */
static void expect_lenient(const char *name, const char *text, const char *const args[],
			   const char *want, size_t nlines, const char *const notes[])
{
	const char *in = h_path(name), *out = h_path("lenient.folded");
	const char *argv[16] = { in, "-o", out };
	struct h_result r;
	size_t n = 3;
	char *got;

	write_file(in, text, strlen(text));
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	render(&r, argv);
	h_assert_status(&r, 0);
	got = h_slurp(out);
	assert_non_null(got);
	if (strcmp(got, want))
		fail_msg("%s: got\n%s--- wanted\n%s---", name, got, want);
	for (size_t i = 0; notes[i]; i++)
		if (!strstr(r.err, notes[i]) || !strstr(r.err, in)) {
			h_dump(&r, "flamebpf render");
			fail_msg("%s: stderr does not say '%s'", name, notes[i]);
		}
	assert_int_equal(h_count_lines(r.err), nlines);
	free(got);
	h_result_free(&r);
}

/* Without a PID, perf output prints the TID alone, as perf does; chrome
 * makes each thread a process of its own; pprof has no pid label. */
static void expect_unknown_pid_outputs(void)
{
	const char *in = h_path("tid-only.perf"), *perf = h_path("tid-only.out.perf");
	const char *json = h_path("tid-only.json");
	struct h_result r;
	char *text;
	const char *text_in = "a 7 [001] 1.5: cycles:\n\t 1 f (/a)\n\n";

	write_file(in, text_in, strlen(text_in));
	render(&r, H_ARGV(in, "-o", perf, "-o", json));
	h_assert_status(&r, 0);
	h_result_free(&r);
	text = h_slurp(perf);
	assert_non_null(text);
	if (strncmp(text, "a     7 [001]     1.500000: ", 28))
		fail_msg("perf output '%.60s'", text);
	free(text);
	text = h_slurp(json);
	assert_non_null(strstr(text, "\"pid\":7,\"tid\":7"));
	assert_null(strstr(text, "4294967295"));
	free(text);
}

/*
 * What stackcollapse-perf.pl and inferno read is read: a file cut by head,
 * an empty line or an odd line inside a record, perf script's default
 * fields under --pids, records without call graphs, old perf's layout;
 * each said once on stderr.
 */
static void test_lenient_inputs(void **state)
{
	(void)state;
	expect_lenient("truncated.perf",
		       "a 1 1.0: cycles:\n\t 1 f (/a)\n\nb 1 1.1: cycles:\n\t 2 g (/a)\n",
		       H_ARGV(NULL), "a;f 1\nb;g 1\n", 1,
		       H_ARGV("without the empty line after its last record"));
	expect_lenient(
		"mid-line.perf",
		"a 1 1.0: cycles:\n\t 1 f (/a)\n\nb 1 1.1: cycles:\n\t 3 h (/a)\n\t 2 g (/us",
		H_ARGV(NULL), "a;f 1\nb;h 1\n", 1,
		H_ARGV("without a newline (cut short?)",
		       "less that line, a frame that may be cut"));
	expect_lenient("odd.perf",
		       "a 1 1.0: cycles:\n\t 1 f (/a)\n\n\t 2 g (/a)\n\nb 1 1.1: cycles:\n\t what\n"
		       "\t 3 h (/a)\n\n",
		       H_ARGV(NULL), "a;f 1\nb;h 1\n", 1,
		       H_ARGV("warning: 2 lines of", "the first: line 4)"));
	expect_lenient("hand.folded", "# by hand\na;b 1\na;c\na;d\t2\nwhat\n", H_ARGV(NULL),
		       "a;b 1\na;d 2\n", 1,
		       H_ARGV("warning: 2 lines of", "not 'ROOT;FRAME;... COUNT'; the first: line 3)"));
	expect_lenient("tid-only.perf", "a 7 1.0: cycles:\n\t 1 f (/a)\n\n", H_ARGV("--tids"),
		       "a-?/7;f 1\n", 1, H_ARGV("1 records of", "their roots read COMM-?"));
	expect_lenient("no-g.perf",
		       "false 39654 19115.489719: 1 cycles: 7fa68b1f2d84 _dl_start+0x4 (/l.so)\n"
		       "false 39654 19115.489801: 1 cycles: 7fa68b1f2d90 _dl_start+0x10 (/l.so)\n",
		       H_ARGV(NULL), "false;_dl_start 2\n", 0, H_ARGV(NULL));
	expect_lenient("event.perf",
		       "a 1 1.0: cycles:\n\t 1 f (/a)\n\na 1 1.1: instructions:\n\t 2 g (/a)\n\n",
		       H_ARGV("--event", "instructions:"), "a;g 1\n", 1,
		       H_ARGV("only the 'instructions' records"));
	expect_output(data("perf-old-unindented.perf"), "--tids",
		      "perf-old-unindented-tids.folded");
	expect_unknown_pid_outputs();
}

/* Usage errors: exit 2, one line naming what was wrong, nothing written. */
static void expect_usage_error(const char *const args[], const char *what)
{
	const char *out = h_path("usage.folded");
	const char *argv[24] = { h_flamebpf(), "render" };
	struct h_result r;
	size_t n = 2;

	argv[n++] = "-o";
	argv[n++] = out;
	for (size_t i = 0; args[i] && n < 23; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	unlink(out);
	assert_int_equal(h_run(&r, 30, argv), 0);
	h_assert_status(&r, 2);
	print_message("%s -> %s", what, r.err);
	if (strncmp(r.err, "flamebpf: ", 10) || !strstr(r.err, what))
		fail_msg("stderr does not name '%s'", what);
	assert_true(h_count_lines(r.err) == 1);
	assert_false(h_exists(out));
	h_result_free(&r);
}

static void test_usage_errors(void **state)
{
	const char *folded = data("roundtrip.folded");

	(void)state;
	expect_usage_error(H_ARGV("--format", "jpeg", folded), "unknown format 'jpeg'");
	expect_usage_error(H_ARGV("--no-such", folded), "unknown option '--no-such'");
	expect_usage_error(H_ARGV("-x", folded), "unknown option '-x'");
	expect_usage_error(H_ARGV("--format"), "option '--format' needs a value");
	expect_usage_error(H_ARGV("--pids"), "render needs an input file");
	expect_usage_error(H_ARGV(folded, folded), "is one too many");
	/* what folded stacks cannot give */
	expect_usage_error(H_ARGV(folded, "--format", "chrome"), "no times: the chrome output");
	expect_usage_error(H_ARGV(folded, "--format", "perf"), "no times: the perf output");
	expect_usage_error(H_ARGV(folded, "--flamechart"), "no times: the --flamechart output");
	expect_usage_error(H_ARGV(folded, "-o", h_path("x.html")), "no times: the html output");
	expect_usage_error(H_ARGV(folded, "--pids"), "no process ids for --pids");
	expect_usage_error(H_ARGV(folded, "--event", ""), "--event needs an event name");
}

/* The same bytes in both files, which may hold NULs (pprof is gzip'd). */
static bool same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca = 0, cb = 0;

	while (same && ca != EOF) {
		ca = fgetc(fa);
		cb = fgetc(fb);
		same = ca == cb;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* Several -o: one reading, each output what rendering to it alone gives;
 * what one of them cannot have stops the run before anything is written. */
static void test_several_outputs(void **state)
{
	static const char *const ext[] = { "folded", "svg", "pb.gz", "json", "perf" };
	const char *in = data("perf-real-cpuclock.perf"), *folded = data("roundtrip.folded");
	char all[5][256], one[5][256];
	struct h_result r;

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		snprintf(all[i], sizeof(all[i]), "%s.%s", h_path("all"), ext[i]);
		snprintf(one[i], sizeof(one[i]), "%s.%s", h_path("alone"), ext[i]);
		render(&r, H_ARGV(in, "-o", one[i]));
		h_assert_status(&r, 0);
		h_result_free(&r);
	}
	render(&r,
	       H_ARGV(in, "-o", all[0], "-o", all[1], "-o", all[2], "-o", all[3], "-o", all[4]));
	h_assert_status(&r, 0);
	h_result_free(&r);
	for (size_t i = 0; i < 5; i++)
		if (!same_bytes(all[i], one[i]))
			fail_msg("%s differs from the same output rendered alone", all[i]);

	for (size_t i = 0; i < 5; i++)
		unlink(all[i]);
	render(&r, H_ARGV(folded, "-o", all[1], "-o", all[3]));
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "no times: the chrome output"));
	assert_false(h_exists(all[1]) || h_exists(all[3]));
	h_result_free(&r);
	render(&r, H_ARGV(in, "-o", all[0], "-o", all[0]));
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "named by two -o"));
	h_result_free(&r);
	render(&r, H_ARGV(in, "--format", "svg", "-o", all[0], "-o", all[1]));
	h_assert_status(&r, 2);
	assert_non_null(strstr(r.err, "--format is for one output"));
	assert_false(h_exists(all[0]) || h_exists(all[1]));
	h_result_free(&r);
}

static void test_help(void **state)
{
	struct h_result r;

	(void)state;
	render(&r, H_ARGV("--help"));
	h_assert_status(&r, 0);
	assert_non_null(strstr(r.out, "usage: flamebpf render [OPTIONS] INPUT"));
	assert_non_null(strstr(r.out, "--period"));
	h_result_free(&r);
}

static void test_unwritable_output(void **state)
{
	struct h_result r;

	(void)state;
	render(&r, H_ARGV(data("roundtrip.folded"), "-o", "/proc/no/such/dir/x.folded"));
	h_assert_status(&r, 1);
	assert_non_null(strstr(r.err, "cannot write '/proc/no/such/dir/x.folded'"));
	h_result_free(&r);
}

/* perf input keeps each record's time: time-ordered folded output. */
static void test_flamechart_from_perf(void **state)
{
	const char *out = h_path("chart.folded");
	struct h_result r;
	struct h_folded f;

	(void)state;
	render(&r, H_ARGV(data("perf-modern.perf"), "--flamechart", "-o", out));
	h_assert_status(&r, 0);
	h_flamechart_must_load(out, &f);
	/* runs of samples: each line counts samples, not periods */
	assert_int_equal(f.total, 8);
	h_folded_free(&f);
	h_result_free(&r);
}

/* Writing perf script text and reading it back gives the same stacks. */
static void test_perf_round_trip(void **state)
{
	const char *out = h_path("again.perf");
	struct h_result r;

	(void)state;
	render(&r, H_ARGV(data("perf-modern.perf"), "-o", out));
	if (r.status == 1 && strstr(r.err, "not available")) {
		h_result_free(&r);
		print_message("SKIP: the perf output is not available in this build\n");
		skip();
	}
	h_assert_status(&r, 0);
	h_result_free(&r);
	expect_output(out, NULL, "perf-modern.folded");
}

/* The HTML report from a perf script: the page, with the data element
 * holding every record as an event, and --format html whatever the name. */
static void test_html(void **state)
{
	const char *out = h_path("x.html"), *other = h_path("x.page");
	struct h_result r;
	char *page, *ev;

	(void)state;
	render(&r, H_ARGV(data("perf-real-cpuclock.perf"), "-o", out));
	h_assert_status(&r, 0);
	h_result_free(&r);
	page = h_slurp(out);
	assert_non_null(page);
	assert_true(!strncmp(page, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(page, "<script type=\"application/json\" id=\"flamebpf-data\">"));
	ev = strstr(page, "\"events\":{\"n\":");
	assert_non_null(ev);
	assert_true(atoi(ev + strlen("\"events\":{\"n\":")) > 0);
	assert_non_null(strstr(page, "</html>\n"));
	render(&r, H_ARGV(data("perf-real-cpuclock.perf"), "--format", "html", "-o", other));
	h_assert_status(&r, 0);
	h_result_free(&r);
	free(page);
	page = h_slurp(other);
	assert_non_null(page);
	assert_true(!strncmp(page, "<!DOCTYPE html>", 15));
	free(page);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_folded_round_trip, h_test_teardown),
		cmocka_unit_test_teardown(test_perf_like_stackcollapse, h_test_teardown),
		cmocka_unit_test_teardown(test_perf_period, h_test_teardown),
		cmocka_unit_test_teardown(test_top, h_test_teardown),
		cmocka_unit_test_teardown(test_chrome, h_test_teardown),
		cmocka_unit_test_teardown(test_misleading_extension, h_test_teardown),
		cmocka_unit_test_teardown(test_stdin_stdout, h_test_teardown),
		cmocka_unit_test_teardown(test_bad_inputs, h_test_teardown),
		cmocka_unit_test_teardown(test_pprof_input, h_test_teardown),
		cmocka_unit_test_teardown(test_lenient_inputs, h_test_teardown),
		cmocka_unit_test_teardown(test_usage_errors, h_test_teardown),
		cmocka_unit_test_teardown(test_several_outputs, h_test_teardown),
		cmocka_unit_test_teardown(test_help, h_test_teardown),
		cmocka_unit_test_teardown(test_unwritable_output, h_test_teardown),
		cmocka_unit_test_teardown(test_flamechart_from_perf, h_test_teardown),
		cmocka_unit_test_teardown(test_perf_round_trip, h_test_teardown),
		cmocka_unit_test_teardown(test_html, h_test_teardown),
	};

	h_init(argc, argv);
	return cmocka_run_group_tests_name("render", tests, h_group_setup, h_group_teardown);
}
