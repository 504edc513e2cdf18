/* Unit tests of src/formats/out_folded.c: small profiles written to memory and
 * compared with the exact expected text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/out_folded.h"
#include "profile/profile.h"

static struct profile *new_profile(void)
{
	struct profile *p = profile__new(UNIT_SAMPLES);

	assert_non_null(p);
	return p;
}

static uint32_t ufr(struct profile *p, const char *name)
{
	uint32_t id;

	assert_int_equal(profile__findnew_frame(p, name, "app", FRAME_USER, &id), 0);
	return id;
}

static uint32_t kfr(struct profile *p, const char *name)
{
	uint32_t id;

	assert_int_equal(profile__findnew_frame(p, name, "[kernel]", FRAME_KERNEL, &id), 0);
	return id;
}

static void add_t(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		  const char *tcomm, const uint32_t *frames, uint32_t n, uint64_t weight)
{
	struct stack_owner who = { .pid = pid, .tid = tid, .comm = comm, .tcomm = tcomm };

	assert_int_equal(profile__add_stack(p, &who, frames, n, weight), 0);
}

static void add(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		const uint32_t *frames, uint32_t n, uint64_t weight)
{
	add_t(p, pid, tid, comm, comm, frames, n, weight);
}

/* Writes p with the given root style into memory; the caller frees. */
static char *render(const struct profile *p, enum root_style root)
{
	struct write_opts o = { .root = root };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(folded__write(p, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

static void expect_text(const struct profile *p, enum root_style root, const char *want)
{
	char *got = render(p, root);

	if (strcmp(got, want))
		fail_msg("root style %d:\n--- got\n%s--- expected\n%s---", root, got, want);
	free(got);
}

/* The profile behind the root-style tests: bash's two threads run the same
 * stack; two stacks differ only in the thread name, which folded omits. */
static struct profile *sample_profile(void)
{
	struct profile *p = new_profile();
	uint32_t st[2];

	st[0] = ufr(p, "main");
	st[1] = ufr(p, "run");
	add(p, 10, 10, "bash", st, 2, 3);
	add(p, 10, 11, "bash", st, 2, 4);
	add(p, 10, 10, "bash", st, 1, 1);
	add(p, 20, 20, "awk", st, 1, 2);
	add(p, 30, 30, "Xorg", st, 1, 5);
	add(p, 10, 10, "bash", st, 0, 6);
	add_t(p, 10, 11, "bash", "bash-worker", st, 2, 10);
	return p;
}

static void test_root_comm(void **state)
{
	struct profile *p = sample_profile();

	(void)state;
	expect_text(p, ROOT_COMM,
		    "Xorg;main 5\n"
		    "awk;main 2\n"
		    "bash 6\n"
		    "bash;main 1\n"
		    "bash;main;run 17\n");
	profile__free(p);
}

static void test_root_pid(void **state)
{
	struct profile *p = sample_profile();

	(void)state;
	expect_text(p, ROOT_PID,
		    "Xorg-30;main 5\n"
		    "awk-20;main 2\n"
		    "bash-10 6\n"
		    "bash-10;main 1\n"
		    "bash-10;main;run 17\n");
	profile__free(p);
}

static void test_root_tid(void **state)
{
	struct profile *p = sample_profile();

	(void)state;
	expect_text(p, ROOT_TID,
		    "Xorg-30/30;main 5\n"
		    "awk-20/20;main 2\n"
		    "bash-10/10 6\n"
		    "bash-10/10;main 1\n"
		    "bash-10/10;main;run 3\n"
		    "bash-10/11;main;run 14\n");
	profile__free(p);
}

/* Lines sort as strings, so pid 10 comes before pid 9, and the insertion
 * order does not matter. */
static void test_sort_is_strcmp(void **state)
{
	struct profile *p = new_profile(), *q = new_profile();
	uint32_t a, b;

	(void)state;
	a = ufr(p, "f");
	b = ufr(p, "F");
	add(p, 9, 9, "x", &a, 1, 1);
	add(p, 10, 10, "x", &a, 1, 2);
	add(p, 10, 10, "x", &b, 1, 3);
	add(p, 4294967294u, 1, "x", &a, 1, 4);
	expect_text(p, ROOT_PID,
		    "x-10;F 3\n"
		    "x-10;f 2\n"
		    "x-4294967294;f 4\n"
		    "x-9;f 1\n");

	a = ufr(q, "f");
	b = ufr(q, "F");
	add(q, 4294967294u, 1, "x", &a, 1, 4);
	add(q, 10, 10, "x", &b, 1, 3);
	add(q, 9, 9, "x", &a, 1, 1);
	add(q, 10, 10, "x", &a, 1, 2);
	expect_text(q, ROOT_PID,
		    "x-10;F 3\n"
		    "x-10;f 2\n"
		    "x-4294967294;f 4\n"
		    "x-9;f 1\n");
	profile__free(p);
	profile__free(q);
}

/* A PID the input did not give: "COMM-?", as stackcollapse-perf.pl writes
 * it, in line order. */
static void test_unknown_pid(void **state)
{
	struct profile *p = new_profile();
	uint32_t a;

	(void)state;
	a = ufr(p, "f");
	add(p, 9, 9, "x", &a, 1, 1);
	add(p, PROFILE_PID_UNKNOWN, 7, "x", &a, 1, 4);
	expect_text(p, ROOT_PID, "x-9;f 1\nx-?;f 4\n");
	expect_text(p, ROOT_TID, "x-9/9;f 1\nx-?/7;f 4\n");
	profile__free(p);
}

static void test_kernel_frames(void **state)
{
	struct profile *p = new_profile();
	uint32_t st[4];

	(void)state;
	st[0] = ufr(p, "main");
	st[1] = ufr(p, "read");
	st[2] = kfr(p, "entry_SYSCALL_64");
	st[3] = kfr(p, "ksys_read");
	add(p, 7, 7, "cat", st, 4, 2);
	add(p, 7, 7, "cat", st + 2, 2, 1);
	/* The same name as a user frame is another frame. */
	st[3] = ufr(p, "ksys_read");
	add(p, 7, 7, "cat", st, 4, 5);
	expect_text(p, ROOT_COMM,
		    "cat;entry_SYSCALL_64_[k];ksys_read_[k] 1\n"
		    "cat;main;read;entry_SYSCALL_64_[k];ksys_read 5\n"
		    "cat;main;read;entry_SYSCALL_64_[k];ksys_read_[k] 2\n");
	profile__free(p);
}

static void test_escaping(void **state)
{
	struct profile *p = new_profile();
	uint32_t f;

	(void)state;
	f = ufr(p, "a;b");
	add(p, 1, 1, "esc", &f, 1, 1);
	f = ufr(p, "line\nbreak");
	add(p, 1, 1, "esc", &f, 1, 2);
	f = ufr(p, "tab\there\r");
	add(p, 1, 1, "esc", &f, 1, 3);
	f = ufr(p, "del\x7f\x01\x1f");
	add(p, 1, 1, "esc", &f, 1, 4);
	f = ufr(p, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	add(p, 1, 1, "esc", &f, 1, 5);
	f = ufr(p, "caf\xc3\xa9");
	add(p, 1, 1, "esc", &f, 1, 6);
	f = ufr(p, "libfoo.so+0x1a2b");
	add(p, 1, 1, "we;ird\n", &f, 1, 7);
	add(p, 1, 1, "Web Content", &f, 1, 8);
	expect_text(p, ROOT_COMM,
		    "Web Content;libfoo.so+0x1a2b 8\n"
		    "esc;a:b 1\n"
		    "esc;caf\xc3\xa9 6\n"
		    "esc;del??? 4\n"
		    "esc;line?break 2\n"
		    "esc;std::vector<int, std::allocator<int> >::push_back(int const&) 5\n"
		    "esc;tab?here? 3\n"
		    "we:ird?;libfoo.so+0x1a2b 7\n");
	profile__free(p);
}

/* Two different names that escape to the same text make one line. */
static void test_escaped_names_merge(void **state)
{
	struct profile *p = new_profile();
	uint32_t a, b;

	(void)state;
	a = ufr(p, "x;y");
	b = ufr(p, "x:y");
	assert_true(a != b);
	add(p, 1, 1, "m", &a, 1, 2);
	add(p, 1, 1, "m", &b, 1, 3);
	expect_text(p, ROOT_COMM, "m;x:y 5\n");
	profile__free(p);
}

static void test_unknown_names(void **state)
{
	struct profile *p = new_profile();
	uint32_t st[2];

	(void)state;
	st[0] = ufr(p, "main");
	st[1] = ufr(p, "");
	add(p, 4, 5, "", st, 2, 1);
	add(p, 4, 5, NULL, st, 1, 2);
	expect_text(p, ROOT_COMM,
		    "[unknown];main 2\n"
		    "[unknown];main;[unknown] 1\n");
	expect_text(p, ROOT_TID,
		    "[unknown]-4/5;main 2\n"
		    "[unknown]-4/5;main;[unknown] 1\n");
	profile__free(p);
}

static void test_zero_frames(void **state)
{
	struct profile *p = new_profile();
	uint32_t none[1] = { 0 };

	(void)state;
	add(p, 0, 0, "swapper/0", none, 0, 9);
	add(p, 0, 1, "swapper/1", none, 0, 4);
	expect_text(p, ROOT_COMM,
		    "swapper/0 9\n"
		    "swapper/1 4\n");
	expect_text(p, ROOT_TID,
		    "swapper/0-0/0 9\n"
		    "swapper/1-0/1 4\n");
	profile__free(p);
}

static void test_empty_profile(void **state)
{
	struct profile *p = new_profile();

	(void)state;
	expect_text(p, ROOT_COMM, "");
	expect_text(p, ROOT_TID, "");
	profile__free(p);
}

/* A stack that carries no weight has nothing to show. */
static void test_zero_weight(void **state)
{
	struct profile *p = new_profile();
	uint32_t a, b;

	(void)state;
	a = ufr(p, "a");
	b = ufr(p, "b");
	add(p, 1, 1, "w", &a, 1, 0);
	add(p, 1, 1, "w", &b, 1, 1);
	expect_text(p, ROOT_COMM, "w;b 1\n");
	profile__free(p);
}

static void test_large_counts(void **state)
{
	struct profile *p = new_profile();
	uint32_t a;

	(void)state;
	a = ufr(p, "a");
	add(p, 1, 1, "ns", &a, 1, 18446744073709551614ull);
	add(p, 2, 2, "ns", &a, 1, 1);
	expect_text(p, ROOT_COMM, "ns;a 18446744073709551615\n");
	profile__free(p);
}

static void test_write_error(void **state)
{
	struct write_opts o = { .root = ROOT_COMM };
	struct profile *p = new_profile();
	FILE *f = fopen("/dev/null", "r");
	uint32_t a;

	(void)state;
	assert_non_null(f);
	a = ufr(p, "a");
	add(p, 1, 1, "w", &a, 1, 1);
	assert_int_equal(folded__write(p, &o, f), -EIO);
	fclose(f);
	profile__free(p);
}

static void expect_name(const char *prefix, const char *name, const char *want)
{
	struct strbuf b = {};

	if (*prefix)
		assert_int_equal(strbuf__add(&b, prefix, strlen(prefix)), 0);
	assert_int_equal(folded__append_name(&b, name), 0);
	assert_int_equal(b.len, strlen(want));
	if (b.len)
		assert_string_equal(b.s, want);
	strbuf__free(&b);
}

static void test_append_name(void **state)
{
	char all[256], want[256];

	(void)state;
	expect_name("", "", "");
	expect_name("x", "", "x");
	expect_name("", "main", "main");
	expect_name("root;", "a;b;;c", "root;a:b::c");
	expect_name("", "\n", "?");
	expect_name("", "a\r\nb", "a??b");
	expect_name("", "\x01\x02\x1b[31m", "???[31m");
	expect_name("", "\x7f", "?");
	expect_name("", " a b ", " a b ");
	expect_name("", "operator<<(std::ostream&, char const*)",
		    "operator<<(std::ostream&, char const*)");
	expect_name("", "\x80\xfe\xff", "\x80\xfe\xff");
	expect_name("", "q\"u'o\\te", "q\"u'o\\te");

	/* Every byte value at once. */
	for (int c = 1; c < 256; c++) {
		all[c - 1] = (char)c;
		want[c - 1] = c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	all[255] = want[255] = '\0';
	expect_name("", all, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_comm),
		cmocka_unit_test(test_root_pid),
		cmocka_unit_test(test_root_tid),
		cmocka_unit_test(test_sort_is_strcmp),
		cmocka_unit_test(test_unknown_pid),
		cmocka_unit_test(test_kernel_frames),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_escaped_names_merge),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_zero_frames),
		cmocka_unit_test(test_empty_profile),
		cmocka_unit_test(test_zero_weight),
		cmocka_unit_test(test_large_counts),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_append_name),
	};

	return cmocka_run_group_tests_name("folded", tests, NULL, NULL);
}
