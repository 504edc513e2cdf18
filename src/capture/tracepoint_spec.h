/* -e tracepoint:CATEGORY:NAME, attached as a raw tracepoint (no tracefs):
 * by its own name, or for the system calls, whose tracepoints are made by
 * ftrace from two raw ones, as sys_enter or sys_exit with the call's
 * number. Weighed by a field (--weight FIELD, not a system call's), as a
 * classic tracepoint, whose record tracefs's format file lays out. */
#ifndef FLAMEBPF_TRACEPOINT_SPEC_H
#define FLAMEBPF_TRACEPOINT_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "tp_format.h"

#define TRACEPOINT_NAME_LEN 64
#define TRACEPOINT_SPEC_LEN 128

/* What the weights are: one a hit, or a value of it. */
enum tp_weight {
	TP_WEIGHT_HITS = -1, /* 0..5: the system call's argument */
	TP_WEIGHT_RET = 6,   /* sys_exit_*: its return value, when positive */
	TP_WEIGHT_FIELD = 7, /* another tracepoint's field (tracepoint_spec.field) */
};

struct tracepoint_spec {
	char spec[TRACEPOINT_SPEC_LEN]; /* "syscalls:sys_enter_write", as given */
	char raw[TRACEPOINT_NAME_LEN];	/* the raw tracepoint: "sys_enter" */
	int nr;				/* sys_enter/sys_exit: the call; -1: any */
	bool exit;			/* sys_exit */
	unsigned int id;		/* TP_WEIGHT_FIELD: the perf event's, from tracefs */
	struct tp_field field;		/* ... the field weighing each hit */
};

/* Whether s names a tracepoint: "tracepoint:..." or "t:...". */
bool tracepoint_spec__is(const char *s);

/* Parses "tracepoint:CATEGORY:NAME" (or "t:..."). Returns 0, -EINVAL for
 * another shape, -ENOENT for a system call this architecture has not. */
int tracepoint_spec__parse(const char *s, struct tracepoint_spec *tp);

/* Parses --weight: "argN" (sys_enter_*: N from 0 to 5) or "ret" (sys_exit_*),
 * or an argument's name ("count") as the tracepoint's format file in
 * tracefs gives it. Returns 0; -EINVAL when tp has no such value; -ENOENT
 * for a name when tracefs is not mounted (or has no such tracepoint). */
int tracepoint_spec__weight(const struct tracepoint_spec *tp, const char *s, int *w);

/* --weight FIELD at a tracepoint other than the system calls': the field
 * in its format file in tracefs, which is left in format (len bytes) for
 * errors to list the others, and its id, into tp. Returns 0; -ENODEV when
 * tracefs is not mounted, -ENOENT when it has no such tracepoint, -ESRCH
 * when the tracepoint has no such field, -EDOM when the field is not a
 * number; or another -errno reading tracefs. */
int tracepoint_spec__weigh_field(struct tracepoint_spec *tp, const char *field, char *format,
				 size_t len);

/* The index of the system call argument named field in a tracepoint's
 * format text (its fields after __syscall_nr), TP_WEIGHT_RET for "ret" at
 * an exit; -1 when there is none. */
int tracepoint_spec__field(const char *format, const char *field);

#endif
