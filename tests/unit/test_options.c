/* Unit tests of src/cli/options.c: the number parsers one input at a time, then
 * whole command lines through options__parse().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

#define MAX_ARGS    16
#define MAX_ARG_LEN 64

/* A writable argv, as the kernel hands one to main(). */
struct args {
	char buf[MAX_ARGS][MAX_ARG_LEN];
	char *argv[MAX_ARGS + 1];
	int argc;
};

/* The argument list after the program name, NULL-terminated. */
#define ARGS(...) ((const char *const[]){ "flamebpf", __VA_ARGS__, NULL })
#define NO_ARGS	  ((const char *const[]){ "flamebpf", NULL })

static void args_init(struct args *a, const char *const *list)
{
	memset(a, 0, sizeof(*a));
	for (; list[a->argc]; a->argc++) {
		assert_true(a->argc < MAX_ARGS);
		assert_true(strlen(list[a->argc]) < MAX_ARG_LEN);
		strcpy(a->buf[a->argc], list[a->argc]);
		a->argv[a->argc] = a->buf[a->argc];
	}
	a->argv[a->argc] = NULL;
}

/* Parses list as options__parse() alone does; err starts empty so a
 * failure's message is its own. */
static int parse_raw(struct args *a, const char *const *list, struct options *o, char *err)
{
	args_init(a, list);
	err[0] = '\0';
	return options__parse(a->argc, a->argv, o, err);
}

/* Makes glibc's getopt forget where it was inside a previous argv: optind = 0
 * reinitialises it (with the ordering that a leading '+' selects, as
 * options__parse asks for), and an empty command line leaves it at optind 1. */
static void reset_getopt(void)
{
	char prog[] = "reset";
	char *argv[] = { prog, NULL };

	optind = 0;
	opterr = 0;
	assert_int_equal(getopt(1, argv, "+"), -1);
}

/* Parses list from a fully reset getopt, so that no test depends on the ones
 * before it; test_parse_twice_* check that options__parse() resets it itself. */
static int parse(struct args *a, const char *const *list, struct options *o, char *err)
{
	reset_getopt();
	return parse_raw(a, list, o, err);
}

/* Parses list, which must be accepted. */
static void parse_ok(struct args *a, const char *const *list, struct options *o)
{
	char err[OPTIONS_ERR_LEN];
	int ret = parse(a, list, o, err);

	if (ret)
		fail_msg("%s ...: returned %d: %s", list[1] ? list[1] : "", ret, err);
}

static void assert_contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("expected \"%s\" in \"%s\"", part, text);
}

/* Checks that list is a usage error whose message holds each of the parts. */
static void expect_usage_error(const char *const *list, const char *part1, const char *part2)
{
	char err[OPTIONS_ERR_LEN];
	struct options o;
	struct args a;

	assert_int_equal(parse(&a, list, &o, err), -EINVAL);
	assert_true(err[0] != '\0');
	assert_true(strlen(err) < OPTIONS_ERR_LEN);
	assert_null(strchr(err, '\n'));
	assert_contains(err, part1);
	if (part2)
		assert_contains(err, part2);
	options__free(&o);
}

static void expect_freq(const char *s, unsigned int want)
{
	unsigned int hz = 12345;
	int ret = options__parse_freq(s, &hz);

	if (ret)
		fail_msg("'%s': returned %d, expected %u Hz", s, ret, want);
	if (hz != want)
		fail_msg("'%s': got %u Hz, expected %u", s, hz, want);
}

static void expect_bad_freq(const char *s)
{
	unsigned int hz = 12345;
	int ret = options__parse_freq(s, &hz);

	if (ret != -EINVAL)
		fail_msg("'%s': returned %d (%u Hz), expected -EINVAL", s, ret, hz);
	assert_int_equal(hz, 12345);
}

static void test_freq_ok(void **state)
{
	(void)state;
	expect_freq("99", 99);
	expect_freq("99hz", 99);
	expect_freq("99Hz", 99);
	expect_freq("99HZ", 99);
	expect_freq("1khz", 1000);
	expect_freq("1kHz", 1000);
	expect_freq("1KHZ", 1000);
	expect_freq("4999hz", 4999);
	expect_freq("1", 1);
	expect_freq("1000000", 1000000);
	expect_freq("1000khz", 1000000);
}

static void test_freq_bad(void **state)
{
	static const char *const bad[] = {
		"",	   "0",	      "abc",	 "99x",	   "-5",
		"+5",	   " 99",     "99 hz",	 "1.5khz", "99999999999999999999",
		"2000000", "1000001", "1001khz", "0khz",   "hz",
		"khz",	   "99hzz",   "99h",	 "0x10",   "99hz ",
		"1e3",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_bad_freq(bad[i]);
}

/* 18446744073709552 * 1000 is 2^64 + 384: the kHz multiplication must not wrap
 * into a small, valid-looking frequency. */
static void test_freq_khz_overflow(void **state)
{
	(void)state;
	expect_bad_freq("18446744073709552khz");
	expect_bad_freq("18446744073709551615khz");
	expect_bad_freq("18446744073709552000khz");
}

static void expect_duration(const char *s, double want)
{
	double secs = -7;
	int ret = options__parse_duration(s, &secs);

	if (ret)
		fail_msg("'%s': returned %d, expected %g s", s, ret, want);
	if (secs != want)
		fail_msg("'%s': got %.17g s, expected %.17g", s, secs, want);
}

static void expect_bad_duration(const char *s)
{
	double secs = -7;
	int ret = options__parse_duration(s, &secs);

	if (ret != -EINVAL)
		fail_msg("'%s': returned %d (%g s), expected -EINVAL", s, ret, secs);
	assert_true(secs == -7);
}

static void test_duration(void **state)
{
	static const char *const bad[] = {
		"0",	"-1",	"abc", "1s", "",    "inf",  "nan",
		"1e30", "-0.5", "0.0", "1 ", "INF", "-inf",
	};

	(void)state;
	expect_duration("1", 1.0);
	expect_duration("0.5", 0.5);
	expect_duration("2.25", 2.25);
	expect_duration("10", 10.0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_bad_duration(bad[i]);
}

static void expect_pids(const char *s, const pid_t *want, size_t nwant)
{
	pid_t *pids = NULL;
	size_t n = 0;
	int ret = options__parse_pids(s, &pids, &n);

	if (ret)
		fail_msg("'%s': returned %d", s, ret);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < nwant; i++)
		assert_int_equal(pids[i], want[i]);
	free(pids);
}

static void expect_bad_pids(const char *s)
{
	pid_t *pids = NULL;
	size_t n = 0;
	int ret = options__parse_pids(s, &pids, &n);

	free(pids);
	if (ret != -EINVAL)
		fail_msg("'%s': returned %d, expected -EINVAL", s, ret);
}

static void test_pids(void **state)
{
	static const char *const bad[] = {
		"",   ",",  "1,",  ",1",	 "1,,2", "a",	"-1", "0", "1 2", "99999999999",
		"+1", " 1", "1;2", "2147483648", "1,a",	 "1,0", "1x",
	};
	static const pid_t one[] = { 1 }, three[] = { 1, 2, 3 }, order[] = { 30, 1, 2147483647 };

	(void)state;
	expect_pids("1", one, 1);
	expect_pids("1,2,3", three, 3);
	expect_pids("30,1,2147483647", order, 3);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_bad_pids(bad[i]);
}

/* A second list is appended to the first (repeated -p). */
static void test_pids_append(void **state)
{
	pid_t *pids = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(options__parse_pids("5,6", &pids, &n), 0);
	assert_int_equal(options__parse_pids("7", &pids, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(pids[0], 5);
	assert_int_equal(pids[1], 6);
	assert_int_equal(pids[2], 7);
	free(pids);
}

static void test_parse_sample_defaults(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a, ARGS("--sample", "99"), &o);
	assert_int_equal(o.capture.freq, 99);
	assert_true(o.capture.duration == 0);
	assert_null(o.capture.pids);
	assert_int_equal(o.capture.npids, 0);
	assert_null(o.capture.command);
	assert_string_equal(o.output, "-");
	assert_int_equal(o.format, FORMAT_FOLDED);
	assert_int_equal(o.root, ROOT_COMM);
	assert_false(o.capture.user_only);
	assert_false(o.capture.kernel_only);
	assert_false(o.flamechart);
	assert_int_equal(o.verbose, 0);
	assert_false(o.help);
	assert_false(o.version);
	options__free(&o);

	parse_ok(&a, ARGS("-F", "1khz"), &o);
	assert_int_equal(o.capture.freq, 1000);
	options__free(&o);

	parse_ok(&a, ARGS("-F49"), &o);
	assert_int_equal(o.capture.freq, 49);
	options__free(&o);

	parse_ok(&a, ARGS("--sample=4999hz"), &o);
	assert_int_equal(o.capture.freq, 4999);
	options__free(&o);
}

static void test_parse_bad_values(void **state)
{
	(void)state;
	expect_usage_error(ARGS("-F", "99x"), "'99x'", "frequency");
	expect_usage_error(ARGS("--sample", "0"), "'0'", "frequency");
	expect_usage_error(ARGS("-F", "99", "-d", "0"), "'0'", "duration");
	expect_usage_error(ARGS("-F", "99", "-d", "abc"), "'abc'", "duration");
	expect_usage_error(ARGS("-F", "99", "-p", "1,,2"), "'1,,2'", "pid");
	expect_usage_error(ARGS("-F", "99", "-p", "1,"), "'1,'", "pid");
}

static void test_parse_targets(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a, ARGS("-F", "99", "-p", "1,2", "-p", "3", "-d", "0.5"), &o);
	assert_int_equal(o.capture.npids, 3);
	assert_int_equal(o.capture.pids[0], 1);
	assert_int_equal(o.capture.pids[1], 2);
	assert_int_equal(o.capture.pids[2], 3);
	assert_true(o.capture.duration == 0.5);
	assert_null(o.capture.command);
	options__free(&o);
	assert_null(o.capture.pids);
	assert_int_equal(o.capture.npids, 0);

	parse_ok(&a, ARGS("--pid", "42", "--duration", "2.25", "--sample", "99"), &o);
	assert_int_equal(o.capture.npids, 1);
	assert_int_equal(o.capture.pids[0], 42);
	assert_true(o.capture.duration == 2.25);
	assert_int_equal(o.capture.freq, 99);
	assert_false(o.capture.all);
	options__free(&o);

	/* perf's habits: -a -g -- sleep N samples every process while it runs */
	parse_ok(&a, ARGS("-F", "99", "-a", "-g", "--", "sleep", "1"), &o);
	assert_true(o.capture.all);
	assert_string_equal(o.capture.command[0], "sleep");
	options__free(&o);
	parse_ok(&a, ARGS("-f", "libc:^malloc$", "--all-cpus"), &o);
	assert_true(o.capture.all);
	options__free(&o);
	expect_usage_error(ARGS("-F", "99", "-a", "-p", "1"), "-a", "-p");
	expect_usage_error(ARGS("-a", "-f", "main", "--", "true"), "-a with a COMMAND", "sampling");
	/* --off-cpu is a mode of its own, with no timeline yet */
	parse_ok(&a, ARGS("--off-cpu", "-p", "1", "-o", "x.svg"), &o);
	assert_true(o.capture.offcpu);
	options__free(&o);
	expect_usage_error(ARGS("--off-cpu", "-f", "main"), "--off-cpu", "combined");
	/* --cpu-split: the traced calls' time on and off the CPU, -f only */
	parse_ok(&a, ARGS("-f", "main", "--cpu-split", "--state-root", "-o", "x.json"), &o);
	assert_true(o.capture.cpu_split && o.capture.state_root && !o.capture.offcpu);
	options__free(&o);
	expect_usage_error(ARGS("--off-cpu", "-f", "main"), "--cpu-split", "off the CPU");
	expect_usage_error(ARGS("-F", "99", "--cpu-split"), "--cpu-split", "uprobe mode (-f)");
	expect_usage_error(ARGS("--off-cpu", "--cpu-split"), "--cpu-split", "-f");
	/* --wall: -F's samples and the time off the CPU; -F --off-cpu alike */
	parse_ok(&a, ARGS("--wall", "-F", "99", "--state-root"), &o);
	assert_true(o.wall && o.capture.offcpu && o.capture.freq == 99 && o.capture.state_root);
	options__free(&o);
	parse_ok(&a, ARGS("--off-cpu", "-F", "99"), &o);
	assert_true(o.capture.offcpu && o.capture.freq == 99);
	options__free(&o);
	expect_usage_error(ARGS("--wall", "-p", "1"), "--wall", "-F");
	expect_usage_error(ARGS("-F", "99", "--state-root"), "--state-root", "--off-cpu");
	expect_usage_error(ARGS("-F", "99", "--kernel-threads"), "--kernel-threads", "--off-cpu");
	/* --wakers is --off-cpu with the wakers' stacks */
	parse_ok(&a, ARGS("--wakers", "-p", "1"), &o);
	assert_true(o.capture.offcpu && o.capture.wakers);
	options__free(&o);
	parse_ok(&a, ARGS("--off-cpu", "-o", "x.json"), &o);
	assert_true(o.capture.offcpu && o.capture.timeline);
	options__free(&o);
	parse_ok(&a, ARGS("--off-cpu", "--min-block", "1ms", "--max-block", "2.5s"), &o);
	assert_true(o.capture.min_block_ns == 1000000 && o.capture.max_block_ns == 2500000000ULL);
	options__free(&o);
	expect_usage_error(ARGS("--off-cpu", "--min-block", "5"), "'5'", "unit");
	expect_usage_error(ARGS("--off-cpu", "--min-block", "-1ms"), "'-1ms'", "--min-block");
	expect_usage_error(ARGS("--off-cpu", "--max-block", "0.1ns"), "'0.1ns'", "--max-block");
	expect_usage_error(ARGS("--off-cpu", "--min-block", "2s", "--max-block", "1s"),
			   "--min-block", "above");
	expect_usage_error(ARGS("-F", "99", "--min-block", "1ms"), "--min-block", "--off-cpu");
	/* a word before the mode is the COMMAND: say so (perf record ...) */
	expect_usage_error(ARGS("record", "-F", "99"), "no mode", "COMMAND 'record'");
}

static void expect_output_format(const char *path, enum out_format want)
{
	char err[OPTIONS_ERR_LEN];
	struct options o;
	struct args a;

	if (parse(&a, ARGS("-F", "99", "-o", path), &o, err))
		fail_msg("-o %s: %s", path, err);
	assert_string_equal(o.output, path);
	assert_int_equal(o.format, want);
	options__free(&o);
}

static void test_parse_output_formats(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	expect_output_format("out.folded", FORMAT_FOLDED);
	expect_output_format("/tmp/out.txt", FORMAT_FOLDED);
	expect_output_format("out.dat", FORMAT_FOLDED);
	expect_output_format("out", FORMAT_FOLDED);
	expect_output_format("-", FORMAT_FOLDED);

	expect_output_format("out.json", FORMAT_CHROME);
	expect_output_format("out.svg", FORMAT_SVG);
	expect_output_format("out.perf", FORMAT_PERF);
	expect_output_format("out.script", FORMAT_PERF);
	expect_output_format("out.pprof", FORMAT_PPROF);
	expect_output_format("x/out.pb.gz", FORMAT_PPROF);
	expect_output_format("out.gz", FORMAT_FOLDED);
	expect_usage_error(ARGS("-F", "99", "--format", "svgz"), "'svgz'", "folded, chrome");

	/* One capture, several outputs: each extension gives its format. */
	parse_ok(&a, ARGS("-F", "99", "-o", "x.svg", "-o", "x.folded", "--output", "x.json"), &o);
	assert_int_equal(o.noutputs, 3);
	assert_int_equal(o.formats[0], FORMAT_SVG);
	assert_int_equal(o.formats[1], FORMAT_FOLDED);
	assert_int_equal(o.formats[2], FORMAT_CHROME);
	assert_string_equal(o.output, "x.svg");
	assert_true(o.capture.timeline);
	options__free(&o);
	expect_usage_error(ARGS("-F", "99", "-o", "a", "-o", "b", "--format", "svg"), "--format",
			   "extension");
	expect_usage_error(ARGS("-F", "99", "-o", "-", "-o", "-"), "standard output", "one");

	/* Timeline formats ask the sources for each sample's or call's time. */
	parse_ok(&a, ARGS("-F", "99", "-o", "out.json"), &o);
	assert_true(o.capture.timeline);
	options__free(&o);
	parse_ok(&a, ARGS("-F", "99", "--format", "perf"), &o);
	assert_true(o.capture.timeline);
	options__free(&o);
	parse_ok(&a, ARGS("-F", "99", "-o", "out.svg"), &o);
	assert_false(o.capture.timeline);
	options__free(&o);
	parse_ok(&a, ARGS("-F", "99", "-o", "out.svg", "--flamechart"), &o);
	assert_true(o.capture.timeline);
	options__free(&o);

	/* An explicit --format wins over the extension. */
	parse_ok(&a, ARGS("-F", "99", "-o", "out.json", "--format", "folded"), &o);
	assert_string_equal(o.output, "out.json");
	assert_int_equal(o.format, FORMAT_FOLDED);
	options__free(&o);

	parse_ok(&a, ARGS("-F", "99", "--format", "folded"), &o);
	assert_int_equal(o.format, FORMAT_FOLDED);
	assert_string_equal(o.output, "-");
	options__free(&o);

	expect_usage_error(ARGS("-F", "99", "--format", "bogus"), "'bogus'", NULL);
	expect_usage_error(ARGS("-F", "99", "--format", "Folded"), "'Folded'", NULL);
}

static void test_parse_root_style(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a, ARGS("-F", "99", "--pids"), &o);
	assert_int_equal(o.root, ROOT_PID);
	options__free(&o);
	parse_ok(&a, ARGS("-F", "99", "--tids"), &o);
	assert_int_equal(o.root, ROOT_TID);
	options__free(&o);
	/* --pids is not an abbreviation of --pid. */
	parse_ok(&a, ARGS("-F", "99", "--pids", "--pid", "7"), &o);
	assert_int_equal(o.root, ROOT_PID);
	assert_int_equal(o.capture.npids, 1);
	assert_int_equal(o.capture.pids[0], 7);
	options__free(&o);
}

static void test_parse_user_kernel(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a, ARGS("-F", "99", "-U"), &o);
	assert_true(o.capture.user_only);
	assert_false(o.capture.kernel_only);
	options__free(&o);
	parse_ok(&a, ARGS("-F", "99", "-K"), &o);
	assert_false(o.capture.user_only);
	assert_true(o.capture.kernel_only);
	options__free(&o);
	expect_usage_error(ARGS("-F", "99", "-U", "-K"), "-U", "-K");
	expect_usage_error(ARGS("-UK", "-F", "99"), "-U", "-K");
}

static void test_parse_no_mode(void **state)
{
	(void)state;
	expect_usage_error(NO_ARGS, "mode", NULL);
	expect_usage_error(ARGS("-p", "1"), "mode", NULL);
	expect_usage_error(ARGS("--", "ls"), "mode", NULL);
}

static void test_parse_command(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a, ARGS("-F", "99", "--", "ls", "-l", "--color", "/tmp"), &o);
	assert_ptr_equal(o.capture.command, &a.argv[4]);
	assert_string_equal(o.capture.command[0], "ls");
	assert_string_equal(o.capture.command[1], "-l");
	assert_string_equal(o.capture.command[2], "--color");
	assert_string_equal(o.capture.command[3], "/tmp");
	assert_null(o.capture.command[4]);
	assert_false(o.capture.user_only); /* "-l" belongs to the command */
	options__free(&o);

	/* Options end at the first operand even without "--". */
	parse_ok(&a, ARGS("-F", "99", "sleep", "-K"), &o);
	assert_ptr_equal(o.capture.command, &a.argv[3]);
	assert_string_equal(o.capture.command[0], "sleep");
	assert_string_equal(o.capture.command[1], "-K");
	assert_null(o.capture.command[2]);
	assert_false(o.capture.kernel_only);
	options__free(&o);

	parse_ok(&a, ARGS("-F", "99", "--"), &o);
	assert_null(o.capture.command);
	options__free(&o);

	expect_usage_error(ARGS("-F", "99", "-p", "1", "--", "ls"), "-p", "COMMAND");
}

static void test_parse_unknown_option(void **state)
{
	(void)state;
	expect_usage_error(ARGS("-F", "99", "--bogus"), "'--bogus'", NULL);
	expect_usage_error(ARGS("--frobnicate=3", "-F", "99"), "--frobnicate", NULL);
	expect_usage_error(ARGS("-F", "99", "-z"), "'-z'", NULL);
	expect_usage_error(ARGS("-F", "99", "-Uz"), "'-z'", NULL);
}

static void test_parse_missing_value(void **state)
{
	(void)state;
	expect_usage_error(ARGS("-F"), "'-F'", "value");
	expect_usage_error(ARGS("--sample"), "'--sample'", "value");
	expect_usage_error(ARGS("-F", "99", "-p"), "'-p'", "value");
	expect_usage_error(ARGS("-F", "99", "-d"), "'-d'", "value");
	expect_usage_error(ARGS("-F", "99", "-o"), "'-o'", "value");
	expect_usage_error(ARGS("-F", "99", "--format"), "'--format'", "value");
	expect_usage_error(ARGS("-F", "99", "--output"), "'--output'", "value");
}

static void test_parse_help_version(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a, ARGS("--help"), &o);
	assert_true(o.help);
	assert_false(o.version);
	options__free(&o);
	parse_ok(&a, ARGS("-h"), &o);
	assert_true(o.help);
	options__free(&o);
	parse_ok(&a, ARGS("--version"), &o);
	assert_true(o.version);
	assert_false(o.help);
	options__free(&o);
	parse_ok(&a, ARGS("-V"), &o);
	assert_true(o.version);
	options__free(&o);
	parse_ok(&a, ARGS("-v", "-vv", "--verbose", "-F", "99"), &o);
	assert_int_equal(o.verbose, 4);
	options__free(&o);
}

static void test_parse_uprobe_mode(void **state)
{
	struct args a;
	struct options o;

	(void)state;
	parse_ok(&a, ARGS("-f", "main", "--func", "libc:malloc", "-f", "ns::f"), &o);
	assert_int_equal(o.capture.nfuncs, 3);
	assert_string_equal(o.capture.funcs[0], "main");
	assert_string_equal(o.capture.funcs[1], "libc:malloc");
	assert_string_equal(o.capture.funcs[2], "ns::f");
	assert_int_equal(o.capture.freq, 0);
	assert_null(o.capture.list);
	options__free(&o);
	assert_null(o.capture.funcs);
	parse_ok(&a, ARGS("-l", "libc:^mem"), &o);
	assert_string_equal(o.capture.list, "libc:^mem");
	assert_int_equal(o.capture.nfuncs, 0);
	options__free(&o);
	parse_ok(&a, ARGS("--list", "main", "-p", "1"), &o);
	assert_string_equal(o.capture.list, "main");
	options__free(&o);
	expect_usage_error(ARGS("-l", "main", "-f", "x"), "-l", "no mode");
	expect_usage_error(ARGS("-l", "main", "-F", "99"), "-l", "no mode");
	expect_usage_error(ARGS("-f", "main", "-F", "99"), "--sample", "-f");
	expect_usage_error(ARGS("-f", "main", "-U"), "-U", "sampling");
	expect_usage_error(ARGS("-f"), "'-f'", "value");
	expect_usage_error(ARGS("-F", "99", "--full-stack"), "--full-stack", "-f");
	parse_ok(&a, ARGS("-f", "x", "--full-stack"), &o);
	assert_true(o.capture.full_stack);
	assert_int_equal(o.capture.max_calls, 0);
	options__free(&o);
	parse_ok(&a, ARGS("-f", "x", "--max-calls", "100000000"), &o);
	assert_int_equal(o.capture.max_calls, 100000000);
	options__free(&o);
	expect_usage_error(ARGS("-F", "99", "--max-calls", "5"), "--max-calls", "-f");
	expect_usage_error(ARGS("-f", "x", "--max-calls", "100000001"), "--max-calls",
			   "'100000001'");
	expect_usage_error(ARGS("-f", "x", "--max-calls", "0"), "--max-calls", "'0'");
	expect_usage_error(ARGS("-f", "x", "--max-calls", "1e6"), "--max-calls", "'1e6'");
	expect_usage_error(ARGS("-f", "x", "--max-calls", "-5"), "--max-calls", "'-5'");
	expect_usage_error(ARGS("-f", "x", "--max-calls", " 5"), "--max-calls", "' 5'");
	expect_usage_error(ARGS("-f", "x", "--max-calls", "18446744073709551617"), "--max-calls",
			   "18446744073709551617");
	parse_ok(&a, ARGS("-F", "99", "--flamechart"), &o);
	assert_true(o.flamechart);
	options__free(&o);
	parse_ok(&a, ARGS("-f", "x", "--flamechart"), &o);
	assert_true(o.flamechart);
	options__free(&o);
}

/* --no-demangle in both modes; off by default. */
static void test_parse_no_demangle(void **state)
{
	struct args a;
	struct options o;

	(void)state;
	parse_ok(&a, ARGS("-F", "99"), &o);
	assert_false(o.capture.no_demangle);
	options__free(&o);
	parse_ok(&a, ARGS("-F", "99", "--no-demangle"), &o);
	assert_true(o.capture.no_demangle);
	options__free(&o);
	parse_ok(&a, ARGS("--no-demangle", "-f", "ns::f", "--", "prog", "--no-demangle"), &o);
	assert_true(o.capture.no_demangle);
	assert_string_equal(o.capture.command[1], "--no-demangle");
	options__free(&o);
	expect_usage_error(ARGS("-F", "99", "--no-demangle=yes"), "no-demangle", NULL);
}

/* options__parse() resets getopt itself: a second parse of an argv array
 * whose memory was reused for new arguments sees only the new arguments. */
/* --alloc: a mode of its own, for a target, aggregated outputs only. */
static void test_parse_alloc(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a, ARGS("--alloc", "-p", "1", "-o", "x.svg"), &o);
	assert_int_equal(o.capture.alloc, PROFILE_ALLOC_TOTAL);
	options__free(&o);
	parse_ok(&a, ARGS("--alloc=live", "-o", "x.pb.gz", "--", "prog"), &o);
	assert_int_equal(o.capture.alloc, PROFILE_ALLOC_LIVE);
	options__free(&o);
	parse_ok(&a, ARGS("--alloc=total", "-p", "1"), &o);
	assert_int_equal(o.capture.alloc, PROFILE_ALLOC_TOTAL);
	options__free(&o);
	expect_usage_error(ARGS("--alloc=leaks", "-p", "1"), "'leaks'", "--alloc=live");
	expect_usage_error(ARGS("--alloc", "-F", "99", "-p", "1"), "--alloc", "-F");
	expect_usage_error(ARGS("--alloc", "-f", "main", "-p", "1"), "--alloc", "-f");
	expect_usage_error(ARGS("--alloc", "--off-cpu", "-p", "1"), "--alloc", "--off-cpu");
	expect_usage_error(ARGS("--alloc", "-e", "page-faults", "-p", "1"), "--alloc", "-e");
	expect_usage_error(ARGS("--alloc", "-c", "10", "-p", "1"), "--alloc", "-c");
	expect_usage_error(ARGS("--alloc"), "--alloc", "-p PID or a COMMAND");
	expect_usage_error(ARGS("--alloc", "-a", "--", "prog"), "--alloc", "-a");
	expect_usage_error(ARGS("--alloc", "-K", "-p", "1"), "--alloc", "-K");
	parse_ok(&a, ARGS("--alloc", "-p", "1", "-o", "x.json"), &o);
	assert_true(o.capture.timeline);
	options__free(&o);
	expect_usage_error(ARGS("--alloc", "-p", "1", "--full-stack"), "--full-stack", "-f");
	parse_ok(&a, ARGS("--alloc", "--alloc-sample", "512k", "-p", "1"), &o);
	assert_int_equal(o.capture.alloc_sample, 512 * 1024);
	options__free(&o);
	expect_usage_error(ARGS("--alloc-sample", "1m", "-p", "1"), "--alloc-sample", "--alloc");
	expect_usage_error(ARGS("--alloc", "--alloc-sample", "2g", "-p", "1"), "'2g'", NULL);
}

/* Several -e: each counted event kept in order; every output but pprof a
 * file per event, named before its extension, or --show's alone. */
static void test_parse_events(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a,
		 ARGS("-e", "faults", "-e", "cs", "-o", "dir.v1/out.svg", "-o", "x.pb.gz", "-o",
		      "plain", "-p", "1"),
		 &o);
	assert_int_equal(o.capture.nevents, 2);
	assert_string_equal(o.capture.event->name, "page-faults");
	assert_string_equal(o.capture.events[1]->name, "context-switches");
	assert_int_equal(o.noutputs, 5);
	assert_string_equal(o.outputs[0], "dir.v1/out.page-faults.svg");
	assert_int_equal(o.output_types[0], 0);
	assert_string_equal(o.outputs[1], "x.pb.gz");
	assert_int_equal(o.output_types[1], -1);
	assert_string_equal(o.outputs[2], "plain.page-faults");
	assert_string_equal(o.outputs[3], "dir.v1/out.context-switches.svg");
	assert_int_equal(o.formats[3], FORMAT_SVG);
	assert_int_equal(o.output_types[3], 1);
	assert_string_equal(o.outputs[4], "plain.context-switches");
	assert_int_equal(o.output_types[4], 1);
	options__free(&o);
	parse_ok(&a, ARGS("-e", "faults", "-e", "cs", "--show", "cs", "-p", "1"), &o);
	assert_int_equal(o.noutputs, 1);
	assert_string_equal(o.outputs[0], "-");
	assert_int_equal(o.output_types[0], 1);
	options__free(&o);
	parse_ok(&a, ARGS("-e", "faults", "-p", "1"), &o);
	assert_int_equal(o.output_types[0], -1);
	options__free(&o);
	expect_usage_error(ARGS("-e", "faults", "-e", "cs", "-p", "1"), "standard output",
			   "--show");
	expect_usage_error(ARGS("-e", "faults", "-e", "cpu-clock", "-p", "1"), "cpu-clock",
			   "clock");
}

/* --span NAME=BEGIN,END: the probes, the label's argument and kind. */
static void test_parse_span(void **state)
{
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a,
		 ARGS("--span", "req=usdt:./srv:app:start(arg1),usdt:./srv:app:end", "--span",
		      "db=usdt::app:q(arg0:int),usdt::app:qe", "-p", "1"),
		 &o);
	assert_int_equal(o.capture.nspans, 2);
	assert_string_equal(o.capture.spans[0].name, "req");
	assert_string_equal(o.capture.spans[0].begin, "usdt:./srv:app:start");
	assert_string_equal(o.capture.spans[0].end, "usdt:./srv:app:end");
	assert_int_equal(o.capture.spans[0].label_arg, 1);
	assert_false(o.capture.spans[0].label_number);
	assert_int_equal(o.capture.spans[1].label_arg, 0);
	assert_true(o.capture.spans[1].label_number);
	options__free(&o);
	parse_ok(&a, ARGS("-F", "99", "--span", "r=usdt:b:p:s,usdt:b:p:e", "-p", "1"), &o);
	assert_int_equal(o.capture.spans[0].label_arg, -1);
	options__free(&o);
	expect_usage_error(ARGS("--span", "r=usdt:b:p,usdt:b:p:e", "-p", "1"), "each one probe",
			   NULL);
	expect_usage_error(ARGS("--span", "r=usdt:b:p:s(arg12),usdt:b:p:e", "-p", "1"), "bad label",
			   NULL);
	expect_usage_error(ARGS("--span", "=usdt:b:p:s,usdt:b:p:e", "-p", "1"), "invalid --span",
			   NULL);
	expect_usage_error(ARGS("--span", "r=usdt:b:p:s,usdt:b:p:e", "-e", "cs", "-p", "1"),
			   "--span", "-e");
}

static void test_parse_bytes(void **state)
{
	uint64_t b;

	(void)state;
	assert_int_equal(options__parse_bytes("524288", &b), 0);
	assert_int_equal(b, 524288);
	assert_int_equal(options__parse_bytes("512k", &b), 0);
	assert_int_equal(b, 524288);
	assert_int_equal(options__parse_bytes("512KiB", &b), 0);
	assert_int_equal(b, 524288);
	assert_int_equal(options__parse_bytes("1M", &b), 0);
	assert_int_equal(b, 1048576);
	assert_int_equal(options__parse_bytes("1g", &b), 0);
	assert_int_equal(b, 1ULL << 30);
	assert_int_equal(options__parse_bytes("0", &b), -EINVAL);
	assert_int_equal(options__parse_bytes("-1", &b), -EINVAL);
	assert_int_equal(options__parse_bytes("1x", &b), -EINVAL);
	assert_int_equal(options__parse_bytes("2G", &b), -EINVAL);
	assert_int_equal(options__parse_bytes("", &b), -EINVAL);
	assert_int_equal(options__parse_bytes("99999999999999999999k", &b), -EINVAL);
}

static void test_parse_twice_reused_argv(void **state)
{
	char err[OPTIONS_ERR_LEN];
	struct options o;
	struct args a;

	(void)state;
	parse_ok(&a, ARGS("-F", "99", "-U"), &o);
	assert_true(o.capture.user_only);
	options__free(&o);
	if (parse_raw(&a, ARGS("-F", "49", "--tids"), &o, err))
		fail_msg("second parse: %s", err);
	assert_int_equal(o.capture.freq, 49);
	assert_int_equal(o.root, ROOT_TID);
	assert_false(o.capture.user_only);
	assert_int_equal(o.capture.npids, 0);
	options__free(&o);
}

/* The same after the first parse stopped inside a cluster of short options. */
static void test_parse_twice_after_error(void **state)
{
	char err[OPTIONS_ERR_LEN];
	struct options o;
	struct args a, b;

	(void)state;
	assert_int_equal(parse(&a, ARGS("-zU", "-F", "99"), &o, err), -EINVAL);
	assert_contains(err, "'-z'");
	options__free(&o);
	if (parse_raw(&b, ARGS("-F", "99"), &o, err))
		fail_msg("second parse: %s", err);
	assert_int_equal(o.capture.freq, 99);
	assert_false(o.capture.user_only);
	assert_null(o.capture.command);
	options__free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_freq_ok),
		cmocka_unit_test(test_freq_bad),
		cmocka_unit_test(test_freq_khz_overflow),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_pids_append),
		cmocka_unit_test(test_parse_sample_defaults),
		cmocka_unit_test(test_parse_bad_values),
		cmocka_unit_test(test_parse_targets),
		cmocka_unit_test(test_parse_output_formats),
		cmocka_unit_test(test_parse_root_style),
		cmocka_unit_test(test_parse_user_kernel),
		cmocka_unit_test(test_parse_no_mode),
		cmocka_unit_test(test_parse_command),
		cmocka_unit_test(test_parse_unknown_option),
		cmocka_unit_test(test_parse_missing_value),
		cmocka_unit_test(test_parse_help_version),
		cmocka_unit_test(test_parse_uprobe_mode),
		cmocka_unit_test(test_parse_no_demangle),
		cmocka_unit_test(test_parse_alloc),
		cmocka_unit_test(test_parse_events),
		cmocka_unit_test(test_parse_span),
		cmocka_unit_test(test_parse_bytes),
		cmocka_unit_test(test_parse_twice_reused_argv),
		cmocka_unit_test(test_parse_twice_after_error),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
