/* SPDX-License-Identifier: GPL-2.0 */
/* --span NAME=BEGIN,END: the ABI of bpf/span.bpf.h and the sampler. A
 * thread's open spans are a stack in its task storage; each level has an
 * id made of its parent's, its span and its label, whose text goes to user
 * space once (EV_SPAN), so that a sample's key names its spans by the id
 * of the innermost. */
#ifndef FLAMEBPF_SPAN_H
#define FLAMEBPF_SPAN_H

#define SPAN_MAX_DEPTH 8 /* a power of two: levels are indexed by a mask */
#define SPAN_LABEL_LEN 48

#include "probe_arg.h"

enum span_label {
	SPAN_LABEL_NONE,
	SPAN_LABEL_STRING, /* the argument is a char * */
	SPAN_LABEL_NUMBER, /* the argument is the value */
};

/* A probe site, by its probe's cookie. */
struct span_site {
	__u32 span; /* its span, from 1 */
	__u8 end;   /* 1: END closes the span; 0: BEGIN opens it */
	__u8 label; /* enum span_label: BEGIN's label from arg */
	__u8 pad[2];
	struct usdt_loc arg;
};

struct span_level {
	__u64 id;
	__u64 ts;	   /* CLOCK_MONOTONIC at BEGIN */
	__u64 children_ns; /* spans ended inside it */
	__u32 span;
	__u32 pad;
};

struct span_stack {
	__u32 depth;
	__u32 pad;
	struct span_level l[SPAN_MAX_DEPTH];
};

/* The first sight of a span level: its id, its parent's (0: none), its
 * span and its label. */
struct sample_span_event {
	__u32 type; /* EV_SPAN */
	__u32 span;
	__u64 id, parent;
	__u64 num;   /* SPAN_LABEL_NUMBER's value */
	__u32 label; /* enum span_label */
	__u32 pad;
	char text[SPAN_LABEL_LEN]; /* SPAN_LABEL_STRING's, NUL-ended */
};

#endif
