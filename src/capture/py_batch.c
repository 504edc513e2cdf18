// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <linux/types.h>

#include "py_batch.h"
#include "sample.h"

/* The length of the record at rec, of at most left bytes; 0 if it is not
 * a whole EV_PYSTACK record. */
static size_t record_len(const uint8_t *rec, size_t left)
{
	struct sample_stack_event head;
	size_t len;

	if (left < offsetof(struct sample_stack_event, ip))
		return 0;
	memcpy(&head, rec, offsetof(struct sample_stack_event, ip));
	if (head.type != EV_PYSTACK || head.nr > SAMPLE_MAX_DEPTH)
		return 0;
	len = offsetof(struct sample_stack_event, ip) + head.nr * sizeof(head.ip[0]);
	return len <= left ? len : 0;
}

int py_batch__each(const void *data, size_t size, int (*fn)(void *arg, const void *rec, size_t len),
		   void *arg)
{
	const size_t head = offsetof(struct py_batch_event, rec);
	struct py_batch_event ev;
	const uint8_t *rec;
	size_t left, len;
	int err;

	if (size < head)
		return -EBADMSG;
	memcpy(&ev, data, head);
	if (ev.type != EV_PYSTACKS || ev.bytes > size - head)
		return -EBADMSG;
	rec = (const uint8_t *)data + head;
	for (left = ev.bytes; left; left -= len, rec += len) {
		len = record_len(rec, left);
		if (!len)
			return -EBADMSG;
		err = fn(arg, rec, len);
		if (err)
			return err;
	}
	return 0;
}
