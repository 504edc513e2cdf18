/* Unit tests of src/profile/profile.c: interning, frames, stack merging and the
 * totals, then enough of everything to make every index grow many times.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/top.h"

static struct profile *new_profile(enum profile_unit unit)
{
	struct profile *p = profile__new(unit);

	assert_non_null(p);
	return p;
}

static uint32_t frame(struct profile *p, const char *name, const char *module, enum frame_kind kind)
{
	uint32_t id = UINT32_MAX;

	assert_int_equal(profile__findnew_frame(p, name, module, kind, &id), 0);
	assert_true(id != UINT32_MAX);
	return id;
}

static void add(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
		const uint32_t *frames, uint32_t n, uint64_t weight)
{
	struct stack_owner who = { .pid = pid, .tid = tid, .comm = comm, .tcomm = comm };

	assert_int_equal(profile__add_stack(p, &who, frames, n, weight), 0);
}

static void expect_stack(const struct profile *p, size_t i, uint32_t pid, uint32_t tid,
			 const char *comm, const uint32_t *frames, uint32_t n, uint64_t weight)
{
	const struct profile_stack *s;

	assert_true(i < profile__nr_stacks(p));
	s = profile__stack(p, i);
	assert_int_equal(s->who.pid, pid);
	assert_int_equal(s->who.tid, tid);
	assert_string_equal(s->who.comm, comm);
	assert_int_equal(s->nframes, n);
	for (uint32_t j = 0; j < n; j++)
		assert_int_equal(s->frames[j], frames[j]);
	if (s->weight != weight)
		fail_msg("stack %zu: weight %" PRIu64 ", expected %" PRIu64, i, s->weight, weight);
}

static void test_new(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES), *q = new_profile(UNIT_NANOSECONDS);

	(void)state;
	assert_int_equal(profile__unit(p), UNIT_SAMPLES);
	assert_int_equal(profile__unit(q), UNIT_NANOSECONDS);
	assert_int_equal(profile__nr_stacks(p), 0);
	assert_int_equal(profile__nr_frames(p), 0);
	assert_int_equal(profile__total_weight(p), 0);
	assert_int_equal(profile__nr_processes(p), 0);
	profile__free(p);
	profile__free(q);
	profile__free(NULL);
}

static void test_intern(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES);
	char buf[] = "bash";
	const char *a, *b, *c, *e;

	(void)state;
	a = profile__intern(p, buf);
	assert_non_null(a);
	assert_ptr_not_equal(a, buf);
	assert_string_equal(a, "bash");
	b = profile__intern(p, "bash");
	assert_ptr_equal(a, b);
	c = profile__intern(p, "bas");
	assert_ptr_not_equal(a, c);
	assert_string_equal(c, "bas");
	e = profile__intern(p, "");
	assert_non_null(e);
	assert_string_equal(e, "");
	assert_ptr_equal(profile__intern(p, ""), e);

	/* The copy is the profile's own. */
	buf[0] = 'd';
	assert_string_equal(a, "bash");
	assert_ptr_not_equal(profile__intern(p, buf), a);
	assert_ptr_equal(profile__intern(p, "bash"), a);
	profile__free(p);
}

/* Interned strings keep their address while the tables grow. */
static void test_intern_many(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES);
	enum { N = 20000 };
	const char **seen = calloc(N, sizeof(*seen));
	char name[32];

	(void)state;
	assert_non_null(seen);
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "sym_%d", i);
		seen[i] = profile__intern(p, name);
		assert_non_null(seen[i]);
	}
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "sym_%d", i);
		assert_string_equal(seen[i], name);
		assert_ptr_equal(profile__intern(p, name), seen[i]);
	}
	free(seen);
	profile__free(p);
}

static void test_frames(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES);
	uint32_t main_u, main_k, main_b, other, again;
	const struct frame *f;

	(void)state;
	main_u = frame(p, "main", "a.out", FRAME_USER);
	again = frame(p, "main", "a.out", FRAME_USER);
	assert_int_equal(again, main_u);
	main_k = frame(p, "main", "a.out", FRAME_KERNEL);
	main_b = frame(p, "main", "libb.so", FRAME_USER);
	other = frame(p, "main2", "a.out", FRAME_USER);
	assert_true(main_k != main_u);
	assert_true(main_b != main_u && main_b != main_k);
	assert_true(other != main_u && other != main_k && other != main_b);
	assert_int_equal(profile__nr_frames(p), 4);
	assert_true(main_u < 4 && main_k < 4 && main_b < 4 && other < 4);

	f = profile__frame(p, main_k);
	assert_string_equal(f->name, "main");
	assert_string_equal(f->module, "a.out");
	assert_int_equal(f->kind, FRAME_KERNEL);
	f = profile__frame(p, main_b);
	assert_string_equal(f->name, "main");
	assert_string_equal(f->module, "libb.so");
	assert_int_equal(f->kind, FRAME_USER);
	/* Names and modules are interned. */
	assert_ptr_equal(f->name, profile__intern(p, "main"));
	assert_ptr_equal(f->module, profile__intern(p, "libb.so"));

	assert_int_equal(frame(p, "main", "a.out", FRAME_KERNEL), main_k);
	assert_int_equal(frame(p, "main2", "a.out", FRAME_USER), other);
	assert_int_equal(frame(p, "main", "libb.so", FRAME_USER), main_b);
	assert_int_equal(profile__nr_frames(p), 4);

	/* An empty module (kernel frames, unknown binaries) is a module too. */
	again = frame(p, "main", "", FRAME_USER);
	assert_true(again != main_u);
	assert_string_equal(profile__frame(p, again)->module, "");
	assert_int_equal(frame(p, "main", "", FRAME_USER), again);
	assert_int_equal(profile__nr_frames(p), 5);
	profile__free(p);
}

static void test_add_stack_merges(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES);
	uint32_t ids[3], copy[3], *heap;
	char comm[] = "bash";
	struct stack_owner who = { .pid = 10, .tid = 11, .comm = comm, .tcomm = "worker" };
	const struct profile_stack *s;

	(void)state;
	ids[0] = frame(p, "main", "bash", FRAME_USER);
	ids[1] = frame(p, "run", "bash", FRAME_USER);
	ids[2] = frame(p, "read", "[kernel]", FRAME_KERNEL);
	assert_int_equal(profile__add_stack(p, &who, ids, 3, 3), 0);

	/* The same stack from other buffers with the same contents. */
	memcpy(copy, ids, sizeof(ids));
	heap = malloc(sizeof(ids));
	assert_non_null(heap);
	memcpy(heap, ids, sizeof(ids));
	who.comm = "bash";
	assert_int_equal(profile__add_stack(p, &who, copy, 3, 4), 0);
	assert_int_equal(profile__add_stack(p, &who, heap, 3, 1), 0);
	free(heap);

	assert_int_equal(profile__nr_stacks(p), 1);
	assert_int_equal(profile__total_weight(p), 8);
	assert_int_equal(profile__nr_processes(p), 1);
	s = profile__stack(p, 0);
	assert_int_equal(s->who.pid, 10);
	assert_int_equal(s->who.tid, 11);
	assert_ptr_equal(s->who.comm, profile__intern(p, "bash"));
	assert_ptr_equal(s->who.tcomm, profile__intern(p, "worker"));
	assert_int_equal(s->nframes, 3);
	assert_int_equal(s->weight, 8);

	/* The profile keeps its own copy of the frames and the comm. */
	assert_ptr_not_equal(s->frames, ids);
	assert_ptr_not_equal(s->frames, copy);
	copy[0] = ids[2];
	comm[0] = 'X';
	expect_stack(p, 0, 10, 11, "bash", ids, 3, 8);
	profile__free(p);
}

static void test_add_stack_separates(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES);
	uint32_t ids[3], rev[3];
	struct stack_owner who = { .pid = 10, .tid = 11, .comm = "bash", .tcomm = "bash" };

	(void)state;
	ids[0] = rev[2] = frame(p, "a", "x", FRAME_USER);
	ids[1] = rev[1] = frame(p, "b", "x", FRAME_USER);
	ids[2] = rev[0] = frame(p, "c", "x", FRAME_USER);

	add(p, 10, 11, "bash", ids, 3, 1);	/* 0 */
	add(p, 10, 12, "bash", ids, 3, 2);	/* 1: other thread */
	add(p, 10, 11, "zsh", ids, 3, 4);	/* 2: other comm */
	add(p, 20, 11, "bash", ids, 3, 8);	/* 3: other process */
	add(p, 10, 11, "bash", rev, 3, 16);	/* 4: other order */
	add(p, 10, 11, "bash", ids, 2, 32);	/* 5: a prefix */
	add(p, 10, 11, "bash", ids + 1, 2, 64); /* 6: a suffix */
	/* 7: other thread name */
	who.tcomm = "bash-worker";
	assert_int_equal(profile__add_stack(p, &who, ids, 3, 128), 0);
	/* These merge with 0 and 1. */
	add(p, 10, 11, "bash", ids, 3, 256);
	add(p, 10, 12, "bash", ids, 3, 512);

	assert_int_equal(profile__nr_stacks(p), 8);
	expect_stack(p, 0, 10, 11, "bash", ids, 3, 257);
	expect_stack(p, 1, 10, 12, "bash", ids, 3, 514);
	expect_stack(p, 2, 10, 11, "zsh", ids, 3, 4);
	expect_stack(p, 3, 20, 11, "bash", ids, 3, 8);
	expect_stack(p, 4, 10, 11, "bash", rev, 3, 16);
	expect_stack(p, 5, 10, 11, "bash", ids, 2, 32);
	expect_stack(p, 6, 10, 11, "bash", ids + 1, 2, 64);
	expect_stack(p, 7, 10, 11, "bash", ids, 3, 128);
	assert_string_equal(profile__stack(p, 7)->who.tcomm, "bash-worker");
	assert_string_equal(profile__stack(p, 0)->who.tcomm, "bash");
	assert_int_equal(profile__total_weight(p), 1023);
	assert_int_equal(profile__nr_processes(p), 2);
	profile__free(p);
}

static void test_nr_processes(void **state)
{
	struct profile *p = new_profile(UNIT_NANOSECONDS);
	uint32_t f;

	(void)state;
	f = frame(p, "f", "m", FRAME_USER);
	add(p, 1, 1, "init", &f, 1, 1);
	add(p, 100, 100, "a", &f, 1, 1);
	add(p, 100, 101, "a", &f, 1, 1);
	add(p, 100, 102, "a", &f, 1, 1);
	add(p, 200, 201, "b", &f, 1, 1);
	add(p, 100, 100, "a", &f, 1, 1);
	assert_int_equal(profile__nr_processes(p), 3);
	assert_int_equal(profile__nr_stacks(p), 5);
	assert_int_equal(profile__total_weight(p), 6);
	profile__free(p);
}

static void test_empty_stack(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES);
	uint32_t none[1] = { 0 }, f;

	(void)state;
	add(p, 5, 5, "idle", none, 0, 3);
	add(p, 5, 5, "idle", none, 0, 4);
	f = frame(p, "cpu_idle", "[kernel]", FRAME_KERNEL);
	add(p, 5, 5, "idle", &f, 1, 5);
	assert_int_equal(profile__nr_stacks(p), 2);
	expect_stack(p, 0, 5, 5, "idle", none, 0, 7);
	expect_stack(p, 1, 5, 5, "idle", &f, 1, 5);
	assert_int_equal(profile__total_weight(p), 12);
	profile__free(p);
}

/* A missing comm is an empty one. */
static void test_null_comm(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES);
	struct stack_owner who = { .pid = 3, .tid = 4 };
	uint32_t f;

	(void)state;
	f = frame(p, "f", "m", FRAME_USER);
	assert_int_equal(profile__add_stack(p, &who, &f, 1, 1), 0);
	add(p, 3, 4, "", &f, 1, 2);
	assert_int_equal(profile__nr_stacks(p), 1);
	expect_stack(p, 0, 3, 4, "", &f, 1, 3);
	assert_string_equal(profile__stack(p, 0)->who.tcomm, "");
	profile__free(p);
}

/* Enough frames and stacks for every table to grow many times over. */
static void test_many(void **state)
{
	enum { N = 100000, NPROC = 50 };
	struct profile *p = new_profile(UNIT_SAMPLES);
	uint32_t *ids = malloc(N * sizeof(*ids)), root, st[3];
	uint64_t total = 0;
	char name[32];

	(void)state;
	assert_non_null(ids);
	root = frame(p, "root", "app", FRAME_USER);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "func_%u", i);
		ids[i] = frame(p, name, i % 2 ? "app" : "[kernel]",
			       i % 2 ? FRAME_USER : FRAME_KERNEL);
	}
	assert_int_equal(profile__nr_frames(p), N + 1);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "func_%u", i);
		assert_int_equal(frame(p, name, i % 2 ? "app" : "[kernel]",
				       i % 2 ? FRAME_USER : FRAME_KERNEL),
				 ids[i]);
		assert_string_equal(profile__frame(p, ids[i])->name, name);
	}
	assert_int_equal(profile__nr_frames(p), N + 1);

	for (uint32_t i = 0; i < N; i++) {
		st[0] = root;
		st[1] = ids[i];
		st[2] = ids[(i * 7 + 1) % N];
		add(p, 1000 + i % NPROC, i, "app", st, 3, i + 1);
		total += i + 1;
	}
	assert_int_equal(profile__nr_stacks(p), N);
	/* The second pass finds every stack again. */
	for (uint32_t i = N; i-- > 0;) {
		st[0] = root;
		st[1] = ids[i];
		st[2] = ids[(i * 7 + 1) % N];
		add(p, 1000 + i % NPROC, i, "app", st, 3, 1);
		total++;
	}
	assert_int_equal(profile__nr_stacks(p), N);
	for (uint32_t i = 0; i < N; i++) {
		st[0] = root;
		st[1] = ids[i];
		st[2] = ids[(i * 7 + 1) % N];
		expect_stack(p, i, 1000 + i % NPROC, i, "app", st, 3, (uint64_t)i + 2);
	}
	assert_true(profile__total_weight(p) == total);
	assert_int_equal(profile__nr_processes(p), NPROC);
	free(ids);
	profile__free(p);
}

/* --top: the heaviest processes (the lower pid of a tie), their events
 * moved to their new stacks, the share said; by thread, each thread apart. */
static void test_top(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES), *t;
	uint32_t f[1] = { frame(p, "f", "m", FRAME_USER) };
	struct profile_event ev = { .ts = 1, .dur = 1 };
	struct top_stats st;

	(void)state;
	add(p, 30, 30, "c", f, 1, 5);
	add(p, 10, 10, "a", f, 1, 3);
	add(p, 20, 20, "b", f, 1, 5);
	add(p, 10, 11, "a", f, 1, 4); /* pid 10: 7 in two threads */
	ev.stack = 2;		      /* pid 20's */
	assert_int_equal(profile__add_stack_event(p, &ev), 0);
	ev.stack = 1; /* pid 10's */
	assert_int_equal(profile__add_stack_event(p, &ev), 0);

	assert_int_equal(profile__top(p, 2, false, &t, &st), 0);
	assert_int_equal(st.kept, 2);
	assert_int_equal(st.of, 3);
	assert_int_equal(st.weight, 12);
	assert_int_equal(st.total, 17);
	assert_int_equal(profile__nr_stacks(t), 3);
	expect_stack(t, 0, 10, 10, "a", f, 1, 3);
	expect_stack(t, 1, 20, 20, "b", f, 1, 5);
	expect_stack(t, 2, 10, 11, "a", f, 1, 4);
	assert_int_equal(profile__nr_events(t), 2);
	assert_int_equal(profile__event(t, 0)->stack, 1);
	assert_int_equal(profile__event(t, 1)->stack, 0);
	profile__free(t);

	/* threads: 20/20 and 30/30 (5 each) before 10/11 (4) */
	assert_int_equal(profile__top(p, 2, true, &t, &st), 0);
	assert_int_equal(st.of, 4);
	assert_int_equal(st.weight, 10);
	assert_int_equal(profile__nr_stacks(t), 2);
	expect_stack(t, 0, 30, 30, "c", f, 1, 5);
	expect_stack(t, 1, 20, 20, "b", f, 1, 5);
	assert_int_equal(profile__nr_events(t), 1);
	profile__free(t);
	profile__free(p);
}

/* Several -e: a stack of one event never merges with the same stack of
 * another; a profile of one type holds its stacks (as type 0) and their
 * events, named by its event; the totals of each type. */
static void test_types(void **state)
{
	struct profile *p = new_profile(UNIT_SAMPLES), *t;
	uint32_t f[1] = { frame(p, "f", "m", FRAME_USER) };
	struct profile_meta m = { .event = "page-faults, cs",
				  .period = 1,
				  .ntypes = 2,
				  .types = { "page-faults", "context-switches" } };
	struct profile_event ev = { .ts = 5, .dur = 1 };
	uint64_t w, n;

	(void)state;
	assert_int_equal(profile__set_meta(p, &m), 0);
	add(p, 10, 10, "a", f, 1, 3);
	profile__set_type(p, 1);
	add(p, 10, 10, "a", f, 1, 4);
	add(p, 10, 10, "a", f, 1, 1);
	ev.stack = profile__last_stack(p);
	assert_int_equal(profile__add_stack_event(p, &ev), 0);
	assert_int_equal(profile__nr_stacks(p), 2);
	assert_int_equal(profile__stack(p, 0)->type, 0);
	assert_int_equal(profile__stack(p, 1)->type, 1);
	profile__type_totals(p, 1, &w, &n);
	assert_int_equal(w, 5);
	assert_int_equal(n, 5);

	t = profile__of_type(p, 1);
	assert_non_null(t);
	assert_int_equal(profile__nr_stacks(t), 1);
	expect_stack(t, 0, 10, 10, "a", f, 1, 5);
	assert_int_equal(profile__stack(t, 0)->type, 0);
	assert_string_equal(profile__meta(t)->event, "context-switches");
	assert_int_equal(profile__meta(t)->ntypes, 0);
	assert_int_equal(profile__meta(t)->period, 1);
	assert_int_equal(profile__nr_events(t), 1);
	assert_int_equal(profile__event(t, 0)->stack, 0);
	assert_int_equal(profile__event(t, 0)->ts, 5);
	profile__free(t);
	t = profile__of_type(p, 0);
	assert_non_null(t);
	expect_stack(t, 0, 10, 10, "a", f, 1, 3);
	assert_int_equal(profile__nr_events(t), 0);
	profile__free(t);
	profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_intern_many),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_add_stack_merges),
		cmocka_unit_test(test_add_stack_separates),
		cmocka_unit_test(test_nr_processes),
		cmocka_unit_test(test_empty_stack),
		cmocka_unit_test(test_null_comm),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_top),
		cmocka_unit_test(test_types),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
