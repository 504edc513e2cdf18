// SPDX-License-Identifier: GPL-2.0
/* Unit tests of src/formats/in_folded.c and of what src/formats/reader.c does for every
 * reader: opening, telling the format from the content, errors with line
 * numbers, streaming large inputs. */
#include "test_in.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "formats/out_pprof.h"
#include "util/gzip_buf.h"

static void test_basic(void **state)
{
	(void)state;
	/* unsorted, a stack given twice: sorted and merged on the way out */
	expect_folded("bash;main;read 3\n"
		      "bash;main 2\n"
		      "bash;main;read 4\n",
		      NULL, ROOT_COMM, "bash;main 2\nbash;main;read 7\n");
}

static void test_model(void **state)
{
	const struct profile_stack *s;
	const struct frame *f;
	struct loaded l;

	(void)state;
	load(&l, "app;main;vfs_read_[k] 5\n", NULL);
	assert_int_equal(l.ret, 0);
	assert_int_equal(l.format, IN_FOLDED);
	assert_int_equal(profile__unit(l.p), UNIT_SAMPLES);
	assert_int_equal(profile__nr_stacks(l.p), 1);
	s = profile__stack(l.p, 0);
	assert_string_equal(s->who.comm, "app");
	assert_int_equal(s->who.pid, 0);
	assert_int_equal(s->nframes, 2);
	assert_int_equal(s->weight, 5);
	f = profile__frame(l.p, s->frames[0]);
	assert_string_equal(f->name, "main");
	assert_int_equal(f->kind, FRAME_USER);
	f = profile__frame(l.p, s->frames[1]);
	assert_string_equal(f->name, "vfs_read");
	assert_int_equal(f->kind, FRAME_KERNEL);
	assert_string_equal(f->module, "[kernel]");
	assert_int_equal(l.st.records, 1);
	loaded_free(&l);
}

/* Our own sorted output reads back and writes byte for byte the same. */
static void test_round_trip(void **state)
{
	(void)state;
	expect_data("roundtrip.folded", NULL, ROOT_COMM, "roundtrip.folded");
	expect_data("perf-modern.folded", NULL, ROOT_COMM, "perf-modern.folded");
	expect_data("perf-old-tids.folded", NULL, ROOT_COMM, "perf-old-tids.folded");
}

static void test_lenient_layout(void **state)
{
	(void)state;
	/* CRLF, blank lines, no newline at the end, a root alone */
	expect_folded("\r\na;b 1\r\n\n  \nbash 4\r\nc;d 2", NULL, ROOT_COMM,
		      "a;b 1\nbash 4\nc;d 2\n");
	/* empty frames are kept as frames without a name */
	expect_folded("a;;b 1\n", NULL, ROOT_COMM, "a;[unknown];b 1\n");
	/* C++ names keep their spaces: the count is after the last one */
	expect_folded("x;operator new(unsigned long) 9\n", NULL, ROOT_COMM,
		      "x;operator new(unsigned long) 9\n");
	/* counts of 0 are read, and add nothing */
	expect_folded("a;b 0\na;c 1\n", NULL, ROOT_COMM, "a;c 1\n");
}

/* Lines that are not stacks are skipped as flamegraph.pl skips them,
 * counted and the first named; comments ('#') and tabs before the count
 * are read as it reads them. */
static void test_skipped_lines(void **state)
{
	struct reader_opts o = { 0 };
	struct reader_stats st;
	struct loaded l;

	(void)state;
	expect_folded("# made by hand\nmain;q 4\n", NULL, ROOT_COMM, "main;q 4\n");
	expect_folded("a;b\t7\n", NULL, ROOT_COMM, "a;b 7\n");
	expect_folded("a;b 1\nc;d\nc;d x\n 5\na;b -3\na;b \nbad\na;c 2\n", NULL, ROOT_COMM,
		      "a;b 1\na;c 2\n");
	load(&l, "a;b 1\nc;d\nc;d x\na;c 2\n", &o);
	assert_int_equal(l.ret, 0);
	st = l.st;
	assert_int_equal(st.skipped, 2);
	assert_int_equal(st.first_skipped, 2);
	assert_string_equal(st.skipped_for, "not 'ROOT;FRAME;... COUNT'");
	loaded_free(&l);
	expect_error("a;b\nc;d x\n", NULL, -EINVAL,
		     "line 1: not 'ROOT;FRAME;... COUNT', nor is any other line");
}

/* Counts that would be read wrong fail the file. */
static void test_bad_counts(void **state)
{
	(void)state;
	expect_error("a;b 1.5\n", NULL, -EINVAL, "line 1: count '1.5' is not a whole number");
	expect_error("a;b 1\na;b 2.\n", NULL, -EINVAL, "line 2: count '2.' is not a whole number");
	expect_error("a;b 2\na;b 99999999999999999999\n", NULL, -EINVAL,
		     "line 2: count '99999999999999999999' is too large");
	expect_error("a;b 18446744073709551615\na;c 5\n", NULL, -EINVAL,
		     "line 2: count '5' is too large (the counts add up past 2^64)");
	expect_error("a;b 1\na;b 1 2\n", NULL, -EINVAL, "line 2: two counts");
}

static void test_empty(void **state)
{
	(void)state;
	expect_error("", NULL, -ENODATA, "is empty");
	expect_error("\n \n\t\n", NULL, -ENODATA, "is empty");
	expect_error("a;b 0\n", NULL, -ENODATA, "no stacks");
}

static void test_not_a_profile(void **state)
{
	(void)state;
	expect_error("hello world\nthis is text\n", NULL, -EINVAL,
		     "line 1: not a profile (folded stacks, perf script text, a chrome trace or a flamebpf HTML report)");
	expect_error("\x7f"
		     "ELF\x02\x01\x01",
		     NULL, -EINVAL, "not a profile");
}

/* LEN bytes of BUF are refused as WHAT, with the file named and no line
 * blamed: they are not text. */
static void expect_not_text(const void *buf, size_t len, const char *what)
{
	struct loaded l;
	char name[80];

	load_len(&l, buf, len, NULL);
	assert_int_equal(l.ret, -EINVAL);
	assert_null(l.p);
	snprintf(name, sizeof(name), "'%s'", l.path);
	if (!strstr(l.err, name) || !strstr(l.err, what) || strstr(l.err, "line 1"))
		fail_msg("message '%s' does not name %s and '%s', or blames line 1", l.err, name,
			 what);
}

/* A profile written as pprof, in *len bytes; the caller frees it. */
static char *pprof_of(const char *folded, size_t *len)
{
	struct write_opts wo = { .root = ROOT_COMM };
	struct loaded l;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	load(&l, folded, NULL);
	assert_int_equal(l.ret, 0);
	assert_non_null(f);
	assert_int_equal(pprof__write(l.p, &wo, f), 0);
	assert_int_equal(fclose(f), 0);
	loaded_free(&l);
	return buf;
}

/* pprof is written, not read: said so, as gzip'd text and binary data are. */
static void test_not_text(void **state)
{
	const char *text = "app;main;a 5\napp;main;b 3\n";
	uint8_t *gz;
	size_t len;
	char *pb = pprof_of(text, &len);

	(void)state;
	expect_not_text(pb, len, "is a pprof profile (gzip'd protobuf): flamebpf writes pprof "
				 "but does not read it");
	free(pb);
	assert_int_equal(gzip__buffer(text, strlen(text), &gz, &len), 0);
	expect_not_text(gz, len, "is gzip-compressed: decompress it first");
	free(gz);
	expect_not_text("\x7f"
			"ELF\x02\x01\x01\x00\x00\x00",
			10, "is binary data, not a profile");
}

static void test_detect(void **state)
{
	static const struct {
		const char *text;
		int ret;
		enum in_format f;
	} cases[] = {
		{ "a;b 1\n", 0, IN_FOLDED },
		{ "[unknown];main 3\n", 0, IN_FOLDED },
		{ "\xef\xbb\xbf"
		  "a;b 1\n",
		  0, IN_FOLDED },
		{ "{\"traceEvents\":[]}", 0, IN_CHROME },
		{ "\n  [ {\"ph\":\"X\"} ]", 0, IN_CHROME },
		{ "[]", 0, IN_CHROME },
		{ "# ========\n# captured on: x\n", 0, IN_PERF },
		/* comments say nothing: the first line after them does */
		{ "# ========\n# captured on: x\n\nsh 25778  9567.973135:    1001001 cpu-clock:\n"
		  "\tffffffff81000130 entry+0x76 ([kernel.kallsyms])\n",
		  0, IN_PERF },
		{ "# made by hand\nmain;q 4\n", 0, IN_FOLDED },
		{ "#\n\n# x\nmain 4\n", 0, IN_FOLDED },
		{ "sh 25778  9567.973135:    1001001 cpu-clock:pppH: \n", 0, IN_PERF },
		{ "V8 Worker 1 25865/25867 [000]  9581.072669: cycles:\n", 0, IN_PERF },
		/* no time: the frame line below tells */
		{ "seq 25780 \n\t            35c9 [unknown]\n", 0, IN_PERF },
		{ "\tffffffff81000130 entry+0x76 ([kernel.kallsyms])\n", 0, IN_PERF },
		{ "bash;main;foo 12\nbash;x 3\n", 0, IN_FOLDED },
		{ "hello\n", -EINVAL, 0 },
		{ "", -ENODATA, 0 },
		{ " \n\r\n", -ENODATA, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum in_format f = IN_FOLDED;
		int ret = reader__detect(cases[i].text, strlen(cases[i].text), &f);

		print_message("%zu: %s\n", i, cases[i].text);
		assert_int_equal(ret, cases[i].ret);
		if (!ret)
			assert_int_equal(f, cases[i].f);
	}
}

static void test_open_errors(void **state)
{
	struct profile *p = NULL;
	struct reader_opts o = { 0 };
	struct reader_stats st;
	char err[READER_ERR_LEN];

	(void)state;
	assert_int_equal(reader__load("/nonexistent/x.folded", &o, &p, NULL, &st, err), -ENOENT);
	assert_string_equal(err, "cannot open '/nonexistent/x.folded': No such file or directory");
	assert_int_equal(reader__load("/tmp", &o, &p, NULL, &st, err), -EISDIR);
	assert_string_equal(err, "cannot read '/tmp': Is a directory");
	assert_null(p);
}

/* "-" reads standard input, and says so in messages. */
static void test_stdin(void **state)
{
	char path[] = "/tmp/flamebpf-in.XXXXXX";
	static const char text[] = "a;b 2\na;b 0.5\n";
	struct reader_opts o = { 0 };
	struct profile *p = NULL;
	struct reader_stats st;
	char err[READER_ERR_LEN];
	int fd = u_temp_file(path, text, sizeof(text) - 1), saved = dup(STDIN_FILENO);

	(void)state;
	assert_true(lseek(fd, 0, SEEK_SET) == 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	assert_int_equal(reader__load("-", &o, &p, NULL, &st, err), -EINVAL);
	assert_string_equal(err, "standard input line 2: count '0.5' is not a whole number");
	dup2(saved, STDIN_FILENO);
	close(saved);
	close(fd);
	unlink(path);
}

/* A pipe cannot be read twice: what was looked at is read again. */
static void test_pipe(void **state)
{
	struct reader_opts o = { 0 };
	struct profile *p = NULL;
	struct reader_stats st;
	char err[READER_ERR_LEN], *got;
	int fds[2], saved = dup(STDIN_FILENO);
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fds[0]);
		for (int i = 0; i < 100000; i++)
			dprintf(fds[1], "proc;f%d;g 1\n", i % 7);
		_exit(0);
	}
	close(fds[1]);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	assert_int_equal(reader__load("-", &o, &p, NULL, &st, err), 0);
	dup2(saved, STDIN_FILENO);
	close(saved);
	waitpid(pid, NULL, 0);
	got = folded_of(p, ROOT_COMM);
	assert_string_equal(got, "proc;f0;g 14286\nproc;f1;g 14286\nproc;f2;g 14286\n"
				 "proc;f3;g 14286\nproc;f4;g 14286\nproc;f5;g 14285\n"
				 "proc;f6;g 14285\n");
	free(got);
	profile__free(p);
}

/* Memory follows the unique stacks, not the lines: 400000 lines, 100 stacks. */
static void test_large(void **state)
{
	char path[] = "/tmp/flamebpf-in.XXXXXX";
	struct reader_opts o = { 0 };
	struct profile *p = NULL;
	struct reader_stats st;
	char err[READER_ERR_LEN];
	FILE *f = fdopen(u_temp_file(path, NULL, 0), "w");

	(void)state;
	assert_non_null(f);
	for (int i = 0; i < 400000; i++)
		fprintf(f, "bench;main;level_%d;work_%d;leaf_with_a_longer_name_%d %d\n", i % 10,
			i % 100, i % 100, 1 + i % 3);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(reader__load(path, &o, &p, NULL, &st, err), 0);
	unlink(path);
	assert_int_equal(profile__nr_stacks(p), 100);
	assert_int_equal(st.records, 400000);
	assert_int_equal(profile__total_weight(p), 400000 / 3 * 6 + 1);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),	      cmocka_unit_test(test_model),
		cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_lenient_layout),
		cmocka_unit_test(test_skipped_lines), cmocka_unit_test(test_bad_counts),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_not_a_profile), cmocka_unit_test(test_not_text),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_open_errors),   cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_pipe),	      cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests_name("in_folded", tests, NULL, NULL);
}
