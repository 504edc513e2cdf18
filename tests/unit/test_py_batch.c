// SPDX-License-Identifier: GPL-2.0
/* A batch of Python records (EV_PYSTACKS) taken apart into the records
 * the kernel side kept, whole, in order; anything else is refused whole. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <linux/types.h>

#include "capture/py_batch.h"
#include "sample.h"

struct seen {
	size_t n;
	uint64_t ids[8];
	size_t lens[8];
	int stop_at; /* the record fn stops at, with -EINTR; -1 none */
};

static int note(void *arg, const void *rec, size_t len)
{
	struct seen *s = arg;
	struct sample_stack_event ev;

	memcpy(&ev, rec, offsetof(struct sample_stack_event, ip));
	if ((int)s->n == s->stop_at)
		return -EINTR;
	if (s->n < 8) {
		s->ids[s->n] = ev.id;
		s->lens[s->n] = len;
	}
	s->n++;
	return 0;
}

/* Appends a record of nr words (id, then words id + 1...) at b->rec +
 * b->bytes. */
static void put(struct py_batch_event *b, uint64_t id, uint32_t nr, uint32_t type)
{
	struct sample_stack_event ev = { .type = type, .nr = nr, .id = id };
	size_t len = offsetof(struct sample_stack_event, ip) + nr * sizeof(ev.ip[0]);

	for (uint32_t i = 0; i < nr && i < SAMPLE_MAX_DEPTH; i++)
		ev.ip[i] = id + 1 + i;
	assert_true(b->bytes + len <= sizeof(b->rec));
	memcpy(b->rec + b->bytes, &ev, len);
	b->bytes += len;
}

static size_t size_of(const struct py_batch_event *b)
{
	return offsetof(struct py_batch_event, rec) + b->bytes;
}

static void test_records_in_order(void **state)
{
	static struct py_batch_event b = { .type = EV_PYSTACKS };
	struct seen s = { .stop_at = -1 };

	(void)state;
	put(&b, 100, 3, EV_PYSTACK);
	put(&b, 200, 1, EV_PYSTACK);
	put(&b, 300, SAMPLE_MAX_DEPTH, EV_PYSTACK);
	assert_int_equal(py_batch__each(&b, size_of(&b), note, &s), 0);
	assert_int_equal(s.n, 3);
	assert_true(s.ids[0] == 100 && s.ids[1] == 200 && s.ids[2] == 300);
	assert_int_equal(s.lens[0], 16 + 3 * 8);
	assert_int_equal(s.lens[1], 16 + 8);
	assert_int_equal(s.lens[2], 16 + SAMPLE_MAX_DEPTH * 8);
}

/* None at all is a batch of nothing, not an error. */
static void test_empty(void **state)
{
	static struct py_batch_event b = { .type = EV_PYSTACKS };
	struct seen s = { .stop_at = -1 };

	(void)state;
	assert_int_equal(py_batch__each(&b, size_of(&b), note, &s), 0);
	assert_int_equal(s.n, 0);
}

static void test_refused(void **state)
{
	static struct py_batch_event b;
	struct seen s = { .stop_at = -1 };

	(void)state;
	/* shorter than its header */
	memset(&b, 0, sizeof(b));
	b.type = EV_PYSTACKS;
	assert_int_equal(py_batch__each(&b, 4, note, &s), -EBADMSG);
	/* another type of event */
	b.type = EV_PYSTACK;
	assert_int_equal(py_batch__each(&b, size_of(&b), note, &s), -EBADMSG);
	/* more bytes claimed than came */
	b.type = EV_PYSTACKS;
	put(&b, 1, 2, EV_PYSTACK);
	assert_int_equal(py_batch__each(&b, size_of(&b) - 8, note, &s), -EBADMSG);
	/* a record of another type inside */
	b.bytes = 0;
	put(&b, 1, 2, EV_STACK);
	assert_int_equal(py_batch__each(&b, size_of(&b), note, &s), -EBADMSG);
	/* a record deeper than any stack */
	b.bytes = 0;
	put(&b, 1, 2, EV_PYSTACK);
	((struct sample_stack_event *)b.rec)->nr = SAMPLE_MAX_DEPTH + 1;
	assert_int_equal(py_batch__each(&b, size_of(&b), note, &s), -EBADMSG);
	/* a record cut short: its words run past the batch */
	b.bytes = 0;
	put(&b, 1, 4, EV_PYSTACK);
	b.bytes -= 8;
	assert_int_equal(py_batch__each(&b, size_of(&b), note, &s), -EBADMSG);
	/* a tail too short for a record's header */
	b.bytes = 0;
	put(&b, 1, 1, EV_PYSTACK);
	b.bytes += 8;
	assert_int_equal(py_batch__each(&b, size_of(&b), note, &s), -EBADMSG);
	assert_int_equal(s.n, 1); /* the whole record before it was passed */
}

/* fn's error stops the walk and is returned as it is. */
static void test_stopped(void **state)
{
	static struct py_batch_event b = { .type = EV_PYSTACKS };
	struct seen s = { .stop_at = 1 };

	(void)state;
	put(&b, 1, 1, EV_PYSTACK);
	put(&b, 2, 1, EV_PYSTACK);
	put(&b, 3, 1, EV_PYSTACK);
	assert_int_equal(py_batch__each(&b, size_of(&b), note, &s), -EINTR);
	assert_int_equal(s.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_in_order),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_stopped),
	};

	return cmocka_run_group_tests_name("py_batch", tests, NULL, NULL);
}
